/**
 * Block import, what follows verification: the storage update that commits a block with its effects
 * on the canonical indices (new canonical heights, reverted blocks, pruned forks, tip and LIB) in one
 * transaction (and the one that stores a new chain's genesis block), the event readers receive for
 * it, and the periodic ledger snapshots of the LIB.
 */

import { stringifyJson } from '@logos-ts/shared/json';
import type { Logger } from 'pino';
import { type Block, encodeBlock } from '../../block/block.ts';
import { hexToBytes } from '../../codec/hex.ts';
import type { BlockNode, ConsensusState, ReceiveResult } from '../../consensus/engine.ts';
import type { BlockResult } from '../../ledger/apply.ts';
import { eventsToJson } from '../../ledger/events.ts';
import type { Genesis } from '../../ledger/genesis.ts';
import { encodeLedgerState } from '../../ledger/snapshot.ts';
import type { LedgerState } from '../../ledger/state.ts';
import { txHash } from '../../mantle/tx.ts';
import type { ChainStore, ChainUpdate } from '../../storage/chain-store.ts';
import type { BlockRef, ProcessedBlock } from '../interface.ts';

/** The storage update that starts a new chain: its genesis block, canonical at height 0, tip and LIB. */
export function genesisUpdate(genesis: Genesis, genesisTimeMs: number): ChainUpdate {
  return {
    blocks: [
      {
        info: { id: genesis.id, parent: new Uint8Array(32), slot: 0n, height: 0n },
        block: encodeBlock(genesis.block),
        events: new TextEncoder().encode('[]'),
        txHashes: genesis.block.transactions.map((t) => txHash(t.mantle_tx)),
      },
    ],
    canonical: [{ height: 0n, id: genesis.id, slot: 0n }],
    meta: { tip: genesis.id, lib: genesis.id, genesisTimeMs: BigInt(genesisTimeMs) },
  };
}

/**
 * The storage update of a checkpoint on a new chain, in one transaction: the genesis block (unless
 * stored already, `genesis` absent), the checkpoint's block canonical at its height as tip and LIB,
 * and its ledger state as the stored snapshot; the blocks between genesis and it are not stored.
 */
export function checkpointUpdate(
  c: {
    readonly id: Uint8Array;
    readonly slot: bigint;
    readonly height: bigint;
    readonly block: Uint8Array;
    readonly state: Uint8Array;
    readonly decodedBlock: Block;
  },
  genesis?: { readonly genesis: Genesis; readonly genesisTimeMs: number },
): ChainUpdate {
  const g = genesis ? genesisUpdate(genesis.genesis, genesis.genesisTimeMs) : undefined;
  return {
    blocks: [
      ...(g?.blocks ?? []),
      {
        info: { id: c.id, parent: c.decodedBlock.header.parent_block, slot: c.slot, height: c.height },
        block: c.block,
        events: new TextEncoder().encode('[]'),
        txHashes: c.decodedBlock.transactions.map((t) => txHash(t.mantle_tx)),
      },
    ],
    canonical: [...(g?.canonical ?? []), { height: c.height, id: c.id, slot: c.slot }],
    meta: { ...g?.meta, tip: c.id, lib: c.id },
    checkpoint: true,
    snapshot: c.state,
  };
}

/** The block tree after a block was added to it. */
export interface TreeAfterBlock {
  /** What adding the block changed (engine `receive`). */
  readonly change: ReceiveResult;
  readonly tip: BlockNode;
  readonly lib: BlockNode;
  readonly state: ConsensusState;
}

/** The storage update of a verified block added to the tree at `height`. */
export function blockUpdate(
  block: Block,
  id: Uint8Array,
  height: number,
  result: BlockResult,
  tree: TreeAfterBlock,
  txHashesOf: (hexId: string) => Uint8Array[],
): ChainUpdate {
  const res = tree.change;
  const update: ChainUpdate = {
    blocks: [
      {
        info: { id, parent: block.header.parent_block, slot: block.header.slot, height: BigInt(height) },
        block: encodeBlock(block),
        events: new TextEncoder().encode(stringifyJson(eventsToJson(result.events))),
        txHashes: block.transactions.map((t) => txHash(t.mantle_tx)),
      },
    ],
    canonical: res.applied.map((b) => ({ height: BigInt(b.length), id: hexToBytes(b.id), slot: b.slot })),
    reverted: res.reverted.map((b) => ({ id: hexToBytes(b.id), slot: b.slot, txHashes: txHashesOf(b.id) })),
    meta: {
      tip: hexToBytes(tree.tip.id),
      lib: hexToBytes(tree.lib.id),
      state: tree.state,
      lastOnlineMs: BigInt(Date.now()),
    },
    // Blocks below the LIB leave the tree but stay stored as canonical history; dead forks are deleted.
    prune: res.stale.map((p) => hexToBytes(p)),
  };
  if (res.tipChanged && res.applied.length > 0) {
    update.removeCanonicalAbove = BigInt(res.applied[res.applied.length - 1]!.length);
  }
  return update;
}

const ref = (n: BlockNode): BlockRef => ({ id: hexToBytes(n.id), slot: n.slot, height: n.length });

/** What the chain's `block` event carries for an imported block. */
export function processedBlock(
  block: Block,
  id: Uint8Array,
  height: number,
  result: BlockResult,
  head: { tip: BlockNode; lib: BlockNode },
  canonical: { applied: readonly Block[]; reverted: readonly Block[] },
): ProcessedBlock {
  return {
    block,
    id,
    height,
    events: result.events,
    applied: canonical.applied,
    reverted: canonical.reverted,
    tip: ref(head.tip),
    lib: ref(head.lib),
  };
}

/** Stores a ledger snapshot of the LIB each time the LIB has advanced `interval` blocks since the last. */
export class SnapshotSchedule {
  /** Height of the last snapshot stored (or restored from). */
  lastHeight = 0;

  constructor(
    private readonly store: ChainStore,
    private readonly logger: Logger,
    private readonly interval: number,
  ) {}

  async maybeStore(lib: BlockNode, state: LedgerState | undefined): Promise<void> {
    if (lib.length - this.lastHeight < this.interval || !state) return;
    const t0 = performance.now();
    const bytes = encodeLedgerState(state);
    await this.store.saveSnapshot(hexToBytes(lib.id), bytes);
    this.lastHeight = lib.length;
    this.logger.info(
      { height: lib.length, bytes: bytes.length, ms: Math.round(performance.now() - t0) },
      'ledger snapshot stored',
    );
  }
}
