/**
 * The reference's block density and total stake inference tests (ledger/src/cryptarchia/block_density.rs,
 * ledger/src/cryptarchia/stake.rs).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  blockDensity,
  densityPeriod,
  markOccupiedSlots,
  NO_OCCUPIED_SLOTS,
  type OccupiedSlots,
} from '../../src/ledger/block-density.ts';
import {
  type ConsensusParams,
  epochSchedule,
  totalStakeInferencePeriod,
} from '../../src/ledger/parameters.ts';
import { type StakeInference, stakeInference, totalStakeInference } from '../../src/ledger/stake.ts';

function consensus(k: number, f: { num: bigint; den: bigint }): ConsensusParams {
  return {
    security_param: k,
    active_slot_coeff: f,
    epoch_stake_distribution_stabilization: 3,
    epoch_period_nonce_buffer: 3,
    epoch_period_nonce_stabilization: 4,
    stake_inference_learning_rate: { num: 1n, den: 1n },
    uncle_reference_window_in_blocks: 12,
  };
}

// ---------- block_density.rs: k = 5, f = 1/2 (base period 10, 100-slot epochs, 60-slot period)

const DENSITY_SCHEDULE = epochSchedule(consensus(5, { num: 1n, den: 2n }));

test('test_initial_block_density_is_zero (ledger/src/cryptarchia/block_density.rs)', () => {
  assert.deepEqual(densityPeriod(0, DENSITY_SCHEDULE), { first: 0n, last: 59n });
  assert.equal(blockDensity(NO_OCCUPIED_SLOTS), 0n);
});

test('test_mark_occupied_slots (ledger/src/cryptarchia/block_density.rs)', () => {
  const p = densityPeriod(1, DENSITY_SCHEDULE);
  assert.deepEqual(p, { first: 100n, last: 159n });
  let d: OccupiedSlots = NO_OCCUPIED_SLOTS;
  d = markOccupiedSlots(d, p, 100n, []);
  assert.equal(blockDensity(d), 1n);
  d = markOccupiedSlots(d, p, 159n, []);
  assert.equal(blockDensity(d), 2n);
  // Slot order does not matter.
  d = markOccupiedSlots(d, p, 140n, []);
  assert.equal(blockDensity(d), 3n);
  // Blocks outside the period are ignored.
  d = markOccupiedSlots(d, p, 95n, []);
  assert.equal(blockDensity(d), 3n);
  d = markOccupiedSlots(d, p, 160n, []);
  assert.equal(blockDensity(d), 3n);
});

test('test_mark_occupied_slots_with_uncles (ledger/src/cryptarchia/block_density.rs)', () => {
  const p = densityPeriod(1, DENSITY_SCHEDULE);
  assert.deepEqual(p, { first: 100n, last: 159n });
  // A block and its uncles are marked together.
  let d = markOccupiedSlots(NO_OCCUPIED_SLOTS, p, 110n, [105n]);
  assert.equal(blockDensity(d), 2n);
  // A slot occupied more than once counts once: 105 by another uncle, 110 by an uncle of another block.
  d = markOccupiedSlots(d, p, 120n, [105n, 110n]);
  assert.equal(blockDensity(d), 3n);
  // Uncle slots outside the period are ignored.
  d = markOccupiedSlots(d, p, 130n, [99n]);
  assert.equal(blockDensity(d), 4n);
  // A block outside the period is skipped entirely, even if its uncles are within it.
  d = markOccupiedSlots(d, p, 160n, [150n]);
  assert.equal(blockDensity(d), 4n);
});

// ---------- stake.rs: k = 10, f = 1/2, learning rate 1 (base period 20, 120-slot period)

function inferenceFor(f: { num: bigint; den: bigint }): StakeInference {
  const c = consensus(10, f);
  return stakeInference(c.stake_inference_learning_rate, f, totalStakeInferencePeriod(epochSchedule(c)));
}

const HALF = { num: 1n, den: 2n };
/** floor(period × f) as the reference's test computes it (binary64). */
const expectedDensityOf = (i: StakeInference, f: { num: bigint; den: bigint }) =>
  BigInt(Math.floor(Number(i.period) * (Number(f.num) / Number(f.den))));
const U64_MAX = (1n << 64n) - 1n;

test('test_total_stake_inference_zero_block_density (ledger/src/cryptarchia/stake.rs)', () => {
  const i = inferenceFor(HALF);
  // The minimum stake is 1.
  assert.equal(totalStakeInference(i, 1000n, 0n), 1n);
});

test('test_total_stake_inference_high_block_density (ledger/src/cryptarchia/stake.rs)', () => {
  const i = inferenceFor(HALF);
  const r = totalStakeInference(i, 1000n, expectedDensityOf(i, HALF) * 2n);
  // More blocks than expected: the stake estimate grows.
  assert.ok(r > 1000n, `${r} > 1000`);
  assert.equal(r, 2000n);
});

test('test_total_stake_inference_exact_block_density (ledger/src/cryptarchia/stake.rs)', () => {
  const i = inferenceFor(HALF);
  assert.equal(expectedDensityOf(i, HALF), 60n);
  assert.equal(totalStakeInference(i, 1000n, expectedDensityOf(i, HALF)), 1000n);
});

test('test_total_stake_inference_intermediate_block_density (ledger/src/cryptarchia/stake.rs)', () => {
  const i = inferenceFor(HALF);
  const r = totalStakeInference(i, 1000n, expectedDensityOf(i, HALF) / 2n);
  assert.ok(r < 1000n, `${r} < 1000`);
  assert.equal(r, 500n);
});

test('test_total_stake_inference_very_high_stake (ledger/src/cryptarchia/stake.rs)', () => {
  const i = inferenceFor(HALF);
  const r = totalStakeInference(i, U64_MAX, expectedDensityOf(i, HALF) / 2n);
  assert.ok(r <= U64_MAX);
  assert.equal(r, U64_MAX / 2n);
});

// ---------- the fixed point of the reference, beyond its tests

test('stake inference: f and the learning rate are truncated to thousandths of their binary64 values', () => {
  // f = 1/30: 33/1000, so a 21,600-slot period expects 712.8 occupied slots (not 720).
  const testnet = stakeInference({ num: 1n, den: 1n }, { num: 1n, den: 30n }, 21_600n);
  assert.equal(testnet.slot_activation_coeff, 33n);
  assert.equal(totalStakeInference(testnet, 1_000_000n, 720n), 1_010_101n);
  assert.equal(totalStakeInference(testnet, 1_000_000n, 712n), 998_877n);
  // h = 0.1 and 0.3 are 100 and 300 thousandths (0.1 × 1000 = 100.00000000000001 truncates to 100).
  assert.equal(stakeInference({ num: 1n, den: 10n }, HALF, 120n).learning_rate, 100n);
  assert.equal(stakeInference({ num: 3n, den: 10n }, HALF, 120n).learning_rate, 300n);
  // h = 1/2: half of the correction.
  const half = stakeInference(HALF, HALF, 120n);
  assert.equal(totalStakeInference(half, 1000n, 30n), 750n);
  // Quotients truncate towards zero, also when the density is above the expected one.
  const third = stakeInference({ num: 1n, den: 1n }, { num: 1n, den: 3n }, 100n); // expects 33.3
  assert.equal(third.slot_activation_coeff, 333n);
  assert.equal(totalStakeInference(third, 7n, 34n), 7n);
  assert.equal(totalStakeInference(third, 1000n, 34n), 1021n);
  assert.equal(totalStakeInference(third, 1000n, 20n), 600n);
});
