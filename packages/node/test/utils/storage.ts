/** Shared helpers of the storage tests: a seeded PRNG, temp dirs, and the chain-store invariant check. */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Bucket } from '../../src/storage/buckets.ts';
import type { ChainStore } from '../../src/storage/chain-store.ts';
import { type KvStore, readU64Key } from '../../src/storage/kv.ts';
import { prng } from './prng.ts';

export { prng };

export function randInt(rand: () => number, lo: number, hi: number): number {
  return lo + Math.floor(rand() * (hi - lo + 1));
}

export function sha256(...parts: (Uint8Array | string)[]): Uint8Array {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return new Uint8Array(h.digest());
}

export function hex(b: Uint8Array): string {
  return Buffer.from(b).toString('hex');
}

export function tempDir(t: { after(fn: () => void): void }, prefix = 'logos-storage-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Every entry of every bucket, as hex, for comparing whole stores. */
export function dump(kv: KvStore): Record<string, [string, string][]> {
  const out: Record<string, [string, string][]> = {};
  for (let b = 0; b <= 16; b++) {
    const entries = [...kv.range(b)].map(([k, v]) => [hex(k), hex(v)] as [string, string]);
    if (entries.length > 0) out[Bucket[b] ?? String(b)] = entries;
  }
  return out;
}

export interface InvariantSummary {
  /** Height of the top canonical block (-1 for an empty chain). */
  top: bigint;
  canonical: string[];
  blocks: number;
  txs: number;
}

/**
 * Checks the chain store's consistency from the raw buckets:
 * - CanonicalByHeight has exactly heights 0..top, each a stored block of that height whose parent is the
 *   canonical block below and whose slot is above its parent's;
 * - CanonicalBySlot mirrors it exactly;
 * - TxIndex holds exactly the txs of canonical blocks, at their positions;
 * - meta tip is the canonical block at the top height, meta lib is canonical;
 * - every stored block has its block, info, events and tx list, and no bucket holds a piece of a block
 *   that is not stored (no partial commit is visible).
 */
export function checkInvariants(kv: KvStore, chain: ChainStore): InvariantSummary {
  // Stored blocks.
  const stored = new Map<string, { height: bigint }>();
  for (const [k] of kv.range(Bucket.BlocksByHeight)) {
    const height = readU64Key(k);
    const id = k.subarray(8);
    const info = chain.info(id);
    assert.ok(info, `block ${hex(id)} is indexed but has no info`);
    assert.equal(info.height, height, `block ${hex(id)}: indexed height`);
    assert.ok(chain.block(id), `block ${hex(id)} has no body`);
    assert.ok(chain.events(id), `block ${hex(id)} has no events`);
    assert.ok(chain.blockTxHashes(id), `block ${hex(id)} has no tx list`);
    stored.set(hex(id), { height });
  }
  for (const bucket of [Bucket.Blocks, Bucket.BlockInfo, Bucket.Events, Bucket.BlockTxs]) {
    for (const [k] of kv.range(bucket))
      assert.ok(stored.has(hex(k)), `${Bucket[bucket]} holds ${hex(k)}, which is not a stored block`);
  }

  // Canonical chain by height.
  const canonical: string[] = [];
  let prevSlot = -1n;
  for (const [k, id] of kv.range(Bucket.CanonicalByHeight)) {
    const h = readU64Key(k);
    assert.equal(h, BigInt(canonical.length), `canonical heights must be 0..top, found ${h}`);
    const info = chain.info(id);
    assert.ok(info && stored.has(hex(id)), `canonical block ${hex(id)} at ${h} is not stored`);
    assert.equal(info.height, h, `canonical block ${hex(id)}: height`);
    if (h > 0n) assert.equal(hex(info.parent), canonical[canonical.length - 1], `canonical ${h}: parent`);
    assert.ok(info.slot > prevSlot, `canonical ${h}: slot ${info.slot} must exceed ${prevSlot}`);
    prevSlot = info.slot;
    canonical.push(hex(id));
  }
  const top = BigInt(canonical.length) - 1n;

  // By slot: exactly the canonical blocks.
  const bySlot = [...kv.range(Bucket.CanonicalBySlot)];
  assert.equal(bySlot.length, canonical.length, 'CanonicalBySlot size');
  bySlot.forEach(([k, id], i) => {
    assert.equal(hex(id), canonical[i], `CanonicalBySlot entry ${i}`);
    assert.equal(readU64Key(k), chain.info(id)!.slot, `CanonicalBySlot entry ${i}: slot`);
  });

  // Tx index: exactly the txs of canonical blocks.
  const expectedTxs = new Map<string, string>();
  for (const id of canonical) {
    const hashes = chain.blockTxHashes(Buffer.from(id, 'hex'))!;
    hashes.forEach((h, i) => {
      assert.ok(!expectedTxs.has(hex(h)), `tx ${hex(h)} is in two canonical blocks (a bad test chain)`);
      expectedTxs.set(hex(h), `${id}:${i}`);
    });
  }
  const actualTxs = new Map<string, string>();
  for (const [k] of kv.range(Bucket.TxIndex)) {
    const loc = chain.txLocation(k)!;
    actualTxs.set(hex(k), `${hex(loc.block)}:${loc.position}`);
  }
  // Compared entry by entry, so that a failure names the first difference rather than printing both maps.
  for (const [tx, loc] of expectedTxs)
    assert.equal(actualTxs.get(tx), loc, `TxIndex entry of canonical tx ${tx}`);
  for (const [tx, loc] of actualTxs)
    assert.ok(expectedTxs.has(tx), `TxIndex holds ${tx} → ${loc}, which is not a tx of a canonical block`);

  // Meta.
  const meta = chain.meta();
  if (canonical.length === 0) assert.equal(meta.tip, undefined, 'no tip for an empty chain');
  else {
    assert.ok(meta.tip, 'a tip is set');
    assert.equal(hex(meta.tip), canonical[canonical.length - 1], 'tip is the top canonical block');
    assert.equal(chain.tipHeight(), top);
  }
  if (meta.lib !== undefined) assert.ok(canonical.includes(hex(meta.lib)), 'lib is canonical');
  return { top, canonical, blocks: stored.size, txs: actualTxs.size };
}
