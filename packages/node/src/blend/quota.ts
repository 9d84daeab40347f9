/**
 * Blend's timing and messaging quotas (F: core/src/blend/mod.rs `core_quota`,
 * services/blend/src/core/settings.rs `epoch_{core,leadership,pow}_quota`,
 * nodes/node/binary/src/config/blend/deployment.rs, services/blend/src/core/backends/libp2p/
 * tokio_provider.rs `calculate_expected_message_range`), and the per-epoch accounting of the proofs
 * of quota this node makes and of the key nullifiers it has seen.
 *
 * - A round lasts one slot, or a `rounds_per_slot`-th of one where a deployment splits the slot (not
 *   in the reference: this project's devnet); an epoch has `slots · rounds_per_slot` rounds.
 * - The observation window of a core connection is `10 · Δmax` rounds, over which a peer must send
 *   between `μ · minimum_messages_coefficient` and `μ · rounds_per_observation_window` messages, with
 *   `μ = ceil(Δmax · β_c · normalization_constant / N)` (f64, as the reference).
 * - The epoch transition period lasts one average block: `floor(1 / f)` slots.
 * - Quotas (proofs of quota of one kind a node may make): core `Q_c = ceil(C · β_c / N)` with
 *   `C = rounds_per_epoch · F_c` for each core node per epoch; leadership `β_c · (1 + R_c)` per won
 *   slot (one data message and its `R_c` copies, each through `β_c` layers); PoW `β_c` per solution.
 *   The PoQ circuit takes quotas below 2^20.
 */

import { LogosError } from '@logos-ts/shared/errors';
import { MAX_QUOTA, QUOTA_BITS } from '../crypto/blend/poq.ts';
import type { BlendDeployment } from '../ledger/deployment.ts';
import { averageSlotsForBlocks, type Ratio } from '../ledger/parameters.ts';
import { coreQuota, type ResolvedBlendRewardParams } from '../ledger/sdp-rewards.ts';

/** Rounds of an observation window per round of maximum release delay (F: `10 * ∆max`). */
export const OBSERVATION_WINDOW_DELAYS = 10n;

export class BlendQuotaError extends LogosError {
  constructor(message: string, meta: Record<string, unknown> = {}) {
    super('BLEND_QUOTA', message, { meta });
  }
}
LogosError.register(BlendQuotaError);

/** The consensus facts Blend's timing derives from. */
export interface BlendClock {
  /** Slots per epoch. */
  readonly epochLength: bigint;
  readonly slotDurationMs: number;
  /** f, the active slot coefficient. */
  readonly activeSlotCoeff: Ratio;
}

/** F: services/blend/src/settings/timing.rs `TimingSettings`, derived from the deployment. */
export interface BlendTiming {
  /** S: rounds per epoch (= slots per epoch · rounds per slot). */
  readonly roundsPerEpoch: bigint;
  /** Rounds a slot is split into (1 in the reference). */
  readonly roundsPerSlot: number;
  readonly roundDurationMs: number;
  readonly roundsPerObservationWindow: bigint;
  readonly observationWindowMs: number;
  /** The transition period after an epoch change, in slots (one average block). */
  readonly epochTransitionSlots: bigint;
  readonly epochTransitionMs: number;
}

export function blendTiming(p: BlendDeployment, clock: BlendClock): BlendTiming {
  // F: `rounds_per_epoch = slots_per_epoch · slot_secs / round_secs` with a round of one slot, and a
  // transition of `slot_secs · average_slots_per_block` seconds.
  // inferred: for a slot under one second (test deployments only) the epoch still has one round per
  // slot and the transition lasts one average block; F counts whole seconds there (a division by zero
  // for the rounds, a transition of 0 s) and cannot run such a slot (docs/design/fidelity.md).
  // inferred: a deployment may split the slot into `rounds_per_slot` rounds (F's formula with a round
  // of slot / rounds_per_slot; F fixes the round at one slot) (docs/design/fidelity.md "Blend rounds
  // shorter than a slot").
  const roundsPerSlot = p.rounds_per_slot ?? 1;
  if (!Number.isSafeInteger(roundsPerSlot) || roundsPerSlot < 1 || clock.slotDurationMs % roundsPerSlot !== 0)
    throw new BlendQuotaError('a slot splits into a whole number of rounds of whole milliseconds', {
      roundsPerSlot,
      slotDurationMs: clock.slotDurationMs,
    });
  const roundDurationMs = clock.slotDurationMs / roundsPerSlot;
  const roundsPerEpoch = clock.epochLength * BigInt(roundsPerSlot);
  if (roundsPerEpoch <= 0n) throw new BlendQuotaError('an epoch has at least one round');
  const roundsPerObservationWindow = OBSERVATION_WINDOW_DELAYS * BigInt(p.maximum_release_delay_in_rounds);
  const epochTransitionSlots = averageSlotsForBlocks(1, clock.activeSlotCoeff);
  return {
    roundsPerEpoch,
    roundsPerSlot,
    roundDurationMs,
    roundsPerObservationWindow,
    observationWindowMs: Number(roundsPerObservationWindow) * roundDurationMs,
    epochTransitionSlots,
    epochTransitionMs: Number(epochTransitionSlots) * clock.slotDurationMs,
  };
}

/** The reward parameters of the same deployment (F: deployment.rs `rewards_params`). */
export function blendRewardParams(p: BlendDeployment, roundsPerEpoch: bigint): ResolvedBlendRewardParams {
  return {
    rounds_per_epoch: roundsPerEpoch,
    message_frequency_per_round: p.message_frequency_per_round,
    num_blend_layers: BigInt(p.num_blend_layers),
    data_replication_factor: BigInt(p.data_replication_factor),
    minimum_network_size: BigInt(p.minimum_network_size),
    activity_threshold_sensitivity: BigInt(p.activity_threshold_sensitivity),
  };
}

function checkedQuota(q: bigint, what: string): bigint {
  if (q > MAX_QUOTA)
    throw new BlendQuotaError(`${what} ${q} does not fit in ${QUOTA_BITS} bits`, { quota: q });
  return q;
}

/** Q_c of an epoch with `membershipSize` core nodes (≥ 1). */
export function epochCoreQuota(p: BlendDeployment, roundsPerEpoch: bigint, membershipSize: number): bigint {
  if (!Number.isSafeInteger(membershipSize) || membershipSize < 1) {
    throw new BlendQuotaError('the core quota of an empty membership is undefined', { membershipSize });
  }
  return checkedQuota(coreQuota(blendRewardParams(p, roundsPerEpoch), membershipSize), 'core quota');
}

/** Proofs of leadership quota per won slot: `β_c + β_c · R_c`. */
export function epochLeadershipQuota(p: BlendDeployment): bigint {
  const layers = BigInt(p.num_blend_layers);
  return checkedQuota(layers + layers * BigInt(p.data_replication_factor), 'leadership quota');
}

/** Copies of a data message the node sends: the message and its `R_c` replicas (F: edge/mod.rs). */
export function dataMessageCopies(p: BlendDeployment): bigint {
  return BigInt(p.data_replication_factor) + 1n;
}

/** Proofs of PoW quota per puzzle solution: `β_c`. */
export function epochPowQuota(p: BlendDeployment): bigint {
  return checkedQuota(BigInt(p.num_blend_layers), 'PoW quota');
}

/** Messages a core peer must send per observation window, inclusive bounds. */
export interface ExpectedMessageRange {
  readonly min: number;
  readonly max: number;
}

/** F: `calculate_expected_message_range`, for `membershipSize` (≥ 1) core nodes. */
export function expectedMessageRange(
  p: BlendDeployment,
  timing: Pick<BlendTiming, 'roundsPerObservationWindow'>,
  membershipSize: number,
): ExpectedMessageRange {
  if (!Number.isSafeInteger(membershipSize) || membershipSize < 1) {
    throw new BlendQuotaError('the expected message range of an empty membership is undefined', {
      membershipSize,
    });
  }
  const delay = p.maximum_release_delay_in_rounds;
  const layers = p.num_blend_layers;
  const mu = BigInt(Math.ceil((delay * layers * p.normalization_constant) / membershipSize));
  const min = mu * BigInt(p.minimum_messages_coefficient);
  const max = mu * timing.roundsPerObservationWindow;
  if (max > BigInt(Number.MAX_SAFE_INTEGER) || min > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new BlendQuotaError('the expected message range does not fit in a safe integer', { mu });
  }
  return { min: Number(min), max: Number(max) };
}

/** The kinds of proof of quota: by core membership, by a won leader slot, by a PoW solution. */
export type QuotaBranch = 'core' | 'leadership' | 'pow';

/** The quotas of an epoch. */
export interface EpochQuotas {
  /** Q_c for the whole epoch (0 when this node is not a core node). */
  readonly core: bigint;
  /** Per won slot. */
  readonly leadership: bigint;
  /** Per PoW solution. */
  readonly pow: bigint;
}

/**
 * The proofs of quota of one epoch: hands out key indices (F: the provers' `KeyIndex` streams) and
 * remembers the key nullifiers seen in others' messages.
 *
 * Core indices run `0..Q_c` once per epoch. Leadership and PoW indices run `0..quota` per credential
 * (a won slot, a puzzle solution): after `renew(branch)` for a new credential they start again at 0
 * (the nullifier depends on the credential too, so it stays fresh).
 */
export class EpochQuotaCounter {
  readonly epoch: number;
  readonly quotas: EpochQuotas;
  readonly #next: Record<QuotaBranch, bigint> = { core: 0n, leadership: 0n, pow: 0n };
  /** Whether a leadership or PoW credential is available. */
  readonly #credential: Record<'leadership' | 'pow', boolean> = { leadership: false, pow: false };
  readonly #nullifiers = new Set<bigint>();

  constructor(epoch: number, quotas: EpochQuotas) {
    for (const b of ['core', 'leadership', 'pow'] as const) checkedQuota(quotas[b], `${b} quota`);
    this.epoch = epoch;
    this.quotas = quotas;
  }

  /** The next key index of `branch`, or null when its quota (or current credential) is used up. */
  nextKeyIndex(branch: QuotaBranch): number | null {
    if (branch !== 'core' && !this.#credential[branch]) return null;
    const i = this.#next[branch];
    if (i >= this.quotas[branch]) return null;
    this.#next[branch] = i + 1n;
    return Number(i);
  }

  /** Key indices of `branch` still available (with the current credential). */
  remaining(branch: QuotaBranch): bigint {
    if (branch !== 'core' && !this.#credential[branch]) return 0n;
    return this.quotas[branch] - this.#next[branch];
  }

  /** A new credential of `branch` (a won slot, a PoW solution): its indices start again at 0. */
  renew(branch: 'leadership' | 'pow'): void {
    this.#credential[branch] = true;
    this.#next[branch] = 0n;
  }

  /**
   * Records the key nullifier of a verified message of this epoch; true when it was already seen
   * (the message reuses a proof of quota and is dropped).
   */
  seen(nullifier: bigint): boolean {
    if (this.#nullifiers.has(nullifier)) return true;
    this.#nullifiers.add(nullifier);
    return false;
  }

  /** Distinct key nullifiers seen in this epoch. */
  get seenCount(): number {
    return this.#nullifiers.size;
  }
}
