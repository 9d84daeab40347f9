/**
 * What the rest of the node sees of gossip: `BlockPublisher` (the leader hands it its applied blocks, to
 * be announced as proposals), `OrphanSink` (where gossip hands blocks whose parent is unknown, implemented
 * by chain sync) and the counters of the gossip service.
 */
import type { Block } from '../../block/block.ts';

/** Announces a block this node made and applied, as a proposal on the block topic. */
export interface BlockPublisher {
  publishBlock(block: Block): void;
}

/**
 * Chain sync's orphan downloader and its rejected-blocks cache, as gossip uses them (F
 * `OrphanBlocksDownloader`: `enqueue_orphan`, `insert_rejected_block`). Chain sync implements it.
 */
export interface OrphanSink {
  /** Queues a download of the chain up to `blockId` (child of `parentId`); false when it was not queued. */
  enqueue(blockId: Uint8Array, parentId?: Uint8Array): boolean;
  /** Records a block refused as invalid (or older than the LIB), so it and its descendants are not downloaded. */
  markRejected(blockId: Uint8Array): void;
}

/** What gossip did with the messages it received and sent, since the node started. */
export interface GossipCounters {
  /** Proposals received (own ones fed back included). */
  proposalsReceived: number;
  /** Proposals rebuilt and applied by the chain. */
  proposalsApplied: number;
  /** Proposals dropped because a referenced transaction is not in the mempool. */
  proposalsMissingTxs: number;
  /** Proposals or blocks refused as invalid (signature, reconstruction, ledger). */
  proposalsRejected: number;
  /** Proposals whose parent is unknown (handed to chain sync unless over the sender's budget). */
  orphansReceived: number;
  /** Blocks handed to chain sync because their parent is unknown. */
  orphansEnqueued: number;
  /** Proposals processed and not applied nor refused as invalid (duplicates, too old, over a budget). */
  proposalsIgnored: number;
  /**
   * Proposals dropped by the cheap checks or a peer's budget, before any proof was verified: a slot
   * too far ahead, a leader key verified already for the slot, the sender out of budget.
   */
  proposalsLimited: number;
  /** Transactions received and added to the mempool. */
  txsAdded: number;
  /** Transactions received and refused (undecodable, failed preverification). */
  txsRejected: number;
  /** Messages dropped because too many were waiting. */
  dropped: number;
  /** Proposals of own blocks the network accepted for publication (it may still be retrying). */
  proposalsPublished: number;
  /** Local transactions the network accepted for publication. */
  txsPublished: number;
}

/** Where a Blend exit node hands the proposals it unwrapped (raw proposal bytes). */
export interface ProposalRelay {
  relayProposal(bytes: Uint8Array): void;
}

export interface IGossip extends BlockPublisher, ProposalRelay {
  readonly counters: Readonly<GossipCounters>;
}
