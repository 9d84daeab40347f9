/**
 * The deterministic chain generator of the crash test. Step n (n = 1, 2, …) draws its random choices from a
 * PRNG seeded with (seed, n) and depends only on the model's state, which can be rebuilt from the store
 * (`CrashModel.load`). So the child process that writes (crash-writer.ts) and is killed and restarted
 * many times produces exactly the same sequence of updates as the parent replaying the model from
 * scratch: after every kill, the parent replays up to the commit count found in the store and compares
 * the whole store with the model.
 *
 * The generator grows a chain with side forks, reorgs (longer and shorter branches, to new and to stored
 * forks, with txs moving between branches), import batches, LIB advances with pruning, and meta changes.
 * Block bytes are self-describing (header with parent, slot, height and tx hashes; id = sha256 of the
 * header) with pseudo-random padding derived from the id, so any torn or mixed value is detectable.
 */
import assert from 'node:assert/strict';
import type { ChainStore, ChainUpdate, CommitBlock } from '../../../src/storage/chain-store.ts';
import { u64Key } from '../../../src/storage/kv.ts';
import { hex, prng, randInt, sha256 } from '../../utils/storage.ts';

const ZERO = new Uint8Array(32);
const MAGIC = new TextEncoder().encode('LGB1');

export interface ModelBlock {
  key: string;
  id: Uint8Array;
  parent: Uint8Array;
  slot: bigint;
  height: bigint;
  txs: Uint8Array[];
}

/** Pseudo-random bytes from a 32-bit seed (fast; only needs to be deterministic). */
function fill(seed: number, length: number): Uint8Array {
  const rand = prng(seed ^ 0x9e3779b9);
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i++) out[i] = (rand() * 256) | 0;
  return out;
}

function seedOf(id: Uint8Array, offset: number): number {
  return ((id[offset]! << 24) | (id[offset + 1]! << 16) | (id[offset + 2]! << 8) | id[offset + 3]!) >>> 0;
}

function header(parent: Uint8Array, slot: bigint, height: bigint, txs: readonly Uint8Array[]): Uint8Array {
  const count = new Uint8Array([txs.length >> 8, txs.length & 0xff]);
  return Buffer.concat([MAGIC, parent, u64Key(slot), u64Key(height), count, ...txs]);
}

/** The stored bytes of a block: its header, then 100..2140 bytes of padding derived from its id. */
export function blockBytes(b: ModelBlock): Uint8Array {
  const h = header(b.parent, b.slot, b.height, b.txs);
  return new Uint8Array(Buffer.concat([h, fill(seedOf(b.id, 0), 100 + b.id[4]! * 8)]));
}

export function eventBytes(b: ModelBlock): Uint8Array {
  return new Uint8Array(
    Buffer.concat([new TextEncoder().encode('EV'), b.id, fill(seedOf(b.id, 8), b.id[5]!)]),
  );
}

function makeBlock(parent: ModelBlock | undefined, slot: bigint, txs: Uint8Array[]): ModelBlock {
  const parentId = parent?.id ?? ZERO;
  const height = parent ? parent.height + 1n : 0n;
  const id = sha256(header(parentId, slot, height, txs));
  return { key: hex(id), id, parent: parentId, slot, height, txs };
}

function commitBlock(b: ModelBlock): CommitBlock {
  return {
    info: { id: b.id, parent: b.parent, slot: b.slot, height: b.height },
    block: blockBytes(b),
    events: eventBytes(b),
    txHashes: b.txs,
  };
}

const byKey = (a: ModelBlock, b: ModelBlock) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);

export class CrashModel {
  readonly blocks = new Map<string, ModelBlock>();
  /** Canonical block keys by height. */
  canonical: string[] = [];
  private canonSet = new Set<string>();
  lib: string | undefined;
  state = 'Bootstrapping';
  /** Number of steps applied (stored as meta lastOnlineMs). */
  counter = 0n;
  /** What the steps did, for the test's report. */
  readonly stats = {
    extend: 0,
    batch: 0,
    sideFork: 0,
    reorg: 0,
    shorterReorg: 0,
    prunedBlocks: 0,
    lib: 0,
    meta: 0,
  };

  constructor(readonly seed: number) {}

  /** Rebuilds the model from a store written by steps of the same seed. */
  static load(chain: ChainStore, seed: number): CrashModel {
    const m = new CrashModel(seed);
    for (const info of chain.allBlocks()) {
      const key = hex(info.id);
      m.blocks.set(key, { key, ...info, txs: chain.blockTxHashes(info.id) ?? [] });
    }
    const top = chain.tipHeight();
    if (top !== undefined) m.setCanonical([...chain.canonicalRange(0n, top)].map((e) => hex(e.id)));
    const meta = chain.meta();
    m.lib = meta.lib && hex(meta.lib);
    m.state = meta.state ?? 'Bootstrapping';
    m.counter = meta.lastOnlineMs ?? 0n;
    return m;
  }

  private setCanonical(keys: string[]): void {
    this.canonical = keys;
    this.canonSet = new Set(keys);
  }

  private get tip(): ModelBlock {
    return this.blocks.get(this.canonical[this.canonical.length - 1]!)!;
  }

  private get libHeight(): number {
    return this.lib === undefined ? 0 : Number(this.blocks.get(this.lib)!.height);
  }

  /** Height of the canonical block a (non-canonical) block's branch hangs off. */
  private forkPoint(b: ModelBlock): number {
    let cur: ModelBlock | undefined = b;
    while (cur !== undefined && !this.canonSet.has(cur.key)) cur = this.blocks.get(hex(cur.parent));
    return cur === undefined ? -1 : Number(cur.height);
  }

  /** Applies step `counter + 1` to the model and returns the update that the store must commit. */
  step(): ChainUpdate {
    const n = this.counter + 1n;
    const rand = prng(
      Math.imul(this.seed ^ 0x5bd1e995, 0x27d4eb2d) ^ Number((n * 2654435761n) & 0xffffffffn),
    );
    let fresh = 0;
    const freshTxs = (count: number) => Array.from({ length: count }, () => sha256(`tx ${n} ${fresh++}`));
    let update: ChainUpdate;
    if (this.canonical.length === 0) {
      const g = makeBlock(undefined, 0n, []);
      this.blocks.set(g.key, g);
      this.setCanonical([g.key]);
      update = {
        blocks: [commitBlock(g)],
        canonical: [{ height: 0n, id: g.id, slot: 0n }],
        meta: { tip: g.id, genesisTimeMs: 1_700_000_000_000n },
      };
    } else {
      const r = rand();
      const tipHeight = this.canonical.length - 1;
      const depthRoom = Math.min(6, tipHeight - this.libHeight);
      if (r < 0.55 || (r < 0.8 && depthRoom < 1)) update = this.extend(1, rand, freshTxs);
      else if (r < 0.65) {
        update = this.extend(randInt(rand, 2, 4), rand, freshTxs);
        this.stats.batch++;
      } else if (r < 0.8) update = this.fork(rand, freshTxs, depthRoom);
      else if (r < 0.88) update = this.switchFork(rand) ?? this.extend(1, rand, freshTxs);
      else if (r < 0.95) update = this.advanceLib();
      else {
        this.state = this.state === 'Online' ? 'Bootstrapping' : 'Online';
        this.stats.meta++;
        update = { blocks: [], canonical: [], meta: { state: this.state } };
      }
    }
    update.meta.lastOnlineMs = n;
    this.counter = n;
    return update;
  }

  private extend(count: number, rand: () => number, freshTxs: (n: number) => Uint8Array[]): ChainUpdate {
    const made: ModelBlock[] = [];
    let parent = this.tip;
    for (let i = 0; i < count; i++) {
      const b = makeBlock(parent, parent.slot + BigInt(randInt(rand, 1, 3)), freshTxs(randInt(rand, 0, 6)));
      this.blocks.set(b.key, b);
      made.push(b);
      parent = b;
    }
    this.setCanonical([...this.canonical, ...made.map((b) => b.key)]);
    this.stats.extend++;
    return {
      blocks: made.map(commitBlock),
      canonical: made.map((b) => ({ height: b.height, id: b.id, slot: b.slot })),
      meta: { tip: parent.id },
    };
  }

  /** A new branch from a recent canonical block; it becomes canonical (a reorg) or stays a side fork. */
  private fork(rand: () => number, freshTxs: (n: number) => Uint8Array[], depthRoom: number): ChainUpdate {
    const tipHeight = this.canonical.length - 1;
    const depth = randInt(rand, 1, depthRoom);
    const forkHeight = tipHeight - depth;
    // Txs of the blocks this branch competes with may move into it (never twice on one branch).
    const pool = this.canonical.slice(forkHeight + 1).flatMap((k) => this.blocks.get(k)!.txs);
    const made: ModelBlock[] = [];
    let parent = this.blocks.get(this.canonical[forkHeight]!)!;
    for (let i = randInt(rand, 1, depth + 2); i > 0; i--) {
      const txs: Uint8Array[] = [];
      for (let j = randInt(rand, 0, 3); j > 0 && pool.length > 0; j--)
        txs.push(...pool.splice(randInt(rand, 0, pool.length - 1), 1));
      txs.push(...freshTxs(randInt(rand, 0, 3)));
      const b = makeBlock(parent, parent.slot + BigInt(randInt(rand, 1, 4)), txs);
      this.blocks.set(b.key, b);
      made.push(b);
      parent = b;
    }
    const blocks = made.map(commitBlock);
    if (rand() < 0.6) return { ...this.reorgTo(parent, rand), blocks };
    this.stats.sideFork++;
    return { blocks, canonical: [], meta: {} };
  }

  /** A reorg to an already stored fork block. */
  private switchFork(rand: () => number): ChainUpdate | undefined {
    const lib = this.libHeight;
    const candidates = [...this.blocks.values()]
      .filter((b) => !this.canonSet.has(b.key) && this.forkPoint(b) >= lib)
      .sort(byKey);
    if (candidates.length === 0) return undefined;
    const target = candidates[randInt(rand, 0, candidates.length - 1)]!;
    return { ...this.reorgTo(target, rand), blocks: [] };
  }

  /** Makes `target`'s branch canonical; the result lacks `blocks`. */
  private reorgTo(target: ModelBlock, rand: () => number): Omit<ChainUpdate, 'blocks'> {
    const path: ModelBlock[] = [];
    let cur = target;
    while (!this.canonSet.has(cur.key)) {
      path.unshift(cur);
      cur = this.blocks.get(hex(cur.parent))!;
    }
    const forkHeight = Number(cur.height);
    const oldTop = this.canonical.length - 1;
    const leaving = this.canonical.slice(forkHeight + 1).map((k) => this.blocks.get(k)!);
    this.setCanonical([...this.canonical.slice(0, forkHeight + 1), ...path.map((b) => b.key)]);
    const update: Omit<ChainUpdate, 'blocks'> = {
      canonical: path.map((b) => ({ height: b.height, id: b.id, slot: b.slot })),
      meta: { tip: target.id },
    };
    if (Number(target.height) < oldTop) {
      update.removeCanonicalAbove = target.height;
      this.stats.shorterReorg++;
    }
    this.stats.reorg++;
    if (rand() < 0.5) update.reverted = leaving.map((b) => ({ id: b.id, slot: b.slot, txHashes: b.txs }));
    return update;
  }

  /** Moves the LIB 4 blocks below the tip and prunes the forks that can no longer win. */
  private advanceLib(): ChainUpdate {
    const height = this.canonical.length - 1 - 4;
    if (height <= this.libHeight) return { blocks: [], canonical: [], meta: {} };
    this.lib = this.canonical[height]!;
    const prune = [...this.blocks.values()]
      .filter((b) => !this.canonSet.has(b.key) && this.forkPoint(b) < height)
      .sort(byKey);
    for (const b of prune) this.blocks.delete(b.key);
    this.stats.lib++;
    this.stats.prunedBlocks += prune.length;
    return {
      blocks: [],
      canonical: [],
      meta: { lib: this.blocks.get(this.lib)!.id },
      prune: prune.map((b) => b.id),
    };
  }

  /** Asserts that the store holds exactly the model's state (through the chain store's read API). */
  verify(chain: ChainStore): void {
    const stored = [...chain.allBlocks()];
    assert.deepEqual(stored.map((i) => hex(i.id)).sort(), [...this.blocks.keys()].sort(), 'stored block set');
    for (const b of this.blocks.values()) {
      assert.deepEqual(chain.info(b.id), { id: b.id, parent: b.parent, slot: b.slot, height: b.height });
      assert.deepEqual(chain.block(b.id), blockBytes(b), `block ${b.key} bytes`);
      assert.deepEqual(chain.events(b.id), eventBytes(b), `block ${b.key} events`);
      assert.deepEqual(chain.blockTxHashes(b.id), b.txs, `block ${b.key} txs`);
    }
    const top = chain.tipHeight() ?? -1n;
    assert.deepEqual(
      [...chain.canonicalRange(0n, top)].map((e) => hex(e.id)),
      this.canonical,
      'canonical chain',
    );
    const meta = chain.meta();
    assert.equal(meta.tip && hex(meta.tip), this.canonical[this.canonical.length - 1], 'tip');
    assert.equal(meta.lib && hex(meta.lib), this.lib, 'lib');
    assert.equal(meta.lastOnlineMs ?? 0n, this.counter, 'commit counter');
    if (this.counter > 0n) assert.equal(meta.state ?? 'Bootstrapping', this.state, 'state');
  }
}
