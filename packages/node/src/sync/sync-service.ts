/**
 * The chain sync service: serves the chain-sync protocol (tips and blocks, in `Following` only), runs
 * initial block download, downloads the chain of orphan blocks gossip hands it (`OrphanSink`) and, after
 * IBD, the tip-poll watchdog. It talks to peers through `INetwork` only.
 */

import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { IChain, SlotClock } from '../chain/index.ts';
import { type INetwork, MAX_REQUEST_BYTES } from '../network/index.ts';
import { deferred } from '../util/deferred.ts';
import type { Meter } from '../util/meter.ts';
import { type CheckpointSource, serveCheckpoints } from './checkpoint-protocol.ts';
import { SyncClient } from './client.ts';
import type { SyncConfig } from './config.ts';
import { SyncError } from './errors.ts';
import { type IbdProgressState, ibdEnabled, runIbd } from './ibd.ts';
import type { IBlockSync } from './interface.ts';
import { OrphanDownloader, RejectedBlocks } from './orphans.ts';
import type { PhaseSource } from './phases.ts';
import { serveChainSync } from './provider.ts';
import { TipPoll, tipPollParams } from './tip-poll.ts';

export interface SyncServiceOptions {
  /** The deployment's `network.chain_sync_protocol_name`. */
  readonly protocol: string;
  readonly config: SyncConfig;
  /**
   * The wait before IBD starts again after no peer gave a tip, doubling from `min` up to `max` ms
   * (default 5 s to 60 s).
   */
  readonly ibdRetryMs?: { readonly min: number; readonly max: number };
  /** How often IBD logs its progress (default 10 s). */
  readonly progressEveryMs?: number;
}

/** IBD's progress: blocks done, the height the peers announced, and since when. */
export interface IbdProgress {
  /** Downloaded blocks the chain took since IBD started. */
  readonly applied: number;
  /** The highest tip height the peers announced (0 before any answered). */
  readonly targetHeight: number;
  /** The local tip's height. */
  readonly height: number;
  /** Blocks per second since IBD started. */
  readonly rate: number;
  /** Seconds left at that rate; null while unknown. */
  readonly etaS: number | null;
}

const DEFAULT_IBD_RETRY = { min: 5_000, max: 60_000 };

export interface SyncServiceDeps {
  readonly chain: IChain;
  readonly network: INetwork;
  readonly clock: SlotClock;
  /** The bootstrap phase (the server answers in `Following` only). */
  readonly phases: () => PhaseSource | undefined;
  readonly logger: Logger;
  readonly signal: AbortSignal;
  /** Counts chain sync requests and times downloads (absent: not counted). */
  readonly meter?: Meter;
  /** Serves the checkpoint protocol from it (the chain service; absent: not served). */
  readonly checkpoints?: CheckpointSource;
}

export class SyncService implements IBlockSync {
  private readonly client: SyncClient;
  private readonly orphans: OrphanDownloader;
  private readonly rejected: RejectedBlocks;
  private tipPoll: TipPoll | undefined;
  private readonly controller = new AbortController();
  private readonly signal: AbortSignal;
  private readonly ibd = deferred<void>();
  /** IBD's progress (undefined before it starts); `running` while it runs. */
  private progress: (IbdProgressState & { readonly startedAt: number; running: boolean }) | undefined;

  private constructor(
    private readonly opts: SyncServiceOptions,
    private readonly deps: SyncServiceDeps,
  ) {
    this.signal = AbortSignal.any([deps.signal, this.controller.signal]);
    // A failed IBD stops the node: its rejection needs no handler but the waiters'.
    this.ibd.promise.catch(() => {});
    const cfg = opts.config;
    this.client = new SyncClient(
      deps.network,
      {
        protocol: opts.protocol,
        frameTimeoutMs: cfg.peer_response_timeout,
        maxConnectedPeers: cfg.network.max_connected_peers_to_try_download,
        maxDiscoveredPeers: cfg.network.max_discovered_peers_to_try_download,
      },
      deps.logger,
      deps.meter,
    );
    this.rejected = new RejectedBlocks(cfg.orphan.max_rejected_cache_size);
    this.orphans = new OrphanDownloader(
      { maxPending: cfg.orphan.max_orphan_cache_size, retryRecoverable: false },
      {
        chain: deps.chain,
        source: (target, known, signal) => this.client.requestBlocksFromPeers(target, known, signal),
        rejected: this.rejected,
        logger: deps.logger,
        signal: this.signal,
      },
    );
  }

  static init(opts: SyncServiceOptions, deps: SyncServiceDeps): SyncService {
    const s = new SyncService(opts, deps);
    // This node's own protocol beside chain sync: the checkpoint of its LIB, for nodes starting from one.
    if (deps.checkpoints) serveCheckpoints(deps.network, deps.checkpoints, deps.logger);
    serveChainSync(
      {
        protocol: opts.protocol,
        batchSize: opts.config.batch_size,
        maxInbound: opts.config.max_inbound_requests,
        // F reads up to the 16 MiB frame limit and then fails to decode anything longer than this.
        maxRequestBytes: MAX_REQUEST_BYTES,
      },
      {
        chain: deps.chain,
        network: deps.network,
        following: () => deps.phases()?.phase === 'Following',
        logger: deps.logger,
      },
    );
    return s;
  }

  /**
   * Settles when initial block download ends: resolved once it ran or was skipped, rejected when it
   * failed (the node then stops). Gossip takes no block or transaction before.
   */
  get ibdDone(): Promise<void> {
    return this.ibd.promise;
  }

  get pendingOrphans(): number {
    return this.orphans.pendingOrphans;
  }

  /** Orphans the downloader queued and was done with since start. */
  get orphanCounts(): { readonly enqueued: number; readonly removed: number } {
    return this.orphans.counts;
  }

  /** Whether IBD has peers to run with. */
  get ibdEnabled(): boolean {
    return ibdEnabled(this.opts.config.ibd);
  }

  enqueue(blockId: Uint8Array, parentId?: Uint8Array): boolean {
    return this.orphans.enqueue(blockId, parentId);
  }

  markRejected(blockId: Uint8Array): void {
    this.rejected.insert(blockId);
  }

  isRejected(blockId: Uint8Array): boolean {
    return this.rejected.has(blockId);
  }

  /** Resolves once no orphan download is queued or running. */
  whenIdle(): Promise<void> {
    return this.orphans.whenIdle();
  }

  /** Blocks initial block download applied (0 before it ran). */
  get ibdBlocksApplied(): number {
    return this.progress?.applied ?? 0;
  }

  /** IBD's progress while it runs; null outside it. */
  ibdProgress(): IbdProgress | null {
    const p = this.progress;
    if (p === undefined || !p.running) return null;
    const elapsedS = (performance.now() - p.startedAt) / 1000;
    const rate = elapsedS > 0 ? p.applied / elapsedS : 0;
    const height = this.deps.chain.tip().height;
    const left = Math.max(0, p.targetHeight - height);
    return {
      applied: p.applied,
      targetHeight: p.targetHeight,
      height,
      rate,
      etaS: p.targetHeight === 0 ? null : left === 0 ? 0 : rate > 0 ? left / rate : null,
    };
  }

  /**
   * Runs IBD (false: skipped), then starts the tip-poll watchdog; settles `ibdDone` either way. When no
   * peer gives a tip (F's `AllPeersFailed`, after which F's chain network stops), IBD starts again
   * after a wait that doubles up to a minute: a node on a bad link or started before its peers keeps
   * trying instead of stopping. What it applied stays applied: each round starts from the local tip.
   * inferred: F stops its chain network on AllPeersFailed (docs/design/fidelity.md, "IBD that fails")
   */
  async initialBlockDownload(): Promise<boolean> {
    const retry = this.opts.ibdRetryMs ?? DEFAULT_IBD_RETRY;
    let wait = retry.min;
    const progress = { targetHeight: 0, applied: 0, startedAt: performance.now(), running: true };
    this.progress = progress;
    const every = this.opts.progressEveryMs ?? 10_000;
    const timer = setInterval(() => this.logProgress(), every);
    timer.unref();
    try {
      for (;;) {
        try {
          const ran = await this.runIbd(progress);
          this.ibd.resolve();
          return ran;
        } catch (e) {
          if (!(e instanceof SyncError) || e.code !== 'SYNC_ALL_PEERS_FAILED' || this.signal.aborted) throw e;
          this.deps.logger.warn(
            { retry_in_s: wait / 1000, height: this.deps.chain.tip().height },
            'Initial Block Download: no peer gave its tip; trying again',
          );
          await sleep(wait, undefined, { signal: this.signal });
          wait = Math.min(wait * 2, retry.max);
        }
      }
    } catch (e) {
      this.ibd.reject(e);
      throw e;
    } finally {
      clearInterval(timer);
      progress.running = false;
    }
  }

  /** The progress line of IBD: blocks done, the height known from the peers, the rate, the time left. */
  // inferred: F logs no progress of the whole download (docs/design/fidelity.md "IBD progress")
  private logProgress(): void {
    const p = this.ibdProgress();
    if (p === null) return;
    this.deps.logger.info(
      {
        applied: p.applied,
        height: p.height,
        target_height: p.targetHeight,
        blocks_per_s: Math.round(p.rate * 10) / 10,
        eta_s: p.etaS === null ? null : Math.round(p.etaS),
      },
      'Initial Block Download progress',
    );
  }

  private async runIbd(progress: IbdProgressState): Promise<boolean> {
    const cfg = this.opts.config;
    const ran = await runIbd(
      {
        ...cfg.ibd,
        max_connected_peers_to_sample: cfg.network.max_connected_peers_to_try_download,
        max_rejected_cache_size: cfg.orphan.max_rejected_cache_size,
      },
      {
        chain: this.deps.chain,
        requestTip: (peer, signal) => this.client.requestTip(peer, signal),
        sampleTips: (max, signal) => this.client.sampleTips(max, signal),
        source: (target, known, signal) => this.client.requestBlocksFromPeers(target, known, signal),
        logger: this.deps.logger,
        signal: this.signal,
      },
      progress,
    );
    this.startTipPoll();
    return ran;
  }

  /** Starts the tip-poll watchdog (once; after IBD). */
  startTipPoll(): void {
    const tp = this.opts.config.tip_poll;
    if (!tp.enabled || this.tipPoll || this.signal.aborted) return;
    this.tipPoll = TipPoll.start(
      tipPollParams(
        this.deps.chain.config.consensus.active_slot_coeff,
        tp.lag_threshold_blocks,
        tp.max_peers_to_sample,
      ),
      {
        chain: this.deps.chain,
        clock: this.deps.clock,
        sampleTips: (max, signal) => this.client.sampleTips(max, signal),
        sink: this,
        logger: this.deps.logger,
        signal: this.signal,
      },
    );
  }

  close(): void {
    this.tipPoll?.close();
    this.controller.abort();
  }
}
