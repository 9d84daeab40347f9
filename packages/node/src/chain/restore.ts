/**
 * A chain restored from storage on start: the block tree and its ledger states are rebuilt by
 * replaying the stored blocks (they were fully verified when first accepted, so the replay trusts
 * their proofs), from the latest ledger snapshot when there is one, else from genesis.
 *
 * The order in which forks of equal length arrived is lost in storage: blocks are replayed with the
 * stored canonical block first at each height, so ties keep the stored chain; should fork choice still
 * pick another tip, the stored canonical chain is moved to it, since every later block is committed
 * against the tree's chain.
 */
import type { Logger } from 'pino';
import { decodeBlock } from '../block/block.ts';
import { DecodeError } from '../codec/errors.ts';
import { bytesToHex, hexToBytes } from '../codec/hex.ts';
import type { BlockNode, CryptarchiaEngine } from '../consensus/engine.ts';
import { applyBlock, type BlockResult } from '../ledger/apply.ts';
import type { LedgerConfig } from '../ledger/parameters.ts';
import { PROOFS_ALREADY_VERIFIED } from '../ledger/proof-system.ts';
import { decodeLedgerState } from '../ledger/snapshot.ts';
import type { LedgerState } from '../ledger/state.ts';
import type { ChainStore, StoredBlockInfo } from '../storage/chain-store.ts';
import { BlockRejected } from './errors.ts';

/** What a restore rebuilds: the chain service's block tree and its states. */
export interface RestoredTree {
  /** The block tree as it is now. */
  engine(): CryptarchiaEngine;
  /** Starts the tree over at a snapshot's LIB, with its state and the slots of its uncles. */
  resetTo(lib: BlockNode, state: LedgerState, libUncleSlots: readonly bigint[] | undefined): void;
  /** The ledger state after a block of the tree. */
  stateAfter(hexId: string): LedgerState | undefined;
  /** Adds a replayed block to the tree. */
  add(r: BlockResult, parent: Uint8Array, uncleSlots: readonly bigint[]): void;
}

/** Replays the stored chain into `tree`, then aligns the stored canonical chain with its tip. */
export async function restoreChain(
  store: ChainStore,
  config: LedgerConfig,
  logger: Logger,
  tree: RestoredTree,
): Promise<void> {
  const t0 = performance.now();
  let from = 1n;
  let snap = store.latestSnapshot();
  let snapState: LedgerState | undefined;
  if (snap) {
    try {
      snapState = decodeLedgerState(snap.bytes);
    } catch (e) {
      // A snapshot in an older format of this node: the chain is replayed from genesis instead (every
      // canonical block is stored), and the next snapshots are written in the current format.
      if (!(e instanceof DecodeError) || !/unsupported ledger snapshot format/.test(e.message)) throw e;
      logger.warn(
        { err: e.message },
        'the stored ledger snapshot is in an older format; replaying from genesis',
      );
      snap = undefined;
    }
  }
  if (!snap || !snapState) {
    // A chain started from a checkpoint holds no block below it: without its snapshot there is
    // nothing to replay from.
    const libId = store.meta().lib;
    const lib = libId && store.info(libId);
    if (lib && lib.height > 0n && !store.info(lib.parent))
      throw new BlockRejected(
        'BLOCK_STORAGE',
        `this data folder was started from a checkpoint (block ${bytesToHex(lib.id)}) and holds no usable snapshot of it: delete it and start again from a checkpoint or from genesis`,
      );
  }
  if (snap && snapState) {
    const lib: BlockNode = {
      id: bytesToHex(snap.info.id),
      parent: bytesToHex(snap.info.parent),
      slot: snap.info.slot,
      length: Number(snap.info.height),
    };
    // The LIB keeps the slots of its uncles, as every block of the tree does (F: states.rs).
    const libBytes = store.block(snap.info.id);
    const libUncles = libBytes ? decodeBlock(libBytes).uncle_headers.map((u) => u.header.slot) : undefined;
    tree.resetTo(lib, snapState, libUncles);
    from = snap.info.height + 1n;
  }
  let n = 0;
  // inferred: ties between stored forks keep the stored tip (docs/design/fidelity.md)
  for (const info of canonicalFirst(store, store.allBlocks(from))) {
    const parent = tree.stateAfter(bytesToHex(info.parent));
    const bytes = store.block(info.id);
    if (!parent || !bytes) continue; // a fork that left the tree before its blocks were deleted
    const block = decodeBlock(bytes);
    const r = applyBlock(parent, block, { config, proofs: PROOFS_ALREADY_VERIFIED });
    tree.add(
      r,
      info.parent,
      block.uncle_headers.map((u) => u.header.slot),
    );
    n++;
  }
  await alignStoredTip(store, tree.engine(), logger);
  const { tip } = tree.engine();
  logger.info(
    {
      snapshot_height: snap ? Number(snap.info.height) : null,
      blocks: n,
      ms: Math.round(performance.now() - t0),
      tip: tip.id,
      height: tip.length,
    },
    'chain restored from storage',
  );
}

/** Moves the stored canonical chain to the tree's tip when fork choice picked another one. */
async function alignStoredTip(store: ChainStore, engine: CryptarchiaEngine, logger: Logger): Promise<void> {
  const tip = engine.tip;
  const storedTip = store.meta().tip;
  if (storedTip !== undefined && bytesToHex(storedTip) === tip.id) return;
  const chain = engine.ancestors(tip.id).reverse();
  await store.commit({
    blocks: [],
    canonical: chain.map((b) => ({ height: BigInt(b.length), id: hexToBytes(b.id), slot: b.slot })),
    removeCanonicalAbove: BigInt(tip.length),
    meta: {
      tip: hexToBytes(tip.id),
      lib: hexToBytes(engine.lib.id),
      state: engine.state,
      ...(store.meta().lastOnlineMs !== undefined ? { lastOnlineMs: store.meta().lastOnlineMs } : {}),
    },
  });
  logger.warn(
    { stored_tip: storedTip ? bytesToHex(storedTip) : null, tip: tip.id, height: tip.length },
    'fork choice over the stored blocks picked another tip than the stored one; the canonical chain follows it',
  );
}

/**
 * Stored blocks in height order, with the canonical block of each height before the other blocks of
 * that height (storage orders a height's blocks by id).
 */
function* canonicalFirst(
  store: { canonicalAt(height: bigint): Uint8Array | undefined },
  blocks: Iterable<StoredBlockInfo>,
): Iterable<StoredBlockInfo> {
  let height: bigint | undefined;
  let others: StoredBlockInfo[] = [];
  let canonical: Uint8Array | undefined;
  for (const info of blocks) {
    if (info.height !== height) {
      yield* others;
      others = [];
      height = info.height;
      canonical = store.canonicalAt(height);
    }
    if (canonical !== undefined && bytesToHex(canonical) === bytesToHex(info.id)) yield info;
    else others.push(info);
  }
  yield* others;
}
