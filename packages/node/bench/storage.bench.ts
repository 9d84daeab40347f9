/**
 * Storage figures on lmdb in a temporary data directory:
 * - storage.commit_block_per_s: durable ChainStore commits, one after another, each a 2 KB block with 10 tx
 *   hashes, its events, its canonical height and slot entries, tx index entries and the new tip;
 * - storage.get_block_per_s: random reads of stored blocks by id (synchronous).
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChainUpdate, StoredBlockInfo } from '../src/storage/chain-store.ts';
import { openStore, type Store } from '../src/storage/open.ts';
import { type Figure, median, rate } from './harness.ts';

const BLOCK_BYTES = 2048;
const TXS_PER_BLOCK = 10;

function sha256(data: Uint8Array): Uint8Array {
  return new Uint8Array(createHash('sha256').update(data).digest());
}

/** A store with a chain that grows one block per `next()` commit. */
class BenchChain {
  readonly ids: Uint8Array[] = [];
  private parent: StoredBlockInfo | undefined;

  private constructor(
    readonly store: Store,
    private readonly dir: string,
  ) {}

  static async open(): Promise<BenchChain> {
    const dir = mkdtempSync(join(tmpdir(), 'logos-bench-storage-'));
    return new BenchChain(await openStore(join(dir, 'data')), dir);
  }

  update(): ChainUpdate {
    const block = randomBytes(BLOCK_BYTES);
    const id = sha256(block);
    const height = this.parent ? this.parent.height + 1n : 0n;
    const slot = height * 3n;
    const info: StoredBlockInfo = { id, parent: this.parent?.id ?? new Uint8Array(32), slot, height };
    const txHashes = Array.from({ length: TXS_PER_BLOCK }, (_, i) =>
      sha256(Buffer.concat([id, Buffer.of(i)])),
    );
    this.parent = info;
    this.ids.push(id);
    return {
      blocks: [{ info, block, events: randomBytes(64), txHashes }],
      canonical: [{ height, id, slot }],
      meta: { tip: id },
    };
  }

  next(): Promise<void> {
    return this.store.chain.commit(this.update());
  }

  /** `n` blocks in one commit (an import batch). */
  batch(n: number): Promise<void> {
    const updates = Array.from({ length: n }, () => this.update());
    return this.store.chain.commit({
      blocks: updates.flatMap((u) => u.blocks),
      canonical: updates.flatMap((u) => u.canonical),
      meta: updates[updates.length - 1]!.meta,
    });
  }

  async close(): Promise<void> {
    await this.store.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Commits per second, each awaited (durable) before the next; median of `rounds` rounds of `minMs`. */
async function commitRate(chain: BenchChain, rounds = 5, minMs = 600): Promise<number> {
  for (let i = 0; i < 200; i++) await chain.next(); // warm-up
  const results: number[] = [];
  for (let r = 0; r < rounds; r++) {
    let n = 0;
    const start = performance.now();
    let now = start;
    while (now - start < minMs) {
      await chain.next();
      n++;
      now = performance.now();
    }
    results.push((n * 1000) / (now - start));
  }
  return median(results);
}

export const figures: Figure[] = [
  {
    name: 'storage.commit_block_per_s',
    unit: 'commits/s',
    async measure() {
      const chain = await BenchChain.open();
      try {
        return await commitRate(chain);
      } finally {
        await chain.close();
      }
    },
  },
  {
    name: 'storage.get_block_per_s',
    unit: 'gets/s',
    async measure() {
      const chain = await BenchChain.open();
      try {
        // 20 000 blocks (about 45 MB with their indices), written in import batches of 500.
        for (let i = 0; i < 40; i++) await chain.batch(500);
        const ids = chain.ids;
        let x = 12345;
        const order = Array.from({ length: 4096 }, () => {
          x = (Math.imul(x, 1103515245) + 12345) >>> 0;
          return ids[x % ids.length]!;
        });
        let sink = 0;
        const value = rate(() => {
          for (const id of order) sink += chain.store.chain.block(id)!.length;
        }, order.length);
        if (sink === 0) throw new Error('no blocks read');
        return value;
      } finally {
        await chain.close();
      }
    },
  },
];
