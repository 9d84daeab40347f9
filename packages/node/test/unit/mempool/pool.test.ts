/** The pending-transaction pool: FIFO view, duplicates, prefix index, removal, TTL on removal, bounds. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { bytesToHex } from '../../../src/codec/hex.ts';
import { MAX_TX_BYTES, MempoolError, PREFIX_BYTES, TxPool } from '../../../src/mempool/index.ts';
import { sampleSignedTx } from '../../mocks/fixtures.ts';

const TX = sampleSignedTx([]);
const hash = (n: number, prefix = 0): Uint8Array => {
  const h = new Uint8Array(32);
  h[0] = prefix;
  h[31] = n;
  return h;
};
const pool = (over: Partial<ConstructorParameters<typeof TxPool>[0]> = {}) =>
  new TxPool({ maxCount: 100, maxBytes: 1_000_000, ttlMs: null, ...over });
const hexes = (p: TxPool) => [...p.view()].map((t) => bytesToHex(t.hash));

describe('TxPool', () => {
  test('the view is in insertion order; a duplicate is not added again and keeps its place', () => {
    const p = pool();
    assert.equal(p.add(hash(3), TX, 10, 1), 'added');
    assert.equal(p.add(hash(1), TX, 10, 2), 'added');
    assert.equal(p.add(hash(3), TX, 10, 3), 'duplicate');
    assert.equal(p.add(hash(2), TX, 10, 4), 'added');
    assert.deepEqual(hexes(p), [hash(3), hash(1), hash(2)].map(bytesToHex));
    assert.equal(p.size, 3);
    assert.equal(p.totalBytes, 30);
    assert.equal(p.lastItemTimestamp, 4);
    assert.equal(p.get(hash(3))?.insertedAtMs, 1, 'the duplicate did not renew the age');
  });

  test('the prefix index finds every pending tx whose hash starts with 16 given bytes', () => {
    const p = pool();
    p.add(hash(1, 7), TX, 1, 0);
    p.add(hash(2, 7), TX, 1, 0);
    p.add(hash(3, 8), TX, 1, 0);
    const prefix = hash(0, 7).subarray(0, PREFIX_BYTES);
    assert.deepEqual(
      p.byHashPrefix(prefix).map((t) => bytesToHex(t.hash)),
      [hash(1, 7), hash(2, 7)].map(bytesToHex),
    );
    p.remove([hash(1, 7)], 0);
    assert.deepEqual(
      p.byHashPrefix(prefix).map((t) => bytesToHex(t.hash)),
      [bytesToHex(hash(2, 7))],
    );
    assert.deepEqual(p.byHashPrefix(hash(0, 9).subarray(0, PREFIX_BYTES)), []);
  });

  test('removal takes included transactions out; the TTL evicts the old ones only then', () => {
    const p = pool({ ttlMs: 1000 });
    p.add(hash(1), TX, 5, 0);
    p.add(hash(2), TX, 5, 500);
    p.add(hash(3), TX, 5, 900);
    // Time alone evicts nothing: the pool has no clock.
    assert.equal(p.size, 3);
    const evicted = p.remove([hash(3)], 1600);
    assert.deepEqual(evicted.map(bytesToHex), [hash(1), hash(2)].map(bytesToHex));
    assert.equal(p.size, 0);
    assert.equal(p.totalBytes, 0);
    // A removed transaction may come back.
    assert.equal(p.add(hash(3), TX, 5, 1700), 'added');
  });

  test('a transaction larger than a block is refused with the reference text; nothing changes', () => {
    const p = pool({ maxBytes: 10 * MAX_TX_BYTES });
    assert.throws(
      () => p.add(hash(1), TX, MAX_TX_BYTES + 1, 0),
      (e: unknown) =>
        e instanceof MempoolError &&
        e.code === 'MEMPOOL_ITEM_TOO_LARGE' &&
        e.message === `Item is too large: ${MAX_TX_BYTES + 1} bytes exceeds maximum 2097152 bytes`,
    );
    assert.equal(p.size, 0);
    assert.equal(p.add(hash(1), TX, MAX_TX_BYTES, 0), 'added');
  });

  test('a full pool refuses by count or by bytes, and takes again once a block removes some', () => {
    const byCount = pool({ maxCount: 2 });
    byCount.add(hash(1), TX, 1, 0);
    byCount.add(hash(2), TX, 1, 0);
    assert.throws(() => byCount.add(hash(3), TX, 1, 0), {
      code: 'MEMPOOL_FULL',
      meta: { size: 1, bound: 'count', limit: 2 },
    });
    assert.equal(byCount.add(hash(2), TX, 1, 0), 'duplicate', 'a duplicate is answered even when full');
    byCount.remove([hash(1)], 0);
    assert.equal(byCount.add(hash(3), TX, 1, 0), 'added');

    const byBytes = pool({ maxBytes: 100 });
    byBytes.add(hash(1), TX, 60, 0);
    assert.throws(() => byBytes.add(hash(2), TX, 41, 0), {
      code: 'MEMPOOL_FULL',
      meta: { size: 41, bound: 'bytes', limit: 100 },
    });
    assert.equal(byBytes.size, 1);
    assert.equal(byBytes.add(hash(2), TX, 40, 0), 'added');
  });
});
