/**
 * The orphan downloader (F `services/chain/chain-network/src/sync/{orphan_handler,rejected_blocks}.rs`):
 * a queue of blocks whose chain is missing here (`{orphan, parent?, local tip, lib}` at enqueue time,
 * capped at `max_orphan_cache_size`; a descendant replaces its queued parent), downloaded one at a time
 * from peers (target = the orphan, known = {tip, lib}, then {last received} on each continuation) and
 * applied block by block through the chain. Up to `APPLY_WINDOW` downloaded blocks are submitted to the
 * chain before the first of them is through, so that the chain checks the proofs of consecutive blocks
 * together; their outcomes are handled one by one in order, as if each block had been submitted alone.
 * A rejected-blocks cache (LRU, `max_rejected_cache_size`, 0 disables it) keeps a block whose id or
 * parent was refused from being queued again.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { Block } from '../block/block.ts';
import { BlockRejected, type IChain } from '../chain/index.ts';
import { bytesEqual, bytesToHex } from '../codec/hex.ts';
import type { KnownBlocks } from '../network/index.ts';
import type { PeerBlock } from './client.ts';
import type { IBlockSync } from './interface.ts';

/** LRU set of rejected block ids (F `RejectedBlocks`). */
export class RejectedBlocks {
  private readonly ids = new Map<string, true>();

  constructor(readonly capacity: number) {}

  get size(): number {
    return this.ids.size;
  }

  insert(id: Uint8Array): void {
    if (this.capacity === 0) return;
    const k = bytesToHex(id);
    this.ids.delete(k);
    this.ids.set(k, true);
    if (this.ids.size > this.capacity) this.ids.delete(this.ids.keys().next().value!);
  }

  /** Whether the id is cached (a hit refreshes it, as an LRU `get` does). */
  has(id: Uint8Array): boolean {
    const k = bytesToHex(id);
    if (!this.ids.has(k)) return false;
    this.ids.delete(k);
    this.ids.set(k, true);
    return true;
  }

  containsBlockOrParent(id: Uint8Array, parent?: Uint8Array): boolean {
    return this.has(id) || (parent !== undefined && this.has(parent));
  }
}

export interface OrphanInfo {
  readonly id: Uint8Array;
  readonly parent?: Uint8Array;
  readonly tip: Uint8Array;
  readonly lib: Uint8Array;
}

/** Where the downloader gets blocks: a race of peers for `target` (the sync client). */
export type BlockSource = (
  target: Uint8Array,
  known: KnownBlocks,
  signal: AbortSignal,
) => AsyncIterable<PeerBlock>;

export interface OrphanDownloaderOptions {
  readonly maxPending: number;
  /**
   * On a recoverable apply failure (parent missing, future block), keep the orphan for a later round
   * (IBD) instead of dropping it.
   */
  readonly retryRecoverable: boolean;
  /** Called for each downloaded block the chain took (applied, or known already). */
  readonly onApplied?: () => void;
}

export interface OrphanDownloaderDeps {
  readonly chain: Pick<IChain, 'submit' | 'tip' | 'lib' | 'has'>;
  readonly source: BlockSource;
  readonly rejected: RejectedBlocks;
  readonly logger: Logger;
  readonly signal: AbortSignal;
}

type Outcome = 'next' | 'cancel' | 'retry';

/** A downloaded block handed to the chain, its outcome not handled yet. */
interface Submitted {
  readonly block: Block;
  readonly id: Uint8Array;
  readonly peer: string;
  /** The chain's answer to its submission. */
  readonly result: Promise<unknown>;
  /**
   * Submitted while a block before it was still to be tried again (a future block): its answer says
   * nothing about it, it is submitted again in its turn.
   */
  stale: boolean;
}

/** Downloaded blocks submitted to the chain at most before the outcome of the first is handled. */
export const APPLY_WINDOW = 8;

/** F `FUTURE_BLOCK_MAX_RETRIES`, `FUTURE_BLOCK_RETRY_DELAY` (chain-network lib.rs). */
const FUTURE_BLOCK_MAX_RETRIES = 3;
const FUTURE_BLOCK_RETRY_DELAY_MS = 500;

export class OrphanDownloader implements IBlockSync {
  private readonly pending = new Map<string, OrphanInfo>();
  private active: OrphanInfo | undefined;
  private running: Promise<void> | undefined;
  /** Orphans kept for a later round after a recoverable failure. */
  private readonly retries: OrphanInfo[] = [];
  /** Orphans queued, and orphans the downloader is done with (downloaded, failed, replaced, rejected). */
  readonly counts = { enqueued: 0, removed: 0 };

  constructor(
    private readonly opts: OrphanDownloaderOptions,
    private readonly deps: OrphanDownloaderDeps,
  ) {}

  get pendingOrphans(): number {
    return this.pending.size;
  }

  /** Whether a download is queued or running. */
  get busy(): boolean {
    return this.running !== undefined || this.pending.size > 0;
  }

  markRejected(id: Uint8Array): void {
    this.deps.rejected.insert(id);
  }

  isRejected(id: Uint8Array): boolean {
    return this.deps.rejected.has(id);
  }

  enqueue(blockId: Uint8Array, parentId?: Uint8Array): boolean {
    const log = this.deps.logger;
    const id = bytesToHex(blockId);
    if (this.deps.rejected.containsBlockOrParent(blockId, parentId)) {
      log.debug({ block: id }, 'Orphan block (or its parent) is in the rejected cache, skipping enqueue');
      this.deps.rejected.insert(blockId);
      return false;
    }
    if (this.active && bytesEqual(this.active.id, blockId)) return false;
    if (this.pending.has(id)) return false;
    if (parentId && this.pending.delete(bytesToHex(parentId))) {
      this.counts.removed++;
      log.debug(
        { block: id, parent: bytesToHex(parentId) },
        'replacing queued parent orphan with descendant',
      );
    }
    if (this.pending.size >= this.opts.maxPending) {
      log.warn(
        { block: id, queue_size_limit: this.opts.maxPending },
        'Orphan block ignored due to queue size limit',
      );
      return false;
    }
    const info: OrphanInfo = {
      id: blockId.slice(),
      ...(parentId ? { parent: parentId.slice() } : {}),
      tip: this.deps.chain.tip().id,
      lib: this.deps.chain.lib().id,
    };
    this.pending.set(id, info);
    this.counts.enqueued++;
    log.debug({ block: id, queue_size: this.pending.size }, 'Orphan block enqueued for sync');
    this.kick();
    return true;
  }

  /** Whether a block waits in the queue (not the download in progress). */
  isQueued(id: Uint8Array): boolean {
    return this.pending.has(bytesToHex(id));
  }

  /** Resolves once the queue is empty and no download runs. */
  async whenIdle(): Promise<void> {
    while (this.running) await this.running;
  }

  /** Takes the orphans kept after a recoverable failure (they are queued again by the caller). */
  takeRetries(): OrphanInfo[] {
    return this.retries.splice(0);
  }

  /** Starts the download loop on the next turn (enqueues of the same turn are queued first). */
  private kick(): void {
    if (this.running || this.deps.signal.aborted) return;
    this.running = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => this.run())
      .catch((e: Error) =>
        this.deps.logger.error({ err: e.message }, 'orphan downloader stopped on an error'),
      )
      .finally(() => {
        this.running = undefined;
      });
  }

  private async run(): Promise<void> {
    while (!this.deps.signal.aborted) {
      const next = this.dequeue();
      if (!next) return;
      this.active = next;
      try {
        await this.download(next);
      } finally {
        this.active = undefined;
        this.counts.removed++;
      }
    }
  }

  // inferred: the oldest queued orphan goes first; F's queue is a hash map, in no set order (docs/design/fidelity.md)
  private dequeue(): OrphanInfo | undefined {
    for (const [k, info] of this.pending) {
      this.pending.delete(k);
      if (this.deps.rejected.containsBlockOrParent(info.id, info.parent)) {
        this.deps.rejected.insert(info.id);
        this.counts.removed++;
        continue;
      }
      return info;
    }
    return undefined;
  }

  private async download(o: OrphanInfo): Promise<void> {
    const log = this.deps.logger;
    let additional: Uint8Array[] = [];
    let total = 0;
    const window: Submitted[] = [];
    /** Handles the outcome of the oldest submitted block; true when the download ends. */
    const handleNext = async (): Promise<boolean> => {
      const s = window.shift()!;
      const { outcome, retried } = await this.apply(s);
      // The blocks after a block tried again were submitted before it was applied: submit them again.
      if (retried) for (const w of window) w.stale = true;
      if (outcome === 'cancel') return true;
      if (outcome === 'retry') {
        if (this.opts.retryRecoverable) this.retries.push(o);
        return true;
      }
      this.opts.onApplied?.();
      if (bytesEqual(s.id, o.id)) {
        log.debug(
          { block: bytesToHex(s.id), total_blocks_received: total },
          'Sync for orphan block completed',
        );
        return true;
      }
      this.pending.delete(bytesToHex(s.id));
      return false;
    };
    for (;;) {
      let last: Uint8Array | undefined;
      try {
        const known: KnownBlocks = {
          local_tip: o.tip,
          latest_immutable_block: o.lib,
          additional_blocks: additional,
        };
        for await (const { block, id, peer } of this.deps.source(o.id, known, this.deps.signal)) {
          last = id;
          total++;
          window.push(this.submit(block, id, peer));
          while (window.length >= APPLY_WINDOW || window[0]?.stale) {
            if (await handleNext()) return;
          }
        }
        while (window.length > 0) if (await handleNext()) return;
      } catch (e) {
        if (this.deps.signal.aborted) return;
        log.warn({ orphan: bytesToHex(o.id), err: (e as Error).message }, 'Error while fetching blocks');
        return;
      } finally {
        // A download that ends early leaves the answers of the blocks after its last one unhandled.
        window.length = 0;
      }
      if (!last) {
        log.debug({ orphan: bytesToHex(o.id) }, 'No blocks received for this orphan, ending sync');
        return;
      }
      if (this.deps.chain.has(o.id)) return;
      // A peer that answers a continuation with nothing new would keep this download going forever.
      if (additional.length > 0 && bytesEqual(additional[0]!, last)) {
        log.debug({ orphan: bytesToHex(o.id) }, 'no progress on the last continuation, ending sync');
        return;
      }
      additional = [last];
    }
  }

  /** Hands a downloaded block to the chain; its answer is handled later, in order (`apply`). */
  private submit(block: Block, id: Uint8Array, peer: string): Submitted {
    const result = this.deps.chain.submit(block);
    // Handled in its turn, or never if the download ends before (then the block is the chain's alone).
    result.catch(() => {});
    return { block, id, peer, result, stale: false };
  }

  /**
   * Applies one downloaded block. As F's chain network: a block already applied is skipped, one older
   * than the LIB is recorded as rejected and skipped, a future block is retried 3 times 500 ms apart;
   * any other failure records the block as rejected and cancels the download. During IBD a recoverable
   * failure (parent missing, future block) keeps the download for the next round instead, and nothing
   * is recorded as rejected. The peer that sent a block the chain refuses is not penalized (F
   * `bootstrap/ibd.rs`, `sync/orphan_handler.rs`: the failure is logged and the download cancelled):
   * the block decoded, so the peer kept to the protocol, and a rule on which this node and the peers
   * disagree would otherwise get every peer serving that block banned. Bytes that are not a block are
   * the client's to penalize (client.ts).
   */
  private async apply(s: Submitted): Promise<{ outcome: Outcome; retried: boolean }> {
    const { block, id, peer } = s;
    const ibd = this.opts.retryRecoverable;
    for (let attempt = 0; ; attempt++) {
      const retried = attempt > 0;
      try {
        await (attempt === 0 && !s.stale ? s.result : this.deps.chain.submit(block));
        return { outcome: 'next', retried };
      } catch (e) {
        if (!(e instanceof BlockRejected)) throw e;
        const hex = bytesToHex(id);
        const log = this.deps.logger;
        if (e.code === 'BLOCK_ALREADY_APPLIED' || e.code === 'BLOCK_ALREADY_SEEN')
          return { outcome: 'next', retried };
        if (e.code === 'BLOCK_TOO_OLD') {
          if (!ibd) this.deps.rejected.insert(id);
          return { outcome: 'next', retried };
        }
        if (ibd && (e.code === 'BLOCK_PARENT_MISSING' || e.code === 'BLOCK_FUTURE')) {
          log.warn(
            { block: hex, err: e.message },
            'transient block-application failure; retrying the download',
          );
          return { outcome: 'retry', retried };
        }
        if (!ibd && e.code === 'BLOCK_FUTURE' && attempt < FUTURE_BLOCK_MAX_RETRIES) {
          await sleep(FUTURE_BLOCK_RETRY_DELAY_MS, undefined, { signal: this.deps.signal });
          continue;
        }
        if (!ibd) this.deps.rejected.insert(id);
        log.warn(
          { block: hex, peer, code: e.code, err: e.message },
          'failed to process block; cancelling the download',
        );
        return { outcome: 'cancel', retried };
      }
    }
  }
}
