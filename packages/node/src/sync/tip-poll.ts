/**
 * The tip-poll watchdog (F `services/chain/chain-network/src/sync/tip_poll.rs`): every
 * `cadence = ceil(1/f)` slots, when the local tip's slot lags the current slot by more than
 * `lag_threshold_blocks × cadence` slots, asks up to `max_peers_to_sample` connected peers for their tip
 * and queues the highest one (height, then slot) strictly above the local height as an orphan download.
 */
import type { Logger } from 'pino';
import type { IChain, SlotClock } from '../chain/index.ts';
import { bytesToHex } from '../codec/hex.ts';
import type { GetTipResponse } from '../network/index.ts';
import type { OrphanSink } from './interface.ts';

export interface TipPollParams {
  readonly cadenceSlots: bigint;
  readonly lagThresholdSlots: bigint;
  readonly maxPeers: number;
}

/** F `TipPollParams::derive`: cadence = ceil(1/f) = ceil(den/num). */
export function tipPollParams(
  f: { num: bigint; den: bigint },
  lagThresholdBlocks: number,
  maxPeers: number,
): TipPollParams {
  const cadence = (f.den + f.num - 1n) / f.num;
  const cadenceSlots = cadence > 0n ? cadence : 1n;
  return { cadenceSlots, lagThresholdSlots: BigInt(lagThresholdBlocks) * cadenceSlots, maxPeers };
}

type Tip = GetTipResponse & { kind: 'Tip' };

/** The highest tip strictly above `localHeight` (ties: the higher slot), F `select_catchup_tip`. */
export function selectCatchupTip(tips: readonly Tip[], localHeight: bigint): Tip | undefined {
  let best: Tip | undefined;
  for (const t of tips) {
    if (t.height <= localHeight) continue;
    if (!best || t.height > best.height || (t.height === best.height && t.slot > best.slot)) best = t;
  }
  return best;
}

export interface TipPollDeps {
  readonly chain: Pick<IChain, 'tip'>;
  readonly clock: SlotClock;
  readonly sampleTips: (max: number, signal: AbortSignal) => Promise<{ peer: string; tip: Tip }[]>;
  readonly sink: OrphanSink;
  readonly logger: Logger;
  readonly signal: AbortSignal;
}

export class TipPoll {
  private timer: NodeJS.Timeout | undefined;
  private polling = false;

  private constructor(
    private readonly params: TipPollParams,
    private readonly deps: TipPollDeps,
  ) {}

  static start(params: TipPollParams, deps: TipPollDeps): TipPoll {
    const t = new TipPoll(params, deps);
    t.schedule();
    return t;
  }

  /** One check at `slot` (exposed for tests); resolves with the tip queued, if any. */
  async check(slot: bigint): Promise<Tip | undefined> {
    if (slot % this.params.cadenceSlots !== 0n) return undefined;
    const local = this.deps.chain.tip();
    const lag = slot > local.slot ? slot - local.slot : 0n;
    if (lag <= this.params.lagThresholdSlots) return undefined;
    this.deps.logger.debug(
      { lag, tip_slot: local.slot, current_slot: slot },
      'Chain tip lagging; polling peers for their tip',
    );
    const tips = await this.deps.sampleTips(this.params.maxPeers, this.deps.signal);
    const best = selectCatchupTip(
      tips.map((t) => t.tip),
      BigInt(local.height),
    );
    if (!best) {
      this.deps.logger.debug(
        { local_height: local.height },
        'tip poll: no sampled peer reported a tip ahead of us',
      );
      return undefined;
    }
    const queued = this.deps.sink.enqueue(best.tip);
    this.deps.logger.info(
      { tip: bytesToHex(best.tip), height: best.height, local_height: local.height, queued },
      queued
        ? 'tip poll: downloading a peer tip ahead of ours'
        : 'tip poll: a peer tip ahead of ours was not queued',
    );
    return queued ? best : undefined;
  }

  // inferred: a timer at each cadence slot's start stands for F's slot ticks (docs/design/fidelity.md)
  private schedule(): void {
    if (this.deps.signal.aborted) return;
    const { clock } = this.deps;
    const c = this.params.cadenceSlots;
    const now = clock.currentSlot();
    const next = (now / c + 1n) * c;
    this.timer = setTimeout(() => {
      this.schedule();
      // Polls in the background: a poll still running when the next one is due is not doubled.
      if (this.polling) return;
      this.polling = true;
      this.check(next)
        .catch((e) => this.deps.logger.warn({ err: (e as Error).message }, 'tip poll failed'))
        .finally(() => {
          this.polling = false;
        });
    }, clock.msUntil(next));
    this.timer.unref?.();
  }

  close(): void {
    clearTimeout(this.timer);
  }
}
