/**
 * What the rest of the node sees of chain sync: `OrphanSink` (gossip hands it blocks whose parent is
 * unknown, so sync downloads the missing chain from peers) and `IBlockSync` (the sync service: the
 * orphan downloader, the rejected-blocks cache and the bootstrap phase it runs).
 */

import type { OrphanSink as GossipOrphanSink } from '../network/index.ts';

/**
 * Where a block whose parent is missing is handed for download (F `OrphanBlocksDownloader::enqueue`):
 * what gossip uses of it (`enqueue` is false when the block was not queued: already queued, known to be
 * rejected (the block or its parent), or the queue is full), and the rejected-blocks cache lookup.
 */
export interface OrphanSink extends GossipOrphanSink {
  /** Whether a block (by id) is in the rejected-blocks cache. */
  isRejected(blockId: Uint8Array): boolean;
}

export interface IBlockSync extends OrphanSink {
  /** Orphan downloads waiting (not counting the one in progress). */
  readonly pendingOrphans: number;
}
