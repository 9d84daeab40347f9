/**
 * Parameters of the ledger and of the consensus epochs, as a deployment fixes them.
 * Every derived quantity (base period, epoch length, snapshot offsets) is computed here, once.
 */
import { LogosError } from '@logos-ts/shared/errors';

/** A positive rational number, e.g. the active slot coefficient f = 1/30. */
export interface Ratio {
  readonly num: bigint;
  readonly den: bigint;
}

export interface ConsensusParams {
  /** Security parameter k (blocks). */
  readonly security_param: number;
  /** Active slot coefficient f. */
  readonly active_slot_coeff: Ratio;
  readonly epoch_stake_distribution_stabilization: number;
  readonly epoch_period_nonce_buffer: number;
  readonly epoch_period_nonce_stabilization: number;
  readonly stake_inference_learning_rate: Ratio;
  /** Uncle reference window in blocks (×1/f gives slots). */
  readonly uncle_reference_window_in_blocks: number;
}

/** Blend activity-reward parameters (F: ledger/src/mantle/sdp/rewards/blend/mod.rs `RewardsParameters`). */
export interface BlendRewardParams {
  /** Blend rounds per epoch; null: the epoch length in slots (a round lasts one slot). */
  readonly rounds_per_epoch: bigint | null;
  readonly message_frequency_per_round: number;
  /** β_c, the blend layers of a message. */
  readonly num_blend_layers: bigint;
  readonly data_replication_factor: bigint;
  /** A target epoch whose active set is smaller pays nothing and accepts no activity message. */
  readonly minimum_network_size: bigint;
  readonly activity_threshold_sensitivity: bigint;
}

export interface SdpParams {
  /** Minimum value of a service note. */
  readonly min_stake: bigint;
  /**
   * Epochs a declaration stays in the active set after its last activity; at least
   * SNAPSHOT_FINALIZATION_DELAY (F: core/src/sdp/mod.rs `InactivityPeriod`).
   */
  readonly inactivity_period: number;
  readonly blend_rewards: BlendRewardParams;
}

export interface PowRewardParams {
  readonly reward_pool_genesis: bigint;
  readonly epoch_reward_genesis: bigint;
  /** Initial target is p / 2^initial_difficulty, unless `initial_target` gives it exactly. */
  readonly initial_difficulty: number;
  /** The exact genesis reward target, when the deployment gives one (below p). */
  readonly initial_target?: bigint;
  readonly ema_smoothing_factor: bigint;
  readonly ema_smoothing_precision: bigint;
  readonly target_claims_per_block: bigint;
  readonly rate_num: bigint;
  readonly rate_den: bigint;
  /** Share of each block's reward that refills the pool at the next epoch (F: 0/4, ledger/src/lib.rs). */
  readonly pow_share: Ratio;
  /** Claims are valid for blocks at most this many slots old. */
  readonly slot_window: number;
}

/** The Blend PoW difficulty retarget. F: ledger/src/config.rs `BlendPoWConfig`. */
export interface BlendPowParams {
  /** BASE = p / 2^n: the threshold at the reference load, and the genesis threshold. 1..253. */
  readonly base_difficulty: number;
  /** T_tx: the reference load, in transactions per block. */
  readonly target_transactions_per_block: bigint;
  /** k: the largest factor one epoch may move the threshold by. */
  readonly max_step: bigint;
  /** The damping exponent is `damping_num / (damping_num + damping_den_offset)`. */
  readonly damping_num: number;
  readonly damping_den_offset: number;
}

export interface LedgerConfig {
  readonly consensus: ConsensusParams;
  readonly sdp: SdpParams;
  readonly pow: PowRewardParams;
  readonly blend_pow: BlendPowParams;
  /** Notes owned by this key do not count towards the total stake (the faucet). */
  readonly faucet_pk: bigint | null;
}

// ---------- gas and reward constants (ledger/src/lib.rs, core/src/mantle/**) ----------

export const MAX_BLOCK_EXECUTION_GAS = 3_193_460n;
export const GENESIS_EXECUTION_GAS_PRICE = 1n;
export const GENESIS_STORAGE_GAS_PRICE = 1n;
export const FEE_WINDOW = 120;
export const EXECUTION_MARKET_NUM_BASE = 11_177_110n;
export const EXECUTION_MARKET_DEN = 12_773_840n;
export const A_SCALE = 120_000_000n;
export const FEE_AVG_NUM = 10_512n;
export const STAKE_TARGET = 3_000_000_000n;
export const REWARD_BASE = 62_500n;
export const REWARD_FEE_MUL = 657n;
/** Epochs between a declaration (or withdrawal) and its effect on the active set (F: core/src/sdp/mod.rs). */
export const SNAPSHOT_FINALIZATION_DELAY = 2;

// ---------- derived epoch schedule ----------

/** An epoch before the first one was asked for (a snapshot slot of epoch 0). */
export class EpochScheduleError extends LogosError {
  constructor(message: string) {
    super('EPOCH_SCHEDULE', message);
  }
}

export interface EpochSchedule {
  /** floor(k / f) slots. */
  readonly base_period: bigint;
  readonly epoch_length: bigint;
  /**
   * Offset of the nonce (and total stake) snapshot inside the previous epoch: the stake distribution
   * stabilization and nonce buffer phases. Also the length of the total stake inference period.
   */
  readonly nonce_snapshot_offset: bigint;
  /** floor(k / (4 f)) slots, the density window of the Genesis fork choice. */
  readonly s_gen: bigint;
  /** epoch_length × f: the expected number of blocks per epoch. */
  readonly expected_blocks_per_epoch: bigint;
  readonly uncle_window_slots: bigint;
}

/** f as the reference evaluates it: numerator / denominator in binary64. */
export function slotCoeffAsF64(f: Ratio): number {
  return Number(f.num) / Number(f.den);
}

/**
 * floor(blocks / f) evaluated in binary64, as the reference does (`average_slots_for_blocks`); this
 * differs from the exact rational floor for some f (e.g. 99 / (9/11) gives 120, not 121).
 * F: consensus/cryptarchia-engine/src/config.rs
 */
export function averageSlotsForBlocks(blocks: number, f: Ratio): bigint {
  return BigInt(Math.floor(blocks / slotCoeffAsF64(f)));
}

export function epochSchedule(c: ConsensusParams): EpochSchedule {
  const f = c.active_slot_coeff;
  const base = averageSlotsForBlocks(c.security_param, f);
  const periods =
    c.epoch_stake_distribution_stabilization +
    c.epoch_period_nonce_buffer +
    c.epoch_period_nonce_stabilization;
  const epoch_length = base * BigInt(periods);
  return {
    base_period: base,
    epoch_length,
    nonce_snapshot_offset:
      base * BigInt(c.epoch_stake_distribution_stabilization + c.epoch_period_nonce_buffer),
    // F: consensus/cryptarchia-engine/src/config.rs `s_gen`, in binary64 as well.
    s_gen: BigInt(Math.floor(c.security_param / (4 * slotCoeffAsF64(f)))),
    expected_blocks_per_epoch: (epoch_length * f.num) / f.den,
    uncle_window_slots: averageSlotsForBlocks(c.uncle_reference_window_in_blocks, f),
  };
}

export function epochOf(slot: bigint, s: EpochSchedule): number {
  return Number(slot / s.epoch_length);
}

function previousEpoch(epoch: number): bigint {
  if (epoch < 1) throw new EpochScheduleError(`epoch ${epoch} has no previous epoch to take a snapshot in`);
  return BigInt(epoch - 1);
}

/** First slot at which the UTXO set for `epoch` is frozen: the first slot of the epoch before. */
export function stakeDistributionSnapshotSlot(epoch: number, s: EpochSchedule): bigint {
  return previousEpoch(epoch) * s.epoch_length;
}

/** Slot at which the nonce for `epoch` is frozen, inside the epoch before. */
export function nonceSnapshotSlot(epoch: number, s: EpochSchedule): bigint {
  return previousEpoch(epoch) * s.epoch_length + s.nonce_snapshot_offset;
}

/** Slot at which the total stake for `epoch` is inferred: the nonce snapshot slot. */
export function totalStakeSnapshotSlot(epoch: number, s: EpochSchedule): bigint {
  return nonceSnapshotSlot(epoch, s);
}

/** Length of the total stake inference period, in slots (the phases before the nonce snapshot). */
export function totalStakeInferencePeriod(s: EpochSchedule): bigint {
  return s.nonce_snapshot_offset;
}

export const DEFAULT_CONSENSUS: ConsensusParams = {
  security_param: 120,
  active_slot_coeff: { num: 1n, den: 30n },
  epoch_stake_distribution_stabilization: 3,
  epoch_period_nonce_buffer: 3,
  epoch_period_nonce_stabilization: 4,
  stake_inference_learning_rate: { num: 1n, den: 1n },
  uncle_reference_window_in_blocks: 12,
};
