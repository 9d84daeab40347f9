/**
 * The bootstrap phases of a node (F: the chain service's bootstrap), in order: `AwaitingGenesisTime`
 * until the genesis time, `InitialBlockDownload` (skipped while no peers are configured),
 * `ProlongedBootstrapPeriod` for `prolonged_bootstrap_period` seconds unless the node starts Online,
 * then `Following`, where the chain is switched Online.
 */
import type { Logger } from 'pino';
import type { SlotClock } from '../chain/index.ts';

export type Phase = 'AwaitingGenesisTime' | 'InitialBlockDownload' | 'ProlongedBootstrapPeriod' | 'Following';

/** What the phases read and move: the chain's switch to Online. */
export interface OnlineSwitch {
  setOnline(): void;
}

export interface BootstrapPhasesOptions {
  /** The chain starts Online (it skips the prolonged bootstrap period). */
  readonly online: boolean;
  /** Seconds. */
  readonly prolongedBootstrapPeriod: number;
}

export interface BootstrapPhasesDeps {
  readonly chain: OnlineSwitch;
  readonly clock: SlotClock;
  readonly logger: Logger;
  /** Aborting stops the phases where they are. */
  readonly signal: AbortSignal;
}

/** The node's current bootstrap phase, as `/cryptarchia/info`-style readers see it. */
export interface PhaseSource {
  readonly phase: Phase;
}

export class BootstrapPhases implements PhaseSource {
  phase: Phase = 'AwaitingGenesisTime';
  private timer: NodeJS.Timeout | undefined;

  private constructor(
    private readonly opts: BootstrapPhasesOptions,
    private readonly deps: BootstrapPhasesDeps,
  ) {}

  /** Starts the phases from the current time. */
  static init(opts: BootstrapPhasesOptions, deps: BootstrapPhasesDeps): BootstrapPhases {
    const p = new BootstrapPhases(opts, deps);
    deps.signal.addEventListener('abort', () => p.close(), { once: true });
    if (deps.clock.beforeGenesis()) {
      p.timer = setTimeout(() => p.afterGenesis(), deps.clock.msUntil(0n));
    } else {
      deps.logger.info('genesis time is already in the past: finishing AwaitingGenesisTime phase with no-op');
      p.afterGenesis();
    }
    return p;
  }

  private afterGenesis(): void {
    if (this.deps.signal.aborted) return;
    this.phase = 'InitialBlockDownload';
    this.deps.logger.info('Skipping IBD as no peers are configured');
    if (this.opts.online) {
      this.phase = 'Following';
      return;
    }
    this.phase = 'ProlongedBootstrapPeriod';
    this.timer = setTimeout(() => {
      if (this.deps.signal.aborted) return;
      this.deps.chain.setOnline();
      this.phase = 'Following';
    }, this.opts.prolongedBootstrapPeriod * 1000);
  }

  close(): void {
    clearTimeout(this.timer);
  }
}
