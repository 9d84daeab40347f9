/** The Blend PoW difficulty: tests of ledger/src/mantle/pow/{blend_difficulty,tx_density}.rs. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FR_MODULUS } from '../../src/crypto/field.ts';
import {
  type BlendPowParams,
  blendBaseDifficulty,
  closeEpoch,
  EMPTY_TX_DENSITY,
  epochBlendDifficulty,
  integerRoot,
  recordBlockTxs,
} from '../../src/ledger/blend-difficulty.ts';
import { parseDeployment } from '../../src/ledger/deployment.ts';
import { DEVNET_YAML, genesisNotes, KEYS, type Owned, TestChain, transfer } from '../mocks/ledger.ts';

/** alpha = 1/2, k = 2, T_tx = 10, BASE = p / 2^234. */
const CONFIG: BlendPowParams = {
  base_difficulty: 234,
  target_transactions_per_block: 10n,
  max_step: 2n,
  damping_num: 1,
  damping_den_offset: 1,
};
const load = (transactions: bigint, blocks: bigint) => ({ transactions, blocks });
const BASE = blendBaseDifficulty(CONFIG);

test('the_reference_load_sits_at_the_baseline (ledger/src/mantle/pow/blend_difficulty.rs)', () => {
  assert.equal(epochBlendDifficulty(load(70n, 7n), BASE, CONFIG), BASE);
});

test('the_response_to_load_is_sub_linear (ledger/src/mantle/pow/blend_difficulty.rs)', () => {
  assert.equal(epochBlendDifficulty(load(280n, 7n), BASE, CONFIG), BASE / 2n);
});

test('a_thin_epoch_eases_the_threshold (ledger/src/mantle/pow/blend_difficulty.rs)', () => {
  assert.equal(epochBlendDifficulty(load(20n, 8n), BASE, CONFIG), BASE * 2n);
});

test('an_epoch_with_no_transactions_eases_by_the_full_step (ledger/src/mantle/pow/blend_difficulty.rs)', () => {
  assert.equal(epochBlendDifficulty(load(0n, 7n), 1000n, CONFIG), 2000n);
});

test('an_epoch_with_no_blocks_eases_by_the_full_step (ledger/src/mantle/pow/blend_difficulty.rs)', () => {
  assert.equal(epochBlendDifficulty(load(0n, 0n), 1000n, CONFIG), 2000n);
});

test('the_step_is_clamped_in_both_directions (ledger/src/mantle/pow/blend_difficulty.rs)', () => {
  assert.equal(epochBlendDifficulty(load(1_000_000n, 7n), BASE, CONFIG), BASE / 2n);
  assert.equal(epochBlendDifficulty(load(1n, 7n), BASE, CONFIG), BASE * 2n);
});

test('the_clamp_is_anchored_on_the_previous_epoch_not_on_the_baseline (ledger/src/mantle/pow/blend_difficulty.rs)', () => {
  assert.equal(epochBlendDifficulty(load(1_000_000n, 7n), 1000n, CONFIG), 2000n);
});

test('a_unit_max_step_freezes_the_threshold (ledger/src/mantle/pow/blend_difficulty.rs)', () => {
  const c = { ...CONFIG, max_step: 1n };
  assert.equal(epochBlendDifficulty(load(9_999n, 7n), 1234n, c), 1234n);
  assert.equal(epochBlendDifficulty(load(0n, 7n), 1234n, c), 1234n);
});

test('undamped_settings_track_the_load_linearly (ledger/src/mantle/pow/blend_difficulty.rs)', () => {
  const c = { ...CONFIG, damping_den_offset: 0, max_step: 1000n };
  assert.equal(epochBlendDifficulty(load(280n, 7n), BASE, c), BASE / 4n);
});

test('growth_is_capped_at_the_maximum_field_element (ledger/src/mantle/pow/blend_difficulty.rs)', () => {
  const max = FR_MODULUS - 1n;
  assert.equal(epochBlendDifficulty(load(0n, 7n), max, CONFIG), max);
});

test('the_deployed_baseline_is_the_field_over_two_to_the_nineteen (ledger/src/mantle/pow/blend_difficulty.rs)', () => {
  assert.equal(blendBaseDifficulty({ ...CONFIG, base_difficulty: 19 }), FR_MODULUS >> 19n);
});

test('integer roots are floors of the exact root', () => {
  for (const [x, n, r] of [
    [0n, 2, 0n],
    [1n, 3, 1n],
    [15n, 2, 3n],
    [16n, 2, 4n],
    [17n, 2, 4n],
    [26n, 3, 2n],
    [27n, 3, 3n],
    [(1n << 487n) + 5n, 2, integerRoot(1n << 487n, 2)],
  ] as const) {
    assert.equal(integerRoot(x, n), r);
    assert.ok(r ** BigInt(n) <= x && (r + 1n) ** BigInt(n) > x);
  }
});

test('totals_accumulate_until_the_epoch_closes (ledger/src/mantle/pow/tx_density.rs)', () => {
  let d = EMPTY_TX_DENSITY;
  assert.equal(d.last_closed, null);
  d = recordBlockTxs(d, 3n);
  d = recordBlockTxs(d, 0n);
  d = recordBlockTxs(d, 7n);
  assert.equal(d.last_closed, null);
  d = closeEpoch(d);
  assert.deepEqual(d.last_closed, load(10n, 3n));
});

test('blocks_of_the_new_epoch_do_not_move_the_closed_totals (ledger/src/mantle/pow/tx_density.rs)', () => {
  let d = recordBlockTxs(EMPTY_TX_DENSITY, 5n);
  d = closeEpoch(d);
  d = recordBlockTxs(d, 100n);
  assert.deepEqual(d.last_closed, load(5n, 1n));
});

test('a_skipped_epoch_closes_as_empty (ledger/src/mantle/pow/tx_density.rs)', () => {
  let d = recordBlockTxs(EMPTY_TX_DENSITY, 5n);
  d = closeEpoch(d);
  d = closeEpoch(d);
  assert.deepEqual(d.last_closed, load(0n, 0n));
});

// ---------- the difficulty in the epoch states (ledger/src/cryptarchia/mod.rs) ----------

/** The devnet (epochs of 200 slots, nonce snapshot 120 slots in) with a Blend retarget easy to read. */
/** The devnet deployment without its own Blend puzzle setting (the reference's defaults apply). */
const NO_BLEND_POW_YAML = DEVNET_YAML.replace(/^ {2}blend:\n {4}base_difficulty: \d+\n/m, '');

function chainWithBlend(blend: BlendPowParams): TestChain {
  const lines = Object.entries(blend)
    .map(([k, v]) => `    ${k}: ${v}`)
    .join('\n');
  const d = parseDeployment(
    NO_BLEND_POW_YAML.replace('pow:\n  reward:', `pow:\n  blend:\n${lines}\n  reward:`),
  );
  assert.deepEqual(d.ledger.blend_pow, blend);
  return new TestChain(d);
}

const WIDE: BlendPowParams = {
  base_difficulty: 19,
  target_transactions_per_block: 2n,
  max_step: 1000n,
  damping_num: 1,
  damping_den_offset: 1,
};

function payTxs(c: TestChain, notes: Owned[]) {
  return notes.map((n) => transfer(c.state, [n], [{ value: 5n, pk: KEYS[1]!.publicKey }]).tx);
}

test('the deployment default is the reference template: p / 2^19, 512 per block, step 2, alpha 1/2', () => {
  const c = new TestChain(parseDeployment(NO_BLEND_POW_YAML));
  assert.deepEqual(c.ctx.config.blend_pow, {
    base_difficulty: 19,
    target_transactions_per_block: 512n,
    max_step: 2n,
    damping_num: 1,
    damping_den_offset: 1,
  });
  assert.equal(c.state.epoch_state.blend_pow_difficulty, FR_MODULUS >> 19n);
  assert.equal(c.state.next_epoch_state.blend_pow_difficulty, FR_MODULUS >> 19n);
});

test('blend_difficulty_retargets_from_the_closed_epoch_average (ledger/src/cryptarchia/mod.rs)', () => {
  const c = chainWithBlend(WIDE);
  const base = blendBaseDifficulty(WIDE);
  assert.equal(c.state.epoch_state.blend_pow_difficulty, base);
  const notes = genesisNotes(c.genesis);
  // Epoch 0: three blocks carrying 3 transactions.
  c.apply(payTxs(c, notes.slice(0, 2)), 10n);
  c.apply(payTxs(c, notes.slice(2, 3)), 20n);
  c.apply([], 70n);
  // Epoch 0 -> 1: no epoch had closed when epoch 1's value was open, so it is the base.
  c.apply([], 200n);
  assert.equal(c.state.epoch_state.epoch, 1);
  assert.equal(c.state.epoch_state.blend_pow_difficulty, base);
  // Epoch 1, blocks on both sides of epoch 2's snapshot slot (320).
  c.apply(payTxs(c, notes.slice(3, 5)), 210n);
  c.apply(payTxs(c, notes.slice(5, 7)), 330n);
  // Epoch 1 -> 2: epoch 2 reads epoch 0 (3 transactions over 3 blocks, half the reference load).
  c.apply([], 400n);
  assert.equal(c.state.epoch_state.epoch, 2);
  const expected = epochBlendDifficulty(load(3n, 3n), base, WIDE);
  assert.equal(c.state.epoch_state.blend_pow_difficulty, expected);
  assert.equal(expected, integerRoot(base * base * 2n, 2));
  assert.ok(expected > base);
});

test('blend_difficulty_reads_a_skipped_epoch_as_no_load (ledger/src/cryptarchia/mod.rs)', () => {
  const c = chainWithBlend(WIDE);
  const base = blendBaseDifficulty(WIDE);
  const notes = genesisNotes(c.genesis);
  c.apply(payTxs(c, notes.slice(0, 3)), 10n);
  // Epoch 0 -> 2: epoch 2's snapshot slot passed unused, its difficulty carries over.
  c.apply([], 444n);
  assert.equal(c.state.epoch_state.epoch, 2);
  assert.equal(c.state.epoch_state.blend_pow_difficulty, base);
  // Epoch 2 -> 3: the last closed epoch is the skipped epoch 1, read as no load.
  c.apply([], 450n);
  c.apply([], 600n);
  assert.equal(c.state.epoch_state.epoch, 3);
  assert.equal(c.state.epoch_state.blend_pow_difficulty, epochBlendDifficulty(load(0n, 0n), base, WIDE));
  assert.equal(c.state.epoch_state.blend_pow_difficulty, base * 1000n);
});

test('a new epoch takes the parent nonce when the parent came before the nonce snapshot slot (ledger/src/cryptarchia/mod.rs update_epoch_state)', () => {
  const c = new TestChain();
  c.apply([], 100n);
  const nonce = c.state.nonce;
  c.apply([], 201n);
  assert.equal(c.state.epoch_state.nonce, nonce);
});
