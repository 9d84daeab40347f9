/** The orphan pool: bounded, one copy of a block, handed back by parent in arrival order. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { headerId } from '../../../src/block/header.ts';
import { OrphanPool } from '../../../src/chain/orphans.ts';
import { bytesToHex } from '../../../src/codec/hex.ts';
import { TestChain } from '../../mocks/ledger.ts';

test('orphans wait by parent, are kept once, and the pool is bounded', () => {
  const t = new TestChain();
  const a = t.block([], 2n, 1n);
  const b = t.block([], 3n, 2n);
  const c = t.block([], 4n, 3n);
  const pool = new OrphanPool(2);
  assert.equal(pool.add('p', a), true);
  assert.equal(pool.add('p', a), false, 'the same block is not kept twice');
  assert.equal(pool.add('p', b), true);
  assert.equal(pool.add('q', c), false, 'the pool is full');
  assert.equal(pool.size, 2);
  assert.deepEqual(pool.take('q'), []);
  const got = pool.take('p').map((x) => bytesToHex(headerId(x.header)));
  assert.deepEqual(
    got,
    [a, b].map((x) => bytesToHex(headerId(x.header))),
  );
  assert.equal(pool.size, 0);
  assert.equal(pool.add('q', c), true);
});
