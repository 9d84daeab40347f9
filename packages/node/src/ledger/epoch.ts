/**
 * Epochs: the leader lottery of epoch N is drawn against a UTXO set frozen at the start of epoch N−1,
 * a nonce frozen part-way through N−1, and a total stake inferred from the block density of the
 * previous epoch's inference period. Everything that happens "at an epoch change" is driven from
 * `advanceEpoch`.
 */
import { epochLottery, lotteryConstants } from '../consensus/lottery.ts';
import { epochBlendDifficulty } from './blend-difficulty.ts';
import { blockDensity, densityPeriod, markOccupiedSlots, NO_OCCUPIED_SLOTS } from './block-density.ts';
import type { Draft } from './draft.ts';
import type { HeaderEvent } from './events.ts';
import { updateStorageMarket } from './gas.ts';
import { leaderEpochChange } from './leader-claims.ts';
import {
  type ConsensusParams,
  type EpochSchedule,
  epochOf,
  epochSchedule,
  type LedgerConfig,
  nonceSnapshotSlot,
  stakeDistributionSnapshotSlot,
  totalStakeInferencePeriod,
} from './parameters.ts';
import { powEpochChange } from './pow-claims.ts';
import { sdpEpochChange } from './sdp.ts';
import { type StakeInference, stakeInference, totalStakeInference } from './stake.ts';
import type { EpochState, LotteryValues } from './state.ts';

const schedules = new WeakMap<ConsensusParams, EpochSchedule>();

export function scheduleOf(c: ConsensusParams): EpochSchedule {
  let s = schedules.get(c);
  if (!s) {
    s = epochSchedule(c);
    schedules.set(c, s);
  }
  return s;
}

export function lotteryFor(c: ConsensusParams, totalStake: bigint): LotteryValues {
  return epochLottery(lotteryConstants(c.active_slot_coeff), totalStake < 1n ? 1n : totalStake);
}

const inferences = new WeakMap<ConsensusParams, StakeInference>();

function inferenceOf(c: ConsensusParams): StakeInference {
  let i = inferences.get(c);
  if (!i) {
    i = stakeInference(
      c.stake_inference_learning_rate,
      c.active_slot_coeff,
      totalStakeInferencePeriod(scheduleOf(c)),
    );
    inferences.set(c, i);
  }
  return i;
}

/**
 * Total stake inference from the block density measured over the inference period (`stake.ts`):
 * the stake is scaled towards observed over expected density, at least 1.
 */
export function inferTotalStake(c: ConsensusParams, stake: bigint, density: bigint): bigint {
  return totalStakeInference(inferenceOf(c), stake, density);
}

/**
 * Brings the epoch states from the parent's slot to `slot` (the slot of the block being applied).
 * Runs before the block's own contents, with the draft still holding the parent's values.
 * F: ledger/src/cryptarchia/mod.rs `update_epoch_state`.
 */
export function advanceEpoch(draft: Draft, config: LedgerConfig, slot: bigint): HeaderEvent[] {
  const c = config.consensus;
  const s = scheduleOf(c);
  const current = epochOf(draft.slot, s);
  const next = epochOf(slot, s);
  // The next epoch's snapshots follow the parent first, whichever case follows: on the block that
  // crosses into the next epoch too, the parent may still be before the nonce snapshot slot.
  const refreshed = refreshFromParent(draft.next_epoch_state, draft, s, config);
  if (next === current) {
    draft.next_epoch_state = refreshed;
    return [];
  }

  // Close the current epoch with its measured density, then any skipped ones (no blocks, no
  // storage used).
  let stake = inferTotalStake(c, draft.epoch_state.total_stake, blockDensity(draft.occupied_slots));
  let market = updateStorageMarket(
    draft.gas.storage_gas_price,
    draft.gas.storage_gas_ema,
    draft.gas.storage_gas_consumed_in_epoch,
  );
  for (let e = current + 1; e < next; e++) {
    stake = inferTotalStake(c, stake, 0n);
    market = updateStorageMarket(market.price, market.ema, 0n);
  }
  draft.gas = {
    ...draft.gas,
    storage_gas_price: market.price,
    storage_gas_ema: market.ema,
    storage_gas_consumed_in_epoch: 0n,
  };
  const lottery = lotteryFor(c, stake);

  draft.prev_epoch_nonce = draft.epoch_state.nonce;
  const fromParent = (epoch: number, blend_pow_difficulty: bigint): EpochState => ({
    epoch,
    nonce: draft.nonce,
    utxos: draft.utxos,
    notes: draft.notes,
    total_stake: stake,
    lottery,
    blend_pow_difficulty,
  });
  if (next === current + 1) {
    draft.epoch_state = { ...refreshed, epoch: next, total_stake: stake, lottery };
  } else {
    // Too many epochs were skipped for any snapshot of `next` to have been taken: the parent's, and
    // the last known Blend difficulty carries over.
    draft.epoch_state = fromParent(next, draft.epoch_state.blend_pow_difficulty);
  }
  // The next epoch keeps the Blend difficulty in effect until its own nonce snapshot retargets it.
  draft.next_epoch_state = fromParent(next + 1, draft.epoch_state.blend_pow_difficulty);
  draft.occupied_slots = NO_OCCUPIED_SLOTS;

  const events = sdpEpochChange(draft, current, next, config, s);
  leaderEpochChange(draft);
  powEpochChange(draft, config.pow, s.expected_blocks_per_epoch, next - current);
  return events;
}

/**
 * Marks the slots a block occupies, with those of the uncles it references, in the density of the
 * block's epoch. Runs after `advanceEpoch` for the block's slot.
 */
export function markBlockDensity(
  draft: Draft,
  config: LedgerConfig,
  slot: bigint,
  uncleSlots: readonly bigint[],
): void {
  const period = densityPeriod(draft.epoch_state.epoch, scheduleOf(config.consensus));
  draft.occupied_slots = markOccupiedSlots(draft.occupied_slots, period, slot, uncleSlots);
}

/**
 * The next epoch's snapshots follow the parent until their snapshot slots pass (the nonce until the
 * nonce snapshot slot, the UTXO set until the first slot of the epoch before). The Blend difficulty
 * is fixed with the nonce, from the load of the last closed epoch and the current epoch's difficulty.
 * F: ledger/src/cryptarchia/mod.rs `EpochState::update_from_ledger`.
 */
function refreshFromParent(e: EpochState, draft: Draft, s: EpochSchedule, config: LedgerConfig): EpochState {
  const takeNonce = draft.slot < nonceSnapshotSlot(e.epoch, s);
  const takeUtxos = draft.slot < stakeDistributionSnapshotSlot(e.epoch, s);
  if (!takeNonce && !takeUtxos) return e;
  const closed = draft.pow.tx_density.last_closed;
  const current = draft.epoch_state.blend_pow_difficulty;
  return {
    ...e,
    nonce: takeNonce ? draft.nonce : e.nonce,
    blend_pow_difficulty: takeNonce
      ? closed === null
        ? current
        : epochBlendDifficulty(closed, current, config.blend_pow)
      : e.blend_pow_difficulty,
    utxos: takeUtxos ? draft.utxos : e.utxos,
    notes: takeUtxos ? draft.notes : e.notes,
  };
}
