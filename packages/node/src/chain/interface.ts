/**
 * What the rest of the node sees of the chain: `IChain` (reads, block submission, events), the block
 * events and their payloads. The API, the leader and the services to come depend on this interface,
 * not on the `ChainService` class.
 */
import type { EventEmitter } from 'node:events';
import type { Block } from '../block/block.ts';
import type { SignedHeader } from '../block/header.ts';
import type { ConsensusState } from '../consensus/engine.ts';
import type { LedgerEvent } from '../ledger/events.ts';
import type { Genesis } from '../ledger/genesis.ts';
import type { LedgerConfig } from '../ledger/parameters.ts';
import type { LedgerState } from '../ledger/state.ts';

/** A block of the chain by id, slot and height. */
export interface BlockRef {
  readonly id: Uint8Array;
  readonly slot: bigint;
  readonly height: number;
}

/** The tip with its ledger state. */
export interface ChainTip extends BlockRef {
  readonly state: LedgerState;
}

export interface ProcessedBlock {
  readonly block: Block;
  readonly id: Uint8Array;
  readonly height: number;
  readonly events: readonly LedgerEvent[];
  /**
   * The blocks that joined the canonical chain with this one, oldest first: this block alone when it
   * extends the tip, the new branch when the tip switched to it, none when it landed on a side branch.
   */
  readonly applied: readonly Block[];
  /**
   * The blocks that left the canonical chain, oldest first (none unless the tip switched branches).
   * Read before a dead fork is deleted, so they are here even when they already left the block tree.
   */
  readonly reverted: readonly Block[];
  readonly tip: BlockRef;
  readonly lib: BlockRef;
}

/** A block the chain refused as invalid (`BlockRejected` with the action `reject`). */
export interface RefusedBlock {
  readonly id: Uint8Array;
  readonly parent: Uint8Array;
  readonly code: string;
  readonly message: string;
}

export interface ChainEvents {
  block: [ProcessedBlock];
  /** A block refused as invalid. */
  refused: [RefusedBlock];
  fatal: [Error];
  lib: [BlockRef];
  /** Consensus switched from Bootstrapping to Online. */
  online: [];
}

export interface IChain extends Pick<EventEmitter<ChainEvents>, 'on' | 'once' | 'off'> {
  readonly genesis: Genesis;
  readonly config: LedgerConfig;
  readonly consensusState: ConsensusState;
  /** Grows whenever the tip, the LIB or the consensus state may have changed (for readers' caches). */
  readonly headVersion: number;

  /** The tip as last committed to storage, with its ledger state. */
  tip(): ChainTip;
  /** The latest immutable block. */
  lib(): BlockRef;
  /** The ledger state after a block of the tree. */
  stateOf(id: Uint8Array): LedgerState | undefined;
  /** Whether a block is in the block tree. */
  has(id: Uint8Array): boolean;

  /** Validates, applies and stores a block; throws `BlockRejected` (errors.ts) with a code and an action. */
  submit(block: Block, opts?: { own?: boolean }): Promise<ProcessedBlock>;
  /** Uncles a new block on `parent` at `slot` references, with their signed headers. */
  unclesFor(parent: Uint8Array, slot: bigint): SignedHeader[];

  /** A stored block (any fork still stored, and all canonical history). */
  block(id: Uint8Array): Block | undefined;
  /** A stored block's bytes (its bincode form, as chain sync sends it). */
  blockBytes(id: Uint8Array): Uint8Array | undefined;
  /** A stored block's parent, slot and height, without decoding the block. */
  blockRef(id: Uint8Array): (BlockRef & { readonly parent: Uint8Array }) | undefined;
  /** The ledger events of a stored block, as their JSON text. */
  eventsJson(id: Uint8Array): string | undefined;
  /** Canonical blocks with slot in [from, to], at most `limit`, oldest first. */
  canonicalBySlot(from: bigint, to: bigint, limit?: number): { slot: bigint; id: Uint8Array }[];
  /** Canonical blocks with slot in [from, to], at most `limit`, newest first. */
  canonicalBySlotDesc(from: bigint, to: bigint, limit?: number): { slot: bigint; id: Uint8Array }[];
  /** Header ids walking back from `from` (default the tip) to `to` (default the LIB), newest first. */
  headerIds(from?: Uint8Array, to?: Uint8Array, limit?: number): Uint8Array[];
  /** Where a transaction of the canonical chain was included. */
  transactionLocation(hash: Uint8Array): { block: Uint8Array; position: number } | undefined;
}
