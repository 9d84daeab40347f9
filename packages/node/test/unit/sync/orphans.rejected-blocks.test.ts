/** The rejected-blocks cache: an LRU of its capacity; capacity 0 disables it. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RejectedBlocks } from '../../../src/sync/orphans.ts';

const id = (b: number) => new Uint8Array(32).fill(b);

test('the rejected-blocks cache is an LRU of its capacity', () => {
  const r = new RejectedBlocks(2);
  r.insert(id(1));
  r.insert(id(2));
  assert.equal(r.has(id(1)), true); // refreshes 1
  r.insert(id(3)); // evicts 2
  assert.equal(r.has(id(2)), false);
  assert.equal(r.containsBlockOrParent(id(9), id(3)), true);
  assert.equal(new RejectedBlocks(0).containsBlockOrParent(id(1), id(1)), false);
});
