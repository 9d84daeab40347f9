/**
 * The release delayer of one epoch (F: blend/scheduling/src/release_delayer.rs
 * `EpochProcessedMessageDelayer`): processed messages (those to forward after one decapsulation)
 * wait in a queue released all at once at the next release round; after each release round the
 * next one is drawn uniformly 1 to `maximum_release_delay_in_rounds` rounds later. The first
 * release round is drawn the same way from round 0.
 *
 * Pure: rounds come in as numbers (the epoch scheduler's count, 0 at its start).
 */
import { genRangeU64Inclusive, type RngCore } from './rng.ts';

export interface ReleaseDelayerSettings {
  /** Δmax: the most rounds between two release rounds (> 0). */
  readonly maximumReleaseDelayInRounds: bigint;
}

export interface ReleaseDelayerState<T> {
  readonly maximumReleaseDelayInRounds: bigint;
  readonly nextReleaseRound: bigint;
  readonly unreleasedMessages: readonly T[];
}

/** An offset in `1..=max` (F: `schedule_next_release_round_offset`). */
function releaseOffset(rng: RngCore, max: bigint): bigint {
  return genRangeU64Inclusive(rng, 1n, max);
}

export class EpochReleaseDelayer<T> {
  readonly #max: bigint;
  #nextReleaseRound: bigint;
  #unreleased: T[];
  readonly #rng: RngCore;

  private constructor(state: ReleaseDelayerState<T>, rng: RngCore) {
    this.#max = state.maximumReleaseDelayInRounds;
    this.#nextReleaseRound = state.nextReleaseRound;
    this.#unreleased = [...state.unreleasedMessages];
    this.#rng = rng;
  }

  static create<T>(settings: ReleaseDelayerSettings, rng: RngCore): EpochReleaseDelayer<T> {
    const max = settings.maximumReleaseDelayInRounds;
    if (max <= 0n) throw new RangeError('the maximum release delay is at least one round');
    return new EpochReleaseDelayer<T>(
      { maximumReleaseDelayInRounds: max, nextReleaseRound: releaseOffset(rng, max), unreleasedMessages: [] },
      rng,
    );
  }

  static fromState<T>(state: ReleaseDelayerState<T>, rng: RngCore): EpochReleaseDelayer<T> {
    if (state.maximumReleaseDelayInRounds <= 0n) {
      throw new RangeError('the maximum release delay is at least one round');
    }
    return new EpochReleaseDelayer(state, rng);
  }

  get nextReleaseRound(): bigint {
    return this.#nextReleaseRound;
  }

  get unreleasedMessages(): readonly T[] {
    return this.#unreleased;
  }

  /** The generator (F: `rng()`, whose clone seeds the next epoch's scheduler). */
  get rng(): RngCore {
    return this.#rng;
  }

  /** Queues a message for the next release round. */
  schedule(message: T): void {
    this.#unreleased.push(message);
  }

  /**
   * Round `round` began: at or after the release round, returns the queued messages (possibly none)
   * and draws the next release round from this one; otherwise null.
   */
  onRound(round: bigint): T[] | null {
    if (round < this.#nextReleaseRound) return null;
    this.#nextReleaseRound = round + releaseOffset(this.#rng, this.#max);
    const released = this.#unreleased;
    this.#unreleased = [];
    return released;
  }
}
