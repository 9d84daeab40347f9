/**
 * The epoch events of Blend (F: blend/scheduling/src/epoch.rs `EpochEventStream`,
 * services/blend/src/membership/chain.rs `subscribe`): a new epoch is announced at the first slot the
 * node sees in it, and the transition period that follows each new epoch (except the first one the
 * node sees, which has no previous epoch to leave) ends `transition period` later. A new epoch that
 * arrives before the previous transition period ended restarts it (the previous expiry is not
 * announced).
 *
 * Pure: time is the slot number; the transition period is counted in slots (the reference's
 * `slot_duration · average_slots_per_block`, see `quota.ts` `blendTiming`).
 */

export type EpochEvent =
  | { readonly kind: 'NewEpoch'; readonly epoch: number; readonly first: boolean }
  | { readonly kind: 'TransitionPeriodExpired' };

export class EpochEventTracker {
  readonly #transitionSlots: bigint;
  #epoch: number | null = null;
  /** Slot at which the running transition period ends, or null. */
  #transitionEnd: bigint | null = null;

  constructor(transitionPeriodSlots: bigint) {
    if (transitionPeriodSlots < 0n) throw new RangeError('the transition period is negative');
    this.#transitionSlots = transitionPeriodSlots;
  }

  get epoch(): number | null {
    return this.#epoch;
  }

  get transitionEnd(): bigint | null {
    return this.#transitionEnd;
  }

  /**
   * Slot `slot` of epoch `epoch` began (the epoch state of `epoch` is known): the event it causes, if
   * any. A new epoch is reported before an expiry due at the same slot, and replaces it.
   */
  onSlot(slot: bigint, epoch: number): EpochEvent | null {
    if (this.#epoch === null) {
      this.#epoch = epoch;
      return { kind: 'NewEpoch', epoch, first: true };
    }
    if (epoch !== this.#epoch) {
      this.#epoch = epoch;
      this.#transitionEnd = slot + this.#transitionSlots;
      return { kind: 'NewEpoch', epoch, first: false };
    }
    if (this.#transitionEnd !== null && slot >= this.#transitionEnd) {
      this.#transitionEnd = null;
      return { kind: 'TransitionPeriodExpired' };
    }
    return null;
  }
}
