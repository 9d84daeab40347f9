/**
 * Auto-claim (F `services/pow/src/service.rs` `run_auto_claim`, `neediest_target`,
 * `auto_claim_tick_stream`): at each tick, the target holding the least among those still below their
 * threshold (ties: the first configured) is paid every ready ticket; when every target is at or above
 * its threshold, auto-claim disarms and mining stops. Ticks are wall-clock seconds, or every `n` slots
 * of the slot clock (the first slot seen fires at once).
 */
import type { Fr } from '../crypto/field.ts';
import type { AutoClaimTick } from './config.ts';

export interface TargetBalance {
  readonly publicKey: Fr;
  readonly threshold: bigint;
  readonly balance: bigint;
}

/** The target to pay: the lowest balance below its threshold, the first configured on ties; none when all are satisfied. */
export function neediestTarget(balances: readonly TargetBalance[]): Fr | undefined {
  let best: TargetBalance | undefined;
  for (const t of balances) {
    if (t.balance >= t.threshold) continue;
    if (best === undefined || t.balance < best.balance) best = t;
  }
  return best?.publicKey;
}

/** Whether `period` slots passed since the last slot-paced tick (a slot before it never fires). */
export function slotPeriodElapsed(last: bigint, current: bigint, period: bigint): boolean {
  return current > last && current - last >= period;
}

export interface TickerDeps {
  /** The current slot (slot pacing). */
  readonly currentSlot: () => bigint;
  /** How often slot pacing looks at the clock, in ms (the slot duration). */
  readonly slotMs: number;
  readonly onTick: () => Promise<void>;
}

/**
 * Fires `onTick` at the configured pace while started; a tick never overlaps the previous one (a tick
 * due while one runs is skipped, as a tokio interval's missed ticks are).
 */
export class AutoClaimTicker {
  #timer: NodeJS.Timeout | undefined;
  #running = false;
  #lastSlot: bigint | undefined;

  constructor(
    private readonly tick: AutoClaimTick,
    private readonly deps: TickerDeps,
  ) {}

  get started(): boolean {
    return this.#timer !== undefined;
  }

  start(): void {
    if (this.#timer !== undefined) return;
    if (this.tick.unit === 'seconds') {
      this.#timer = setInterval(() => this.#fire(), Number(this.tick.value) * 1000);
      // F: a tokio interval's first tick completes at once.
      this.#fire();
    } else {
      this.#lastSlot = undefined;
      const check = () => {
        const slot = this.deps.currentSlot();
        if (this.#lastSlot === undefined || slotPeriodElapsed(this.#lastSlot, slot, this.tick.value)) {
          this.#lastSlot = slot;
          this.#fire();
        }
      };
      this.#timer = setInterval(check, Math.max(50, Math.min(this.deps.slotMs, 1000)));
      check();
    }
    this.#timer.unref?.();
  }

  stop(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  #fire(): void {
    if (this.#running) return;
    this.#running = true;
    this.deps.onTick().finally(() => {
      this.#running = false;
    });
  }
}
