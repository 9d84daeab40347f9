/**
 * What the rest of the node sees of chain sync: `OrphanSink` (gossip hands it blocks whose parent is
 * unknown, so sync downloads the missing chain from peers) and `IBlockSync` (the sync service: the
 * orphan downloader, the rejected-blocks cache and the bootstrap phase it runs).
 */

/** Where a block whose parent is missing is handed for download (F `OrphanBlocksDownloader::enqueue`). */
export interface OrphanSink {
  /**
   * Queues a download of the chain up to `blockId` (its parent `parentId` when known). Returns false when
   * it was not queued: already queued, known to be rejected (the block or its parent), or the queue is full.
   */
  enqueue(blockId: Uint8Array, parentId?: Uint8Array): boolean;
  /** Records a block the chain refused as invalid, so neither it nor its descendants are downloaded. */
  markRejected(blockId: Uint8Array): void;
  /** Whether a block (by id) is in the rejected-blocks cache. */
  isRejected(blockId: Uint8Array): boolean;
}

export interface IBlockSync extends OrphanSink {
  /** Orphan downloads waiting (not counting the one in progress). */
  readonly pendingOrphans: number;
}
