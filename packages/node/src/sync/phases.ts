/**
 * The bootstrap phases of a node (F: the chain service's bootstrap), in order: `AwaitingGenesisTime`
 * until the genesis time, `InitialBlockDownload` (the sync service's IBD when the node has one; skipped
 * when no IBD peer is configured and discovery is off; its failure stops the node),
 * `ProlongedBootstrapPeriod` for `prolonged_bootstrap_period` seconds unless the node starts Online,
 * then `Following`, where the chain is switched Online.
 */
import type { Logger } from 'pino';
import type { SlotClock } from '../chain/index.ts';
import { IBD_FAILED_MESSAGE } from './ibd.ts';

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
  /** Runs initial block download; false when it was skipped (absent: the node has no network, so no peers). */
  readonly ibd?: () => Promise<boolean>;
  /** Called when IBD fails (the node stops). */
  readonly onIbdFailed?: (e: Error) => void;
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
    const { ibd } = this.deps;
    if (!ibd) {
      this.deps.logger.info('Skipping IBD as no peers are configured');
      this.afterIbd();
      return;
    }
    ibd().then(
      (ran) => {
        if (ran) this.deps.logger.info('Initial Block Download completed successfully');
        this.afterIbd();
      },
      (e: Error) => {
        if (this.deps.signal.aborted) return;
        // inferred: F stops its chain network service only; here the node stops (docs/design/fidelity.md)
        this.deps.logger.error({ err: e.message }, IBD_FAILED_MESSAGE);
        this.deps.onIbdFailed?.(e);
      },
    );
  }

  private afterIbd(): void {
    if (this.deps.signal.aborted) return;
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
