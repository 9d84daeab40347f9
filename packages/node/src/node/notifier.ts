/**
 * The node's status line, every 10 s: consensus state, phase, tip, LIB and the current slot, and how
 * the process fares: its resident memory and the 99th percentile of its event-loop delay since the
 * last line (how long work waited for the loop).
 */
import { type IntervalHistogram, monitorEventLoopDelay } from 'node:perf_hooks';
import type { Logger } from 'pino';
import type { SlotClock } from '../chain/index.ts';
import type { ConsensusState } from '../consensus/engine.ts';
import type { PhaseSource } from '../sync/index.ts';

/** What the status line reads from the chain. */
export interface ChainStatus {
  readonly consensusState: ConsensusState;
  tip(): { readonly height: number; readonly slot: bigint };
  lib(): { readonly height: number };
}

export interface NotifierDeps {
  readonly chain: ChainStatus;
  readonly clock: SlotClock;
  readonly phases: PhaseSource;
  readonly logger: Logger;
  readonly signal: AbortSignal;
}

export class Notifier {
  private readonly timer: NodeJS.Timeout;
  private readonly loop: IntervalHistogram = monitorEventLoopDelay({ resolution: 10 });

  private constructor(
    private readonly deps: NotifierDeps,
    intervalMs: number,
  ) {
    this.loop.enable();
    this.timer = setInterval(() => this.log(), intervalMs);
    deps.signal.addEventListener('abort', () => this.close(), { once: true });
  }

  static init(deps: NotifierDeps, intervalMs = 10_000): Notifier {
    return new Notifier(deps, intervalMs);
  }

  private log(): void {
    const { chain, clock, phases, logger } = this.deps;
    const tip = chain.tip();
    logger.info(
      {
        state: chain.consensusState,
        phase: phases.phase,
        height: tip.height,
        slot: Number(tip.slot),
        lib_height: chain.lib().height,
        current_slot: Number(clock.currentSlot()),
        rss_mb: Math.round(process.memoryUsage.rss() / (1024 * 1024)),
        loop_delay_p99_ms: Math.round(this.loop.percentile(99) / 1e5) / 10,
      },
      'status',
    );
    this.loop.reset();
  }

  close(): void {
    clearInterval(this.timer);
    this.loop.disable();
  }
}
