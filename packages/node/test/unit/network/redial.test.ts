/** The redial hold on a peer that drops this node's connections at once (redial.ts). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RedialBackoff } from '../../../src/network/redial.ts';

const S = { shortMs: 2000, firstMs: 1000, maxMs: 8000 };

test('a connection dropped at once holds back redials, doubling up to the maximum', () => {
  const r = new RedialBackoff(S);
  let now = 10_000;
  assert.equal(r.held('p', now), false);
  const holds: number[] = [];
  for (let i = 0; i < 6; i++) {
    const h = r.closed('p', 5, now);
    holds.push(h);
    assert.equal(r.held('p', now + h - 1), true, `held during the hold ${i}`);
    assert.equal(r.held('q', now), false, 'another peer is not held');
    now += h;
    assert.equal(r.held('p', now), false, `free after the hold ${i}`);
  }
  assert.deepEqual(holds, [1000, 2000, 4000, 8000, 8000, 8000]);
});

test('a connection that lasts clears the hold', () => {
  const r = new RedialBackoff(S);
  assert.equal(r.closed('p', 10, 0), 1000);
  assert.equal(r.closed('p', 10, 1000), 2000);
  assert.equal(r.closed('p', S.shortMs, 5000), 0, 'lived long enough');
  assert.equal(r.held('p', 5000), false);
  assert.equal(r.closed('p', 10, 6000), 1000, 'starts again from the first hold');
});
