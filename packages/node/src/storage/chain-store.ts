/**
 * The chain store: blocks (forks included), their ledger events, the canonical chain by height and by
 * slot, the transaction index and a few meta values, over a KvStore.
 *
 * Blocks and events are opaque bytes (the chain service encodes them). Every change goes through
 * `commit`, which validates the update against the stored chain and then writes it in ONE atomic
 * transaction, so after any commit (and after a crash at any moment):
 * - CanonicalByHeight holds exactly heights 0..tip.height, each pointing at a stored block whose height is
 *   that height and whose parent is the canonical block one below (with a smaller slot);
 * - CanonicalBySlot holds exactly the slots of those blocks;
 * - TxIndex holds exactly the txs of the canonical blocks;
 * - meta tip is the canonical block at the top height, meta lib a canonical block.
 * An update that would break these is rejected with a StorageError before anything is written.
 */
import { concatBytes } from '../codec/hex.ts';
import { Bucket } from './buckets.ts';
import { StorageError } from './errors.ts';
import { type KvStore, type KvWriteTx, readU64Key, u64Key } from './kv.ts';

export interface StoredBlockInfo {
  id: Uint8Array;
  parent: Uint8Array;
  slot: bigint;
  height: bigint;
}

export interface CommitBlock {
  info: StoredBlockInfo;
  block: Uint8Array;
  events: Uint8Array;
  /** The block's tx hashes in order. */
  txHashes: Uint8Array[];
}

export interface ChainMeta {
  tip?: Uint8Array;
  lib?: Uint8Array;
  /** The consensus state, as last recorded. */
  state?: string;
  /** When `state` was last recorded (Unix ms): with every block and periodically (F `LastEngineState`). */
  lastOnlineMs?: bigint;
  genesisTimeMs?: bigint;
}

export interface ChainUpdate {
  /** New blocks to store (one normally; several when an import batch commits together). */
  blocks: CommitBlock[];
  /**
   * Canonical chain changes: heights whose canonical block is now `id` (after a reorg, the whole new
   * branch part). A listed height whose block does not change is a no-op.
   */
  canonical: { height: bigint; id: Uint8Array; slot: bigint }[];
  /** Heights above this one leave the canonical chain (before `canonical` is applied). */
  removeCanonicalAbove?: bigint;
  /**
   * Canonical blocks that left the chain. Optional: the store computes this set itself from the heights
   * that change; when given, it must name exactly those blocks (a mismatch is rejected as a bug).
   */
  reverted?: { id: Uint8Array; slot: bigint; txHashes: Uint8Array[] }[];
  meta: ChainMeta;
  /** Blocks pruned from forks (deleted). They must not be canonical after the update. */
  prune?: Uint8Array[];
  /**
   * The update starts a chain at a checkpoint: the checkpoint's block sits above a gap (the blocks
   * between genesis and it are never stored, its parent neither) on an empty store (the update holds
   * the genesis block too) or on a store of its genesis alone.
   * inferred: the reference has no checkpoints (docs/design/fidelity.md "Checkpoints")
   */
  checkpoint?: true;
  /** With `checkpoint`: the ledger state after the checkpoint's block, stored as the snapshot. */
  snapshot?: Uint8Array;
}

export interface ChainRangeOptions {
  reverse?: boolean;
  limit?: number;
}

/** Version of the layout below, stored in Meta; a store of another version is refused. */
export const CHAIN_SCHEMA_VERSION = 2;

const U64_MAX = 0xffff_ffff_ffff_ffffn;
const MAX_TXS_PER_BLOCK = 0xffff;

const enc = new TextEncoder();
const dec = new TextDecoder();
const metaKey = {
  tip: enc.encode('tip'),
  lib: enc.encode('lib'),
  state: enc.encode('state'),
  lastOnlineMs: enc.encode('lastOnlineMs'),
  genesisTimeMs: enc.encode('genesisTimeMs'),
  schema: enc.encode('schema'),
  snapshot: enc.encode('snapshot'),
} as const;

function hex(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex');
}

function equal(a: Uint8Array | undefined, b: Uint8Array | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a.length === b.length && Buffer.from(a.buffer, a.byteOffset, a.length).equals(b);
}

function encodeInfo(info: StoredBlockInfo): Uint8Array {
  return concatBytes(u64Key(info.slot), u64Key(info.height), info.parent);
}

function decodeInfo(id: Uint8Array, v: Uint8Array): StoredBlockInfo {
  if (v.length < 16) throw new StorageError('STORAGE_SCHEMA', `block info of ${hex(id)} is truncated`);
  return { id, parent: v.slice(16), slot: readU64Key(v, 0), height: readU64Key(v, 8) };
}

function encodeTxHashes(hashes: readonly Uint8Array[]): Uint8Array {
  let n = 2;
  for (const h of hashes) n += 1 + h.length;
  const out = new Uint8Array(n);
  new DataView(out.buffer).setUint16(0, hashes.length, false);
  let o = 2;
  for (const h of hashes) {
    out[o++] = h.length;
    out.set(h, o);
    o += h.length;
  }
  return out;
}

function decodeTxHashes(v: Uint8Array): Uint8Array[] {
  const count = (v[0]! << 8) | v[1]!;
  const out: Uint8Array[] = [];
  let o = 2;
  for (let i = 0; i < count; i++) {
    const len = v[o++]!;
    out.push(v.slice(o, o + len));
    o += len;
  }
  if (o !== v.length) throw new StorageError('STORAGE_SCHEMA', 'tx hash list is malformed');
  return out;
}

function txLocationValue(block: Uint8Array, position: number): Uint8Array {
  const out = new Uint8Array(block.length + 2);
  out.set(block, 0);
  out[block.length] = position >> 8;
  out[block.length + 1] = position & 0xff;
  return out;
}

function inconsistent(message: string): StorageError {
  return new StorageError('STORAGE_INCONSISTENT_UPDATE', `chain update rejected: ${message}`);
}

/** Exclusive upper key of an inclusive u64 range end (undefined: up to the end of the bucket). */
function upperKey(to: bigint): Uint8Array | undefined {
  return to >= U64_MAX ? undefined : u64Key(to + 1n);
}

export class ChainStore {
  /** Commits run one after another, each validated against the state the previous one left. */
  private queue: Promise<void> = Promise.resolve();

  constructor(private readonly kv: KvStore) {
    const schema = kv.get(Bucket.Meta, metaKey.schema);
    if (schema !== undefined) {
      const version = readU64Key(schema);
      if (version !== BigInt(CHAIN_SCHEMA_VERSION))
        throw new StorageError(
          'STORAGE_SCHEMA',
          `chain store has schema version ${version}, this node reads version ${CHAIN_SCHEMA_VERSION}: ` +
            'the data folder was written by another version of the node and cannot be read. ' +
            'Remove the data folder (or set storage.backend.folder_name to a new one) and start the node again: ' +
            'it builds the chain again from the genesis block.',
        );
    }
  }

  /** Validates the update against the stored chain and writes it in one atomic, durable transaction. */
  commit(update: ChainUpdate): Promise<void> {
    const run = this.queue.then(() => this.apply(update));
    this.queue = run.catch(() => {});
    return run;
  }

  /**
   * Stores the ledger state snapshot of an immutable canonical block, replacing the previous one, in
   * one transaction (queued after pending commits).
   */
  saveSnapshot(id: Uint8Array, bytes: Uint8Array): Promise<void> {
    const run = this.queue.then(async () => {
      const info = this.info(id);
      if (!info || !equal(this.canonicalAt(info.height), id)) {
        throw new StorageError(
          'STORAGE_INCONSISTENT_UPDATE',
          `snapshot block ${hex(id)} is not a stored canonical block`,
        );
      }
      const previous = this.kv.get(Bucket.Meta, metaKey.snapshot);
      await this.kv.transaction((tx) => {
        if (previous !== undefined && !equal(previous, id)) tx.del(Bucket.LedgerSnapshots, previous);
        tx.put(Bucket.LedgerSnapshots, id, bytes);
        tx.put(Bucket.Meta, metaKey.snapshot, id);
      });
    });
    this.queue = run.catch(() => {});
    return run;
  }

  /** The stored ledger snapshot, if any, with the block it belongs to. */
  latestSnapshot(): { info: StoredBlockInfo; bytes: Uint8Array } | undefined {
    const id = this.kv.get(Bucket.Meta, metaKey.snapshot);
    if (id === undefined) return undefined;
    const info = this.info(id);
    const bytes = this.kv.get(Bucket.LedgerSnapshots, id);
    if (!info || !bytes || !equal(this.canonicalAt(info.height), id)) return undefined;
    return { info, bytes };
  }

  // ---------------------------------------------------------------- reads

  block(id: Uint8Array): Uint8Array | undefined {
    return this.kv.get(Bucket.Blocks, id);
  }

  info(id: Uint8Array): StoredBlockInfo | undefined {
    const v = this.kv.get(Bucket.BlockInfo, id);
    return v === undefined ? undefined : decodeInfo(id.slice(), v);
  }

  events(id: Uint8Array): Uint8Array | undefined {
    return this.kv.get(Bucket.Events, id);
  }

  /** The block's tx hashes in order, as committed with it. */
  blockTxHashes(id: Uint8Array): Uint8Array[] | undefined {
    const v = this.kv.get(Bucket.BlockTxs, id);
    return v === undefined ? undefined : decodeTxHashes(v);
  }

  canonicalAt(height: bigint): Uint8Array | undefined {
    if (height < 0n || height > U64_MAX) return undefined;
    return this.kv.get(Bucket.CanonicalByHeight, u64Key(height));
  }

  /** Height of the top canonical block, undefined for an empty chain. */
  tipHeight(): bigint | undefined {
    for (const [k] of this.kv.range(Bucket.CanonicalByHeight, { reverse: true, limit: 1 }))
      return readU64Key(k);
    return undefined;
  }

  /** Canonical blocks with `from <= slot <= to`, in slot order (descending with `reverse`). */
  *canonicalBySlot(
    from: bigint,
    to: bigint,
    options: ChainRangeOptions = {},
  ): Iterable<{ slot: bigint; id: Uint8Array }> {
    if (from < 0n) from = 0n;
    if (to > U64_MAX) to = U64_MAX;
    if (from > to) return;
    const range = { gte: u64Key(from), lt: upperKey(to), reverse: options.reverse, limit: options.limit };
    for (const [k, id] of this.kv.range(Bucket.CanonicalBySlot, range)) yield { slot: readU64Key(k), id };
  }

  /** Canonical blocks with `fromHeight <= height <= toHeight`, in height order (descending with `reverse`). */
  *canonicalRange(
    fromHeight: bigint,
    toHeight: bigint,
    options: ChainRangeOptions = {},
  ): Iterable<{ height: bigint; id: Uint8Array }> {
    if (fromHeight < 0n) fromHeight = 0n;
    if (toHeight > U64_MAX) toHeight = U64_MAX;
    if (fromHeight > toHeight) return;
    const range = {
      gte: u64Key(fromHeight),
      lt: upperKey(toHeight),
      reverse: options.reverse,
      limit: options.limit,
    };
    for (const [k, id] of this.kv.range(Bucket.CanonicalByHeight, range)) yield { height: readU64Key(k), id };
  }

  /** Where a tx of the canonical chain is: its block and its position in the block. */
  txLocation(hash: Uint8Array): { block: Uint8Array; position: number } | undefined {
    const v = this.kv.get(Bucket.TxIndex, hash);
    if (v === undefined || v.length < 2) return undefined;
    return { block: v.slice(0, v.length - 2), position: (v[v.length - 2]! << 8) | v[v.length - 1]! };
  }

  /**
   * Records the consensus state and the time of recording, after the commits already queued (the node
   * does this periodically, so that a restart can tell how long it was offline).
   */
  recordState(state: string, atMs: bigint): Promise<void> {
    const run = this.queue.then(() =>
      this.kv.transaction((tx) => {
        tx.put(Bucket.Meta, metaKey.state, enc.encode(state));
        tx.put(Bucket.Meta, metaKey.lastOnlineMs, u64Key(atMs));
      }),
    );
    this.queue = run.catch(() => {});
    return run;
  }

  meta(): ChainMeta {
    const out: ChainMeta = {};
    const tip = this.kv.get(Bucket.Meta, metaKey.tip);
    if (tip !== undefined) out.tip = tip;
    const lib = this.kv.get(Bucket.Meta, metaKey.lib);
    if (lib !== undefined) out.lib = lib;
    const state = this.kv.get(Bucket.Meta, metaKey.state);
    if (state !== undefined) out.state = dec.decode(state);
    const lastOnline = this.kv.get(Bucket.Meta, metaKey.lastOnlineMs);
    if (lastOnline !== undefined) out.lastOnlineMs = readU64Key(lastOnline);
    const genesis = this.kv.get(Bucket.Meta, metaKey.genesisTimeMs);
    if (genesis !== undefined) out.genesisTimeMs = readU64Key(genesis);
    return out;
  }

  /**
   * Every stored block (forks included) with height >= `fromHeight`, in height order (ties in id order),
   * for rebuilding the block tree on restart.
   */
  *allBlocks(fromHeight = 0n): Iterable<StoredBlockInfo> {
    if (fromHeight < 0n) fromHeight = 0n;
    if (fromHeight > U64_MAX) return;
    for (const [k] of this.kv.range(Bucket.BlocksByHeight, { gte: u64Key(fromHeight) })) {
      const id = k.slice(8);
      const info = this.info(id);
      if (info === undefined)
        throw new StorageError('STORAGE_SCHEMA', `block ${hex(id)} is indexed by height but has no info`);
      yield info;
    }
  }

  // ---------------------------------------------------------------- commit

  private async apply(update: ChainUpdate): Promise<void> {
    const writes = this.plan(update);
    await this.kv.transaction(writes);
  }

  /** Validates `update` against the stored state and returns the writes that carry it out. */
  private plan(update: ChainUpdate): (tx: KvWriteTx) => void {
    // Blocks of this update.
    const added = new Map<string, CommitBlock>();
    for (const b of update.blocks) {
      const { info } = b;
      if (info.id.length === 0) throw inconsistent('empty block id');
      if (info.height < 0n || info.height > U64_MAX || info.slot < 0n || info.slot > U64_MAX)
        throw inconsistent(`block ${hex(info.id)}: height or slot out of range`);
      if (b.txHashes.length > MAX_TXS_PER_BLOCK)
        throw inconsistent(`block ${hex(info.id)} has more than ${MAX_TXS_PER_BLOCK} txs`);
      for (const h of b.txHashes)
        if (h.length === 0 || h.length > 255) throw inconsistent(`block ${hex(info.id)}: bad tx hash length`);
      const key = hex(info.id);
      if (added.has(key)) throw inconsistent(`block ${key} appears twice`);
      added.set(key, b);
    }
    const pruned = new Set((update.prune ?? []).map(hex));
    /** Info of a block that is stored after the update. */
    const infoAfter = (id: Uint8Array): StoredBlockInfo | undefined => {
      const key = hex(id);
      if (pruned.has(key)) return undefined;
      return added.get(key)?.info ?? this.info(id);
    };

    // The canonical chain after the update: old heights up to `keptTop`, then the listed entries.
    const oldTop = this.tipHeight() ?? -1n;
    const removeAbove = update.removeCanonicalAbove;
    const keptTop =
      removeAbove !== undefined && removeAbove < oldTop ? (removeAbove < -1n ? -1n : removeAbove) : oldTop;
    const entries = new Map<bigint, { id: Uint8Array; slot: bigint }>();
    let newTop = keptTop;
    for (const e of update.canonical) {
      if (e.height < 0n || e.height > U64_MAX)
        throw inconsistent(`canonical height ${e.height} out of range`);
      if (entries.has(e.height)) throw inconsistent(`canonical height ${e.height} listed twice`);
      entries.set(e.height, e);
      if (e.height > newTop) newTop = e.height;
    }
    const checkpoint = update.checkpoint === true;
    const onGenesis = oldTop === 0n && entries.size === 1 && update.blocks.length === 1;
    const onEmpty = oldTop === -1n && entries.size === 2 && entries.has(0n) && update.blocks.length === 2;
    if (checkpoint && !(onGenesis || onEmpty))
      throw inconsistent('a checkpoint starts a chain that holds its genesis block alone, or nothing');
    if (update.snapshot !== undefined && !checkpoint)
      throw inconsistent('a snapshot goes with a checkpoint only (saveSnapshot stores the others)');
    if (!checkpoint && newTop - keptTop > BigInt(entries.size))
      throw inconsistent('the canonical chain would have a gap');
    for (let h = keptTop + 1n; h <= newTop && !checkpoint; h++)
      if (!entries.has(h)) throw inconsistent(`the canonical chain would have a gap at height ${h}`);
    const oldCache = new Map<bigint, Uint8Array | undefined>();
    const oldAt = (h: bigint): Uint8Array | undefined => {
      if (h < 0n || h > oldTop) return undefined;
      if (!oldCache.has(h)) oldCache.set(h, this.canonicalAt(h));
      return oldCache.get(h);
    };
    const newAt = (h: bigint): Uint8Array | undefined =>
      entries.get(h)?.id ?? (h <= keptTop ? oldAt(h) : undefined);

    // Heights whose canonical block changes: the removed ones and the listed ones.
    const changed = new Set<bigint>(entries.keys());
    for (let h = keptTop + 1n; h <= oldTop; h++) changed.add(h);
    const leaving: { height: bigint; id: Uint8Array }[] = [];
    const joining: { height: bigint; id: Uint8Array; info: StoredBlockInfo }[] = [];
    for (const h of [...changed].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))) {
      const before = oldAt(h);
      const after = newAt(h);
      if (equal(before, after)) continue;
      if (before !== undefined) leaving.push({ height: h, id: before });
      if (after !== undefined) {
        const info = infoAfter(after);
        if (info === undefined)
          throw inconsistent(`canonical block ${hex(after)} at height ${h} is not stored`);
        if (info.height !== h)
          throw inconsistent(`block ${hex(after)} has height ${info.height}, listed at ${h}`);
        const listedSlot = entries.get(h)?.slot;
        if (listedSlot !== undefined && listedSlot !== info.slot)
          throw inconsistent(`block ${hex(after)} has slot ${info.slot}, listed with slot ${listedSlot}`);
        joining.push({ height: h, id: after, info });
      }
    }
    const joiningHeights = new Set(joining.map((j) => j.height));
    const linkCheck = (child: StoredBlockInfo, h: bigint): void => {
      // `child` is the canonical block at height h > 0 after the update.
      const parentId = newAt(h - 1n);
      if (!equal(child.parent, parentId))
        throw inconsistent(
          `block ${hex(child.id)} at height ${h} is not a child of the canonical block below`,
        );
      const parent = parentId === undefined ? undefined : infoAfter(parentId);
      if (parent === undefined) throw inconsistent(`parent of block ${hex(child.id)} is not stored`);
      if (child.slot <= parent.slot)
        throw inconsistent(
          `block ${hex(child.id)} has slot ${child.slot}, not above its parent's ${parent.slot}`,
        );
    };
    for (const j of joining) {
      // A checkpoint's block has no stored parent, and nothing lies between genesis and it.
      if (checkpoint) continue;
      if (j.height > 0n) linkCheck(j.info, j.height);
      const above = j.height + 1n;
      if (above <= newTop && !joiningHeights.has(above)) {
        const childId = newAt(above)!;
        const child = infoAfter(childId);
        if (child === undefined) throw inconsistent(`canonical block ${hex(childId)} would be pruned`);
        linkCheck(child, above);
      }
    }

    // Blocks that leave the canonical chain.
    if (update.reverted !== undefined) {
      const expected = new Set(leaving.map((l) => hex(l.id)));
      const given = new Set(update.reverted.map((r) => hex(r.id)));
      const same = expected.size === given.size && [...given].every((g) => expected.has(g));
      if (!same)
        throw inconsistent(
          `reverted blocks [${[...given].join(', ')}] differ from the canonical blocks that leave [${[...expected].join(', ')}]`,
        );
    }
    const revertedTxs = new Map((update.reverted ?? []).map((r) => [hex(r.id), r.txHashes] as const));
    const leavingTxs = leaving.map((l) => {
      const info = this.info(l.id);
      if (info === undefined) throw inconsistent(`canonical block ${hex(l.id)} has no stored info`);
      const txs = this.blockTxHashes(l.id) ?? revertedTxs.get(hex(l.id)) ?? [];
      return { ...l, slot: info.slot, txs };
    });

    // Meta: tip and lib must be canonical after the update.
    const tipAfter = update.meta.tip ?? this.kv.get(Bucket.Meta, metaKey.tip);
    if (newTop >= 0n) {
      if (!equal(tipAfter, newAt(newTop)))
        throw inconsistent(`the tip must be the canonical block at the top height ${newTop}`);
    } else if (tipAfter !== undefined) throw inconsistent('a tip is set but the canonical chain is empty');
    const libAfter = update.meta.lib ?? this.kv.get(Bucket.Meta, metaKey.lib);
    if (libAfter !== undefined) {
      const lib = infoAfter(libAfter);
      if (lib === undefined || !equal(newAt(lib.height), libAfter))
        throw inconsistent(`the lib ${hex(libAfter)} is not a canonical block`);
    }

    // Pruned blocks must not be canonical.
    const prunedInfos: StoredBlockInfo[] = [];
    for (const id of update.prune ?? []) {
      const info = added.get(hex(id))?.info ?? this.info(id);
      if (info === undefined) continue;
      if (equal(newAt(info.height), id)) throw inconsistent(`canonical block ${hex(id)} cannot be pruned`);
      prunedInfos.push(info);
    }

    const txIndexPointsAt = (hash: Uint8Array, id: Uint8Array): boolean => {
      const loc = this.txLocation(hash);
      return loc !== undefined && equal(loc.block, id);
    };
    const slotPointsAt = (slot: bigint, id: Uint8Array): boolean =>
      equal(this.kv.get(Bucket.CanonicalBySlot, u64Key(slot)), id);
    const writeSchema = this.kv.get(Bucket.Meta, metaKey.schema) === undefined;

    // Deletions come before insertions: a tx or slot in both a leaving and a joining block ends up
    // pointing at the joining one.
    return (tx) => {
      for (const b of update.blocks) {
        const { id } = b.info;
        tx.put(Bucket.Blocks, id, b.block);
        tx.put(Bucket.BlockInfo, id, encodeInfo(b.info));
        tx.put(Bucket.Events, id, b.events);
        tx.put(Bucket.BlockTxs, id, encodeTxHashes(b.txHashes));
        tx.put(Bucket.BlocksByHeight, concatBytes(u64Key(b.info.height), id), new Uint8Array(0));
      }
      for (const l of leavingTxs) {
        if (newAt(l.height) === undefined) tx.del(Bucket.CanonicalByHeight, u64Key(l.height));
        if (slotPointsAt(l.slot, l.id)) tx.del(Bucket.CanonicalBySlot, u64Key(l.slot));
        for (const h of l.txs) if (txIndexPointsAt(h, l.id)) tx.del(Bucket.TxIndex, h);
      }
      for (const j of joining) {
        tx.put(Bucket.CanonicalByHeight, u64Key(j.height), j.id);
        tx.put(Bucket.CanonicalBySlot, u64Key(j.info.slot), j.id);
        const txs = added.get(hex(j.id))?.txHashes ?? this.blockTxHashes(j.id) ?? [];
        txs.forEach((h, i) => {
          tx.put(Bucket.TxIndex, h, txLocationValue(j.id, i));
        });
      }
      const m = update.meta;
      if (m.tip !== undefined) tx.put(Bucket.Meta, metaKey.tip, m.tip);
      if (m.lib !== undefined) tx.put(Bucket.Meta, metaKey.lib, m.lib);
      if (m.state !== undefined) tx.put(Bucket.Meta, metaKey.state, enc.encode(m.state));
      if (m.lastOnlineMs !== undefined) tx.put(Bucket.Meta, metaKey.lastOnlineMs, u64Key(m.lastOnlineMs));
      if (m.genesisTimeMs !== undefined) tx.put(Bucket.Meta, metaKey.genesisTimeMs, u64Key(m.genesisTimeMs));
      if (update.snapshot !== undefined) {
        const cp = update.blocks[update.blocks.length - 1]!.info.id;
        tx.put(Bucket.LedgerSnapshots, cp, update.snapshot);
        tx.put(Bucket.Meta, metaKey.snapshot, cp);
      }
      if (writeSchema) tx.put(Bucket.Meta, metaKey.schema, u64Key(BigInt(CHAIN_SCHEMA_VERSION)));
      for (const info of prunedInfos) {
        tx.del(Bucket.Blocks, info.id);
        tx.del(Bucket.BlockInfo, info.id);
        tx.del(Bucket.Events, info.id);
        tx.del(Bucket.BlockTxs, info.id);
        tx.del(Bucket.BlocksByHeight, concatBytes(u64Key(info.height), info.id));
      }
    };
  }
}
