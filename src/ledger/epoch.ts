/**
 * Epochs: the leader lottery of epoch N is drawn against a UTXO set frozen at the start of epoch N−1,
 * a nonce frozen part-way through N−1, and a total stake inferred from how many blocks the previous
 * epoch produced. Everything that happens "at an epoch change" is driven from `advanceEpoch`.
 */
import { epochLottery, lotteryConstants } from '../consensus/lottery.ts';
import { epochBlendDifficulty } from './blend-difficulty.ts';
import {
  type ConsensusParams,
  type EpochSchedule,
  epochOf,
  epochSchedule,
  type LedgerConfig,
  nonceSnapshotSlot,
  stakeDistributionSnapshotSlot,
} from './config.ts';
import type { Draft } from './draft.ts';
import type { HeaderEvent } from './events.ts';
import { updateStorageMarket } from './gas.ts';
import { leaderEpochChange } from './leader.ts';
import { powEpochChange } from './pow.ts';
import { sdpEpochChange } from './sdp.ts';
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

/**
 * Total stake inference: with h the learning rate, T the epoch length and N the blocks produced,
 * `S' = S − h·S·(T·f − N)/(T·f)`, at least 1. With h = 1 this is `S·N/(T·f)`: stake is scaled by the
 * observed over the expected block density.
 */
export function inferTotalStake(c: ConsensusParams, s: EpochSchedule, stake: bigint, blocks: bigint): bigint {
  const f = c.active_slot_coeff;
  const h = c.stake_inference_learning_rate;
  const expectedNum = s.epoch_length * f.num; // T·f = expectedNum / f.den
  const num = stake * (h.den - h.num) * expectedNum + h.num * stake * blocks * f.den;
  const next = num / (h.den * expectedNum);
  return next < 1n ? 1n : next;
}

/**
 * Brings the epoch states from the parent's slot to `slot` (the slot of the block being applied).
 * Runs before the block's own contents, with the draft still holding the parent's values.
 */
export function advanceEpoch(draft: Draft, config: LedgerConfig, slot: bigint): HeaderEvent[] {
  const c = config.consensus;
  const s = scheduleOf(c);
  const current = epochOf(draft.slot, s);
  const next = epochOf(slot, s);
  if (next === current) {
    draft.next_epoch_state = refreshFromParent(draft.next_epoch_state, draft, s, config);
    return [];
  }

  // Close the current epoch, then any skipped ones (no blocks, no storage used).
  let stake = inferTotalStake(c, s, draft.epoch_state.total_stake, draft.blocks_in_epoch);
  let market = updateStorageMarket(
    draft.gas.storage_gas_price,
    draft.gas.storage_gas_ema,
    draft.gas.storage_gas_consumed_in_epoch,
  );
  for (let e = current + 1; e < next; e++) {
    stake = inferTotalStake(c, s, stake, 0n);
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
    // F: ledger/src/cryptarchia/mod.rs refreshes the next epoch's snapshots from the parent first,
    // whatever the new slot.
    const refreshed = refreshFromParent(draft.next_epoch_state, draft, s, config);
    draft.epoch_state = { ...refreshed, epoch: next, total_stake: stake, lottery };
  } else {
    // Skipped epochs: no snapshot was taken, the last known Blend difficulty carries over.
    draft.epoch_state = fromParent(next, draft.epoch_state.blend_pow_difficulty);
  }
  // The next epoch keeps the Blend difficulty in effect until its own nonce snapshot retargets it.
  draft.next_epoch_state = fromParent(next + 1, draft.epoch_state.blend_pow_difficulty);
  draft.blocks_in_epoch = 0n;

  const events = sdpEpochChange(draft, next - 1, next, config.sdp);
  leaderEpochChange(draft);
  powEpochChange(draft, config.pow, s.expected_blocks_per_epoch, next - current);
  return events;
}

/**
 * The next epoch's snapshots follow the parent until their snapshot slots pass. The Blend difficulty
 * is fixed with the nonce, from the load of the last closed epoch and the current epoch's difficulty
 * (F: ledger/src/cryptarchia/mod.rs `update_from_ledger`).
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
