/**
 * The chain sync service: serves the chain-sync protocol (tips and blocks, in `Following` only), runs
 * initial block download, downloads the chain of orphan blocks gossip hands it (`OrphanSink`) and, after
 * IBD, the tip-poll watchdog. It talks to peers through `INetwork` only.
 */
import type { Logger } from 'pino';
import type { IChain, SlotClock } from '../chain/index.ts';
import { type INetwork, MAX_REQUEST_BYTES } from '../network/index.ts';
import { deferred } from '../util/deferred.ts';
import { SyncClient } from './client.ts';
import type { SyncConfig } from './config.ts';
import { ibdEnabled, runIbd } from './ibd.ts';
import type { IBlockSync } from './interface.ts';
import { OrphanDownloader, RejectedBlocks } from './orphans.ts';
import type { PhaseSource } from './phases.ts';
import { serveChainSync } from './provider.ts';
import { TipPoll, tipPollParams } from './tip-poll.ts';

export interface SyncServiceOptions {
  /** The deployment's `network.chain_sync_protocol_name`. */
  readonly protocol: string;
  readonly config: SyncConfig;
}

export interface SyncServiceDeps {
  readonly chain: IChain;
  readonly network: INetwork;
  readonly clock: SlotClock;
  /** The bootstrap phase (the server answers in `Following` only). */
  readonly phases: () => PhaseSource | undefined;
  readonly logger: Logger;
  readonly signal: AbortSignal;
}

export class SyncService implements IBlockSync {
  private readonly client: SyncClient;
  private readonly orphans: OrphanDownloader;
  private readonly rejected: RejectedBlocks;
  private tipPoll: TipPoll | undefined;
  private readonly controller = new AbortController();
  private readonly signal: AbortSignal;
  private readonly ibd = deferred<void>();

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

  /**
   * Runs IBD (false: skipped; throws `SYNC_ALL_PEERS_FAILED`), then starts the tip-poll watchdog;
   * settles `ibdDone` either way.
   */
  async initialBlockDownload(): Promise<boolean> {
    try {
      const ran = await this.runIbd();
      this.ibd.resolve();
      return ran;
    } catch (e) {
      this.ibd.reject(e);
      throw e;
    }
  }

  private async runIbd(): Promise<boolean> {
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
