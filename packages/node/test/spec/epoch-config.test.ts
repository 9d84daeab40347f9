/**
 * The reference's epoch schedule tests (ledger/src/config.rs, consensus/cryptarchia-engine/src/config.rs).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  type ConsensusParams,
  EpochScheduleError,
  epochOf,
  epochSchedule,
  nonceSnapshotSlot,
  stakeDistributionSnapshotSlot,
  totalStakeSnapshotSlot,
} from '../../src/ledger/parameters.ts';

function consensus(k: number, f: { num: bigint; den: bigint }, lr = { num: 1n, den: 1n }): ConsensusParams {
  return {
    security_param: k,
    active_slot_coeff: f,
    epoch_stake_distribution_stabilization: 3,
    epoch_period_nonce_buffer: 3,
    epoch_period_nonce_stabilization: 4,
    stake_inference_learning_rate: lr,
    uncle_reference_window_in_blocks: 12,
  };
}

/** k = 5, f = 1/2, 3/3/4 phases: the reference's ledger config tests. */
const S = epochSchedule(consensus(5, { num: 1n, den: 2n }));

test('epoch_snapshots (ledger/src/config.rs)', () => {
  assert.equal(S.epoch_length, 100n);
  assert.equal(nonceSnapshotSlot(1, S), 60n);
  assert.equal(nonceSnapshotSlot(2, S), 160n);
  assert.equal(totalStakeSnapshotSlot(1, S), 60n);
  assert.equal(totalStakeSnapshotSlot(2, S), 160n);
  assert.equal(stakeDistributionSnapshotSlot(1, S), 0n);
  assert.equal(stakeDistributionSnapshotSlot(2, S), 100n);
});

test('stake_distribution_snapshot_panics_at_epoch_zero (ledger/src/config.rs)', () => {
  assert.throws(() => stakeDistributionSnapshotSlot(0, S), EpochScheduleError);
});

test('nonce_snapshot_panics_at_epoch_zero (ledger/src/config.rs)', () => {
  assert.throws(() => nonceSnapshotSlot(0, S), EpochScheduleError);
});

test('slot_to_epoch (ledger/src/config.rs)', () => {
  assert.equal(epochOf(1n, S), 0);
  assert.equal(epochOf(100n, S), 1);
  assert.equal(epochOf(101n, S), 1);
  assert.equal(epochOf(200n, S), 2);
});

test('base period, s_gen and uncle window are floors of binary64 quotients, as the reference computes them', () => {
  // 99 / (9/11): 121 exactly, but 9/11 in binary64 is slightly above 9/11, so the quotient is
  // 120.99999999999999 and its floor 120.
  const s = epochSchedule({ ...consensus(99, { num: 9n, den: 11n }), uncle_reference_window_in_blocks: 99 });
  assert.equal(s.base_period, 120n);
  assert.equal(s.epoch_length, 1200n);
  assert.equal(s.nonce_snapshot_offset, 720n);
  assert.equal(s.uncle_window_slots, 120n);
  // 396 / (4 · 9/11): 121 exactly, 120 in binary64.
  assert.equal(epochSchedule(consensus(396, { num: 9n, den: 11n })).s_gen, 120n);
  // The deployments' values are unaffected.
  const testnet = epochSchedule(consensus(120, { num: 1n, den: 30n }));
  assert.equal(testnet.base_period, 3600n);
  assert.equal(testnet.epoch_length, 36_000n);
  assert.equal(testnet.s_gen, 900n);
  assert.equal(testnet.uncle_window_slots, 360n);
});
