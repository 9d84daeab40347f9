import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { openWinnerStore, type PowWinner, ticketKey } from '../../../src/pow/winners.ts';
import { Bucket } from '../../../src/storage/buckets.ts';
import { LmdbKv, MemoryKv } from '../../../src/storage/kv.ts';

const P = 21888242871839275222246405745257275088548364400416034343698204186575808495617n;

function winner(ticket: bigint, slot: bigint): PowWinner {
  return {
    ticket,
    blockId: new Uint8Array(32).fill(Number(slot % 256n)),
    blockSlot: slot,
    epochNonce: P - 1n - ticket,
    secretKey: P - 2n,
    publicKey: 12345678901234567890123456789n,
  };
}

describe('PoW winner store', () => {
  test('add, ready (oldest slot first), markPending, pending, markReady, retire', async () => {
    const s = openWinnerStore(new MemoryKv());
    await s.add(winner(5n, 30n));
    await s.add(winner(P - 1n, 10n));
    await s.add(winner(7n, 20n));
    assert.deepEqual(
      s.ready().map((w) => w.blockSlot),
      [10n, 20n, 30n],
    );
    assert.deepEqual(s.ready()[0], winner(P - 1n, 10n));
    assert.deepEqual(s.pending(), []);
    const hash = new Uint8Array(32).fill(9);
    await s.markPending([7n, 5n, 999n], hash);
    assert.deepEqual(
      s.ready().map((w) => w.ticket),
      [P - 1n],
    );
    assert.deepEqual(
      s.pending().map((w) => [w.ticket, w.claimTx]),
      [
        [7n, hash],
        [5n, hash],
      ],
    );
    assert.deepEqual(s.pending()[0], { ...winner(7n, 20n), claimTx: hash });
    await s.markReady([5n]);
    assert.deepEqual(
      s.ready().map((w) => w.ticket),
      [P - 1n, 5n],
    );
    assert.equal(s.ready()[1]!.claimTx, undefined);
    await s.retire([7n, P - 1n]);
    assert.deepEqual(s.pending(), []);
    assert.deepEqual(s.ready(), [winner(5n, 30n)]);
  });

  test('prune removes the winners whose window passed (blockSlot + window < current), ready or pending', async () => {
    const s = openWinnerStore(new MemoryKv());
    await s.add(winner(1n, 100n));
    await s.add(winner(2n, 99n));
    await s.add(winner(3n, 50n));
    await s.markPending([3n], new Uint8Array(32));
    const gone = await s.prune(400n, 300n);
    assert.deepEqual(gone.map((w) => w.ticket).sort(), [2n, 3n]);
    assert.deepEqual(
      s.ready().map((w) => w.ticket),
      [1n],
    );
    assert.deepEqual(s.pending(), []);
    assert.deepEqual(await s.prune(400n, 300n), []);
  });

  test('a corrupt record is skipped and reported, the others are read', async () => {
    const kv = new MemoryKv();
    const bad: string[] = [];
    const s = openWinnerStore(kv, { onCorrupt: (k, why) => bad.push(`${k}: ${why}`) });
    await s.add(winner(1n, 1n));
    await kv.transaction((tx) => tx.put(Bucket.PowWinners, ticketKey(2n), Uint8Array.of(1, 2, 3)));
    await kv.transaction((tx) =>
      tx.put(Bucket.PowWinners, ticketKey(3n), Uint8Array.of(7, ...new Uint8Array(140))),
    );
    assert.deepEqual(s.ready(), [winner(1n, 1n)]);
    assert.deepEqual(s.pending(), []);
    assert.equal(bad.length, 2);
    assert.match(bad[0]!, /shorter than/);
    assert.match(bad[1]!, /unknown record version 7/);
    await s.markPending([2n, 1n], new Uint8Array(4));
    assert.equal(s.pending().length, 1);
    assert.equal(bad.length, 2, 'each corrupt record is reported once');
  });

  test('everything survives closing and reopening the lmdb file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pow-winners-'));
    try {
      const path = join(dir, 'db');
      const kv = LmdbKv.open(path);
      const s = openWinnerStore(kv);
      await s.add(winner(11n, 5n));
      await s.add(winner(12n, 6n));
      await s.add(winner(13n, 7n));
      await s.markPending([12n], Uint8Array.of(1, 2, 3));
      await s.retire([13n]);
      await kv.close();
      const kv2 = LmdbKv.open(path);
      const s2 = openWinnerStore(kv2);
      assert.deepEqual(s2.ready(), [winner(11n, 5n)]);
      assert.deepEqual(s2.pending(), [{ ...winner(12n, 6n), claimTx: Uint8Array.of(1, 2, 3) }]);
      await kv2.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
