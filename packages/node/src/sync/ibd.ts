/**
 * Initial block download (F `services/chain/chain-network/src/bootstrap/ibd.rs`). Skipped when no IBD
 * peer is configured and discovery of connected peers is off. Otherwise, round after round: get the
 * tips of the configured peers (or of up to `max_connected_peers_to_sample` sampled connected peers),
 * retrying with exponential backoff and jitter (`tips_fetch_min_delay` … `tips_fetch_max_delay`,
 * `tips_fetch_max_attempts` retries); the tips not in the local block tree are downloaded through an
 * orphan downloader whose queue holds one entry per peer; then sleep `round_delay`. Done when every tip
 * is known. No tip from any peer after every retry is `AllPeersFailed`.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { IChain } from '../chain/index.ts';
import { bytesToHex, hexToBytes } from '../codec/hex.ts';
import type { GetTipResponse } from '../network/index.ts';
import type { SyncConfig } from './config.ts';
import { SyncError } from './errors.ts';
import { type BlockSource, OrphanDownloader, RejectedBlocks } from './orphans.ts';

/** F's log line when IBD fails: the chain network stops (here, the node). */
export const IBD_FAILED_MESSAGE =
  'Initial Block Download failed: AllPeersFailed(AllPeersFailed). Chain network service will stop; retry with different bootstrap peers';

export interface IbdDeps {
  readonly chain: Pick<IChain, 'submit' | 'tip' | 'lib' | 'has' | 'blockRef'>;
  readonly requestTip: (peer: string, signal: AbortSignal) => Promise<GetTipResponse>;
  readonly sampleTips: (
    max: number,
    signal: AbortSignal,
  ) => Promise<{ peer: string; tip: GetTipResponse & { kind: 'Tip' } }[]>;
  readonly source: BlockSource;
  readonly logger: Logger;
  readonly signal: AbortSignal;
  /** Random in [0, 1) for the backoff jitter (tests fix it). */
  readonly random?: () => number;
}

/** What IBD has done so far, read by the progress line and the metrics. */
export interface IbdProgressState {
  /** The highest tip height the peers announced. */
  targetHeight: number;
  /** Downloaded blocks the chain took. */
  applied: number;
}

export type IbdSettings = SyncConfig['ibd'] & {
  readonly max_connected_peers_to_sample: number;
  readonly max_rejected_cache_size: number;
};

/** Whether IBD runs at all. */
export function ibdEnabled(cfg: Pick<IbdSettings, 'peers' | 'discover_connected_peers'>): boolean {
  return cfg.peers.length > 0 || cfg.discover_connected_peers;
}

/**
 * Runs IBD to completion (false: skipped); throws `SyncError('SYNC_ALL_PEERS_FAILED')` when no peer
 * gives a tip.
 */
export async function runIbd(
  cfg: IbdSettings,
  deps: IbdDeps,
  progress: IbdProgressState = { targetHeight: 0, applied: 0 },
): Promise<boolean> {
  const log = deps.logger;
  if (!ibdEnabled(cfg)) {
    log.warn('Skipping IBD as no peers are configured');
    return false;
  }
  if (cfg.peers.length === 0) log.info('Starting Initial Block Download by discovering connected peers');
  else log.info(`Starting Initial Block Download with ${cfg.peers.length} peers`);

  const downloader = new OrphanDownloader(
    {
      maxPending: Math.max(1, cfg.peers.length),
      retryRecoverable: true,
      onApplied: () => {
        progress.applied++;
      },
    },
    {
      chain: deps.chain,
      source: deps.source,
      rejected: new RejectedBlocks(cfg.max_rejected_cache_size),
      logger: log,
      signal: deps.signal,
    },
  );
  for (;;) {
    deps.signal.throwIfAborted();
    const tips = await fetchTipsWithRetry(cfg, deps, progress);
    // inferred: a tip stored here (in the tree or below the LIB) is synced; F asks for its ledger state,
    // which it keeps for the tree only, so a peer behind the LIB would be downloaded from forever (docs/design/fidelity.md)
    const unsynced = [...tips].filter((t) => deps.chain.blockRef(hexToBytes(t)) === undefined);
    if (unsynced.length === 0) {
      log.info(
        { applied: progress.applied, height: deps.chain.tip().height },
        'IBD complete: all configured peer tips are present in the local tree',
      );
      return true;
    }
    for (const t of unsynced) {
      const ok = downloader.enqueue(hexToBytes(t));
      log.debug({ tip: t, queued: ok }, ok ? 'enqueued tip for download' : 'failed to enqueue tip');
    }
    await downloader.whenIdle();
    const retries = downloader.takeRetries();
    await sleep(cfg.round_delay, undefined, { signal: deps.signal });
    // Downloads that hit a transient failure run again in the next round (F `retry_active_download`).
    for (const r of retries) downloader.enqueue(r.id, r.parent);
  }
}

/** One attempt: the tips (hex) the peers gave; empty when none did. */
async function fetchTips(cfg: IbdSettings, deps: IbdDeps, progress: IbdProgressState): Promise<Set<string>> {
  const tips = new Set<string>();
  const seen = (t: { tip: Uint8Array; height: bigint }) => {
    tips.add(bytesToHex(t.tip));
    progress.targetHeight = Math.max(progress.targetHeight, Number(t.height));
  };
  if (cfg.peers.length === 0) {
    for (const { tip } of await deps.sampleTips(Math.max(1, cfg.max_connected_peers_to_sample), deps.signal))
      seen(tip);
    return tips;
  }
  await Promise.all(
    cfg.peers.map(async (peer) => {
      try {
        const r = await deps.requestTip(peer, deps.signal);
        if (r.kind === 'Tip') seen(r);
        else deps.logger.warn({ peer, reason: r.reason }, `failed to fetch tip from ${peer}: ${r.reason}`);
      } catch (e) {
        deps.logger.warn({ peer, err: (e as Error).message }, `failed to fetch tip from ${peer}`);
      }
    }),
  );
  return tips;
}

/**
 * `fetchTips` retried with exponential backoff (factor 2 from `tips_fetch_min_delay`, capped at
 * `tips_fetch_max_delay`, with jitter) at most `tips_fetch_max_attempts` more times (F: backon's
 * `ExponentialBuilder` with `with_max_times`).
 */
async function fetchTipsWithRetry(
  cfg: IbdSettings,
  deps: IbdDeps,
  progress: IbdProgressState,
): Promise<Set<string>> {
  const random = deps.random ?? Math.random;
  let delay = cfg.tips_fetch_min_delay;
  for (let attempt = 0; ; attempt++) {
    const tips = await fetchTips(cfg, deps, progress);
    if (tips.size > 0) return tips;
    if (attempt >= cfg.tips_fetch_max_attempts) break;
    // inferred: backon's jitter adds a random part of the delay, up to the delay itself (docs/design/fidelity.md)
    const wait = Math.min(delay, cfg.tips_fetch_max_delay);
    const jittered = wait + Math.floor(random() * wait);
    deps.logger.debug(`tip fetch returned no tips; retrying in ${jittered}ms`);
    await sleep(jittered, undefined, { signal: deps.signal });
    delay = Math.min(delay * 2, cfg.tips_fetch_max_delay);
  }
  deps.logger.error('no peer returned a tip');
  throw new SyncError('SYNC_ALL_PEERS_FAILED', 'All peers failed');
}
