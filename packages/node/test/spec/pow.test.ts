/**
 * PoW reward claims and the reward target: tests of the reference's
 * ledger/src/mantle/pow/{difficulty,mod}.rs and core/src/mantle/ops/pow.rs.
 * The reference's constants are compile-time; here they are the deployment's, so each test passes
 * the values the reference test uses.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FR_MODULUS } from '../../src/crypto/field.ts';
import { digest } from '../../src/crypto/poseidon2/index.ts';
import { DeploymentError, parseDeployment } from '../../src/ledger/deployment.ts';
import { Draft, type LedgerContext } from '../../src/ledger/draft.ts';
import { LedgerError } from '../../src/ledger/errors.ts';
import { blockRewards, emptyFeeWindow } from '../../src/ledger/gas.ts';
import type { OpEnv } from '../../src/ledger/op-env.ts';
import type { PowRewardParams } from '../../src/ledger/parameters.ts';
import {
  acceptClaimBlock,
  addPowRefill,
  applyClaimPowReward,
  epochPowReward,
  MAX_POW_TARGET,
  nextRewardTarget,
  powEpochChange,
  powTicket,
  prunePowWindow,
} from '../../src/ledger/pow-claims.ts';
import type { PowState } from '../../src/ledger/state.ts';
import { noteId } from '../../src/mantle/note.ts';
import { type ClaimPowRewardOp, Opcode, opId } from '../../src/mantle/ops.ts';
import { DEVNET, DEVNET_YAML, TestChain } from '../mocks/ledger.ts';

const U64_MAX = 0xffff_ffff_ffff_ffffn;

function rejects(fn: () => unknown, code: string) {
  assert.throws(fn, (e: unknown) => e instanceof LedgerError && e.ledgerCode === code, `expected ${code}`);
}

// ---------- ledger/src/mantle/pow/difficulty.rs ----------

/** `q = 9/10`, `T = 10`. */
const DIFF = { ema_smoothing_factor: 9n, ema_smoothing_precision: 10n, target_claims_per_block: 10n };

test('on_target_claims_leave_the_target_unchanged (ledger/src/mantle/pow/difficulty.rs)', () => {
  assert.equal(nextRewardTarget(10n, 1000n, DIFF), 1000n);
});

test('excess_claims_harden_the_target (ledger/src/mantle/pow/difficulty.rs)', () => {
  assert.equal(nextRewardTarget(20n, 1000n, DIFF), 909n);
});

test('missing_claims_ease_the_target (ledger/src/mantle/pow/difficulty.rs)', () => {
  assert.equal(nextRewardTarget(5n, 1000n, DIFF), 1052n);
});

test('empty_block_growth_is_bounded_by_the_smoothing_factor (ledger/src/mantle/pow/difficulty.rs)', () => {
  assert.equal(nextRewardTarget(0n, 1000n, DIFF), 1111n);
});

test('growth_is_capped_at_the_maximum_field_element (ledger/src/mantle/pow/difficulty.rs)', () => {
  assert.equal(MAX_POW_TARGET, FR_MODULUS - 1n);
  assert.equal(nextRewardTarget(0n, MAX_POW_TARGET, DIFF), MAX_POW_TARGET);
});

test('realistic_magnitude_target_stays_in_range (ledger/src/mantle/pow/difficulty.rs)', () => {
  assert.equal(nextRewardTarget(10n, 1n << 250n, DIFF), 1n << 250n);
});

test('claim_flood_drives_the_target_to_zero (ledger/src/mantle/pow/difficulty.rs)', () => {
  assert.equal(nextRewardTarget(U64_MAX, 1000n, DIFF), 0n);
});

test('zero_target_is_absorbing (ledger/src/mantle/pow/difficulty.rs)', () => {
  assert.equal(nextRewardTarget(0n, 0n, DIFF), 0n);
});

test('no_smoothing_with_empty_block_takes_a_large_bounded_easing_step (ledger/src/mantle/pow/difficulty.rs)', () => {
  assert.equal(nextRewardTarget(0n, 1000n, { ...DIFF, ema_smoothing_factor: 0n }), 100_000n);
});

test('full_smoothing_freezes_the_target (ledger/src/mantle/pow/difficulty.rs)', () => {
  const full = { ...DIFF, ema_smoothing_factor: 10n };
  assert.equal(nextRewardTarget(0n, 1000n, full), 1000n);
  assert.equal(nextRewardTarget(1_000_000n, 1000n, full), 1000n);
});

test('smoothing_factor_above_precision_is_rejected (ledger/src/mantle/pow/difficulty.rs)', () => {
  assert.throws(
    () => nextRewardTarget(10n, 1000n, { ...DIFF, ema_smoothing_factor: 11n }),
    /EMA_SMOOTHING_FACTOR must not exceed/,
  );
  // A deployment with such constants is refused when it is read.
  const yaml = DEVNET_YAML.replace('ema_smoothing_factor: 9', 'ema_smoothing_factor: 11');
  assert.throws(
    () => parseDeployment(yaml),
    (e) => e instanceof DeploymentError && /must not exceed/.test(e.message),
  );
});

// ---------- ledger/src/mantle/pow/mod.rs ----------

const POW_REWARD_POOL_GENESIS = 1_000_000_000n;

/** A payout rate of 1/100: rate 1/1, 10 claims per block, 10 blocks per epoch. */
const TEST_RATE: PowRewardParams = {
  ...DEVNET.ledger.pow,
  rate_num: 1n,
  rate_den: 1n,
  target_claims_per_block: 10n,
};
const TEST_EXPECTED_BLOCKS = 10n;

/** A draft holding only a PoW state (what the epoch-change step reads and writes). */
function powDraft(pow: Partial<PowState> = {}): Draft {
  const d = new Draft(new TestChain().state);
  d.pow = { ...d.pow, pool: POW_REWARD_POOL_GENESIS, refill: 0n, nullifiers: [], recent_blocks: [], ...pow };
  return d;
}
const boundary = (d: Draft, p: PowRewardParams = TEST_RATE, blocks = TEST_EXPECTED_BLOCKS) =>
  powEpochChange(d, p, blocks);
const refill = (d: Draft, r: bigint) => {
  d.pow = addPowRefill(d.pow, r);
};

test('new_state_starts_with_genesis_values (ledger/src/mantle/pow/mod.rs)', () => {
  const c = new TestChain();
  const p = DEVNET.ledger.pow;
  assert.equal(c.state.pow.pool, p.reward_pool_genesis);
  assert.equal(c.state.pow.epoch_reward, p.epoch_reward_genesis);
  assert.notEqual(c.state.pow.target, 0n);
  assert.deepEqual(c.state.pow.nullifiers, []);
  // The genesis block is the only seen block (F: `Ledger::new` records the root block).
  assert.equal(c.state.pow.recent_blocks.length, 1);
  assert.equal(c.state.pow.recent_blocks[0]!.slot, 0n);
});

test('compute_epoch_pow_reward_applies_rate (ledger/src/mantle/pow/mod.rs)', () => {
  assert.equal(epochPowReward(1_000n, 1n, 100n), 10n);
  assert.equal(epochPowReward(0n, 1n, 100n), 0n);
  assert.equal(epochPowReward(150n, 1n, 100n), 1n);
  assert.equal(epochPowReward(99n, 1n, 100n), 0n);
});

test('compute_epoch_pow_reward_disabled_is_always_zero (ledger/src/mantle/pow/mod.rs)', () => {
  assert.equal(epochPowReward(U64_MAX, 0n, 1n), 0n);
});

test('compute_epoch_pow_reward_does_not_overflow_on_full_pool (ledger/src/mantle/pow/mod.rs)', () => {
  assert.equal(epochPowReward(U64_MAX, 2n, 4n), U64_MAX / 2n);
  // A result beyond u64 saturates.
  assert.equal(epochPowReward(U64_MAX, 3n, 1n), U64_MAX);
});

test('add_rewards_to_pool_moves_refill_and_computes_reward (ledger/src/mantle/pow/mod.rs)', () => {
  const d = powDraft();
  refill(d, 1_000n);
  boundary(d);
  assert.equal(d.pow.pool, POW_REWARD_POOL_GENESIS + 1_000n);
  assert.equal(d.pow.epoch_reward, (POW_REWARD_POOL_GENESIS + 1_000n) / 100n);
});

test('add_rewards_to_pool_accumulates_across_multiple_refills (ledger/src/mantle/pow/mod.rs)', () => {
  const d = powDraft();
  refill(d, 400n);
  refill(d, 600n);
  boundary(d);
  assert.equal(d.pow.pool, POW_REWARD_POOL_GENESIS + 1_000n);
});

test('add_rewards_to_pool_is_noop_on_pool_when_no_refill_is_pending (ledger/src/mantle/pow/mod.rs)', () => {
  const d = powDraft();
  refill(d, 1_000n);
  boundary(d);
  boundary(d);
  assert.equal(d.pow.pool, POW_REWARD_POOL_GENESIS + 1_000n);
  assert.equal(d.pow.epoch_reward, (POW_REWARD_POOL_GENESIS + 1_000n) / 100n);
});

test('add_rewards_to_pool_recomputes_reward_from_new_pool_each_time (ledger/src/mantle/pow/mod.rs)', () => {
  const d = powDraft();
  refill(d, 1_000n);
  boundary(d);
  assert.equal(d.pow.epoch_reward, (POW_REWARD_POOL_GENESIS + 1_000n) / 100n);
  refill(d, 9_000n);
  boundary(d);
  assert.equal(d.pow.pool, POW_REWARD_POOL_GENESIS + 10_000n);
  assert.equal(d.pow.epoch_reward, (POW_REWARD_POOL_GENESIS + 10_000n) / 100n);
});

test('refill_rewards_saturate_instead_of_overflowing (ledger/src/mantle/pow/mod.rs)', () => {
  const d = powDraft();
  refill(d, U64_MAX);
  refill(d, 1n);
  assert.equal(d.pow.refill, U64_MAX);
  boundary(d);
  assert.equal(d.pow.pool, U64_MAX);
});

test('reward_pool_saturates_instead_of_overflowing (ledger/src/mantle/pow/mod.rs)', () => {
  const d = powDraft();
  refill(d, U64_MAX);
  boundary(d);
  refill(d, U64_MAX);
  boundary(d);
  assert.equal(d.pow.pool, U64_MAX);
});

// The epoch-transition tests run through whole blocks: the PoW epoch step runs once per block
// that enters a new epoch (the devnet epoch is 200 slots).
const EPOCH = 200n;

test('try_apply_header_is_noop_when_epoch_does_not_advance (ledger/src/mantle/pow/mod.rs)', () => {
  const c = new TestChain();
  c.apply([], 1n);
  const before = c.state.pow;
  c.apply([], 2n);
  assert.equal(c.state.pow.pool, before.pool);
  assert.equal(c.state.pow.epoch_reward, before.epoch_reward);
});

test('try_apply_header_does_not_mutate_the_receiver (ledger/src/mantle/pow/mod.rs)', () => {
  const c = new TestChain();
  c.apply([], 1n);
  const parent = c.state;
  const pow = structuredClone(parent.pow);
  c.apply([], EPOCH + 1n);
  assert.deepEqual(parent.pow, pow);
});

test('try_apply_header_moves_pending_refill_into_pool_on_advance (ledger/src/mantle/pow/mod.rs)', () => {
  const c = new TestChain();
  c.apply([], 1n);
  const { pool, refill: pending } = c.state.pow;
  c.apply([], EPOCH + 1n);
  assert.equal(c.state.pow.pool, pool + pending);
});

test('try_apply_header_leaves_reward_claiming_disabled (ledger/src/mantle/pow/mod.rs)', () => {
  // The reference refills with a zero rate: the epoch reward is 0 after the first epoch change.
  const pow = { ...DEVNET.ledger.pow, rate_num: 0n };
  const d = parseDeployment(DEVNET_YAML.replace('rate_num: 1', 'rate_num: 0'));
  assert.equal(d.ledger.pow.rate_num, 0n);
  const c = new TestChain(d);
  assert.equal(c.state.pow.epoch_reward, pow.epoch_reward_genesis);
  c.apply([], EPOCH + 1n);
  assert.equal(c.state.pow.epoch_reward, 0n);
  assert.equal(c.state.pow.pool, pow.reward_pool_genesis);
});

test('try_apply_header_across_multiple_epoch_jump_applies_once (ledger/src/mantle/pow/mod.rs)', () => {
  const c = new TestChain();
  c.apply([], 1n);
  const { pool, refill: pending } = c.state.pow;
  c.apply([], 5n * EPOCH + 1n);
  assert.equal(c.state.pow.pool, pool + pending);
});

test('try_apply_header_preserves_pending_refill_across_noop_transitions (ledger/src/mantle/pow/mod.rs)', () => {
  const c = new TestChain();
  c.apply([], 1n);
  c.apply([], 2n);
  const { pool, refill: pending } = c.state.pow;
  c.apply([], EPOCH + 1n);
  assert.equal(c.state.pow.pool, pool + pending);
});

const BLOCK_A = new Uint8Array(32).fill(1);
const BLOCK_B = new Uint8Array(32).fill(2);
const SLOT_WINDOW = 100;

test('seen_block_slots_are_pruned_once_they_age_out_of_the_window (ledger/src/mantle/pow/mod.rs)', () => {
  const w = BigInt(SLOT_WINDOW);
  let pow = powDraft({
    recent_blocks: [
      { id: BLOCK_A, slot: 5n },
      { id: BLOCK_B, slot: 5n + w },
    ],
  }).pow;
  pow = prunePowWindow(pow, 5n + w, SLOT_WINDOW);
  assert.deepEqual(
    pow.recent_blocks.map((b) => b.slot),
    [5n, 5n + w],
  );
  pow = prunePowWindow(pow, 5n + w + 1n, SLOT_WINDOW);
  assert.deepEqual(
    pow.recent_blocks.map((b) => b.id),
    [BLOCK_B],
  );
});

test('nullifiers_are_pruned_once_they_age_out_of_the_window (ledger/src/mantle/pow/mod.rs)', () => {
  const w = BigInt(SLOT_WINDOW);
  let pow = powDraft({
    nullifiers: [
      { nullifier: 1n, slot: 5n },
      { nullifier: 2n, slot: 5n + w },
    ],
  }).pow;
  pow = prunePowWindow(pow, 5n + w, SLOT_WINDOW);
  assert.deepEqual(
    pow.nullifiers.map((n) => n.nullifier),
    [1n, 2n],
  );
  pow = prunePowWindow(pow, 5n + w + 1n, SLOT_WINDOW);
  assert.deepEqual(
    pow.nullifiers.map((n) => n.nullifier),
    [2n],
  );
});

test('epoch_reward_tapers_as_claims_drain_the_pool (ledger/src/mantle/pow/mod.rs)', () => {
  const d = powDraft();
  refill(d, 1_000n);
  boundary(d);
  assert.equal(d.pow.epoch_reward, (POW_REWARD_POOL_GENESIS + 1_000n) / 100n);
  d.pow = { ...d.pow, pool: 990n };
  boundary(d);
  assert.equal(d.pow.epoch_reward, 9n);
  d.pow = { ...d.pow, pool: 99n };
  boundary(d);
  assert.equal(d.pow.epoch_reward, 0n);
});

test('claim_execution_result_does_not_clobber_pending_refill (ledger/src/mantle/pow/mod.rs)', () => {
  const d = powDraft();
  refill(d, 1_000n);
  boundary(d);
  refill(d, 500n);
  d.pow = { ...d.pow, pool: 990n, nullifiers: [{ nullifier: 1n, slot: 7n }] };
  boundary(d);
  assert.equal(d.pow.pool, 1_490n);
  assert.equal(d.pow.epoch_reward, 14n);
});

test('try_apply_header_carries_nullifiers_forward (ledger/src/mantle/pow/mod.rs)', () => {
  const d = powDraft({ pool: 0n, nullifiers: [{ nullifier: 1n, slot: 7n }] });
  boundary(d);
  assert.deepEqual(d.pow.nullifiers, [{ nullifier: 1n, slot: 7n }]);
});

// ---------- the PoW share of the block reward (ledger/src/lib.rs compute_block_rewards) ----------

test('the PoW refill is its share of the block reward, 0 with the reference share 0/4 (ledger/src/lib.rs)', () => {
  const args = [emptyFeeWindow(), 1n, 1_000n, 0n, 1_000_000n] as const;
  const zero = blockRewards(...args, { num: 0n, den: 4n });
  assert.equal(zero.pow, 0n);
  const quarter = blockRewards(...args, { num: 1n, den: 4n });
  const sixTenths = zero.blend;
  // The same numerator and denominator as the Blend and leader shares: 1/4 of the reward.
  assert.equal(quarter.pow, (sixTenths * 10n) / 6n / 4n);
});

// ---------- core/src/mantle/ops/pow.rs ----------

const CURRENT_EPOCH = 5n;
const PREVIOUS_EPOCH = 4n;
const CLAIM_BLOCK_HASH = new Uint8Array(32).fill(1);

/** The reference tests' stand-in nonce of an epoch: `digest([Fr(epoch LE)])`. */
const nonceForEpoch = (epoch: bigint): bigint => digest([epoch]);

function claimOp(epoch: bigint, pk = 42n): ClaimPowRewardOp {
  return { epoch_nonce: nonceForEpoch(epoch), block_hash: CLAIM_BLOCK_HASH, public_key: pk };
}

interface ClaimContext {
  slot: bigint;
  target: bigint;
  epochReward: bigint;
  pool: bigint;
  blocks: { id: Uint8Array; slot: bigint }[];
  nullifiers: { nullifier: bigint; slot: bigint }[];
  ctx: LedgerContext;
}

/** The reference's accepting context: funded pool, target p − 1, claim block 5 slots back. */
function accepting(over: Partial<ClaimContext> = {}): ClaimContext {
  const c = new TestChain();
  return {
    slot: 50n,
    target: FR_MODULUS - 1n,
    epochReward: 10n,
    pool: 1_000n,
    blocks: [{ id: CLAIM_BLOCK_HASH, slot: 45n }],
    nullifiers: [],
    ctx: c.ctx,
    ...over,
  };
}

function runClaim(op: ClaimPowRewardOp, k: ClaimContext) {
  const draft = new Draft(new TestChain().state);
  draft.epoch_state = { ...draft.epoch_state, nonce: nonceForEpoch(CURRENT_EPOCH) };
  draft.prev_epoch_nonce = nonceForEpoch(PREVIOUS_EPOCH);
  draft.pow = {
    ...draft.pow,
    target: k.target,
    epoch_reward: k.epochReward,
    pool: k.pool,
    recent_blocks: k.blocks,
    nullifiers: k.nullifiers,
  };
  const env: OpEnv = {
    ctx: k.ctx,
    draft,
    txHash: new Uint8Array(32).fill(11),
    txMsg: 0n,
    opIndex: 0,
    slot: k.slot,
    genesis: false,
  };
  return { event: applyClaimPowReward(env, op), draft };
}

/**
 * Runs a claim the reference accepts and checks its result (F: `verify` returns `Ok(())` and `execute`
 * applies it): the reward note is minted to the claimant, the pool pays the reward, the ticket is spent
 * against the anchor block's slot.
 */
function claimAccepted(op: ClaimPowRewardOp, k: ClaimContext) {
  const r = runClaim(op, k);
  const ticket = powTicket(op.epoch_nonce, op.block_hash, op.public_key);
  const id = opId({ opcode: Opcode.ClaimPowReward, payload: op });
  const note = { value: k.epochReward, pk: op.public_key };
  assert.deepEqual(r.event, {
    type: 'PoWRewardClaimed',
    pow_nullifier: ticket,
    utxo: { op_id: id, output_index: 0, note },
  });
  assert.equal(r.draft.notes.get(noteId(id, 0, note))?.note.value, k.epochReward);
  assert.equal(r.draft.pow.pool, k.pool - k.epochReward);
  assert.deepEqual(r.draft.pow.nullifiers, [...k.nullifiers, { nullifier: ticket, slot: k.blocks[0]!.slot }]);
}

test('pow_reward_enabled_accepts_pool_exactly_covering_the_reward (core/src/mantle/ops/pow.rs)', () => {
  // The last reward is paid out: the pool is left empty.
  claimAccepted(claimOp(CURRENT_EPOCH), accepting({ epochReward: 10n, pool: 10n }));
});

test('pow_reward_enabled_rejects_pool_below_the_reward (core/src/mantle/ops/pow.rs)', () => {
  rejects(
    () => runClaim(claimOp(CURRENT_EPOCH), accepting({ epochReward: 10n, pool: 9n })),
    'RewardPoolExhausted',
  );
});

test('pow_reward_enabled_rejects_zero_reward (core/src/mantle/ops/pow.rs)', () => {
  rejects(
    () => runClaim(claimOp(CURRENT_EPOCH), accepting({ epochReward: 0n, pool: 1_000n })),
    'RewardsDisabled',
  );
});

test('a zero payout rate does not disable claims while the epoch reward is positive (core/src/mantle/ops/pow.rs are_pow_reward_enabled)', () => {
  const base = new TestChain().ctx;
  const ctx = { ...base, config: { ...base.config, pow: { ...base.config.pow, rate_num: 0n } } };
  claimAccepted(claimOp(CURRENT_EPOCH), accepting({ ctx }));
});

test('puzzle_ticket_is_deterministic_and_binds_every_field (core/src/mantle/ops/pow.rs)', () => {
  const t = (o: ClaimPowRewardOp) => powTicket(o.epoch_nonce, o.block_hash, o.public_key);
  const op = claimOp(CURRENT_EPOCH);
  assert.equal(t(op), t(claimOp(CURRENT_EPOCH)));
  assert.notEqual(t(op), t({ ...op, epoch_nonce: nonceForEpoch(CURRENT_EPOCH + 1n) }));
  assert.notEqual(t(op), t({ ...op, block_hash: new Uint8Array(32).fill(2) }));
  assert.notEqual(t(op), t({ ...op, public_key: 43n }));
});

test('accept_claim_accepts_blocks_inside_the_window (core/src/mantle/ops/pow.rs)', () => {
  // The accepted block is the claim's own (another recent block listed first is not taken).
  const other = { id: new Uint8Array(32).fill(7), slot: 48n };
  // Gap of zero: the claim's block is the current block.
  assert.deepEqual(
    acceptClaimBlock([other, { id: CLAIM_BLOCK_HASH, slot: 50n }], 50n, CLAIM_BLOCK_HASH, 10),
    {
      id: CLAIM_BLOCK_HASH,
      slot: 50n,
    },
  );
  // Gap exactly equal to the window is still inside it.
  assert.deepEqual(
    acceptClaimBlock([other, { id: CLAIM_BLOCK_HASH, slot: 40n }], 50n, CLAIM_BLOCK_HASH, 10),
    {
      id: CLAIM_BLOCK_HASH,
      slot: 40n,
    },
  );
});

test('accept_claim_rejects_unknown_block (core/src/mantle/ops/pow.rs)', () => {
  rejects(
    () => acceptClaimBlock([{ id: CLAIM_BLOCK_HASH, slot: 45n }], 50n, new Uint8Array(32).fill(9), 10),
    'UnknownPowBlock',
  );
});

test('accept_claim_rejects_block_beyond_the_window (core/src/mantle/ops/pow.rs)', () => {
  rejects(
    () => acceptClaimBlock([{ id: CLAIM_BLOCK_HASH, slot: 39n }], 50n, CLAIM_BLOCK_HASH, 10),
    'PowClaimOutsideWindow',
  );
});

test('accept_claim_rejects_block_from_the_future (core/src/mantle/ops/pow.rs)', () => {
  rejects(
    () => acceptClaimBlock([{ id: CLAIM_BLOCK_HASH, slot: 51n }], 50n, CLAIM_BLOCK_HASH, 10),
    'PowClaimOutsideWindow',
  );
});

test('validate_accepts_claim_with_current_epoch_nonce (core/src/mantle/ops/pow.rs)', () => {
  claimAccepted(claimOp(CURRENT_EPOCH), accepting());
});

test('validate_accepts_claim_with_previous_epoch_nonce (core/src/mantle/ops/pow.rs)', () => {
  claimAccepted(claimOp(PREVIOUS_EPOCH), accepting());
});

test('validate_rejects_claim_with_stale_epoch_nonce (core/src/mantle/ops/pow.rs)', () => {
  rejects(() => runClaim(claimOp(PREVIOUS_EPOCH - 1n), accepting()), 'InvalidEpochNonce');
});

test('validate_rejects_ticket_above_the_reward_difficulty (core/src/mantle/ops/pow.rs)', () => {
  rejects(() => runClaim(claimOp(CURRENT_EPOCH), accepting({ target: 0n })), 'TicketAboveTarget');
});

test('validate_rejects_ticket_equal_to_the_reward_difficulty (core/src/mantle/ops/pow.rs)', () => {
  const op = claimOp(CURRENT_EPOCH);
  const ticket = powTicket(op.epoch_nonce, op.block_hash, op.public_key);
  rejects(() => runClaim(op, accepting({ target: ticket })), 'TicketAboveTarget');
});

test('validate_rejects_already_claimed_ticket (core/src/mantle/ops/pow.rs)', () => {
  const op = claimOp(CURRENT_EPOCH);
  const ticket = powTicket(op.epoch_nonce, op.block_hash, op.public_key);
  rejects(
    () => runClaim(op, accepting({ nullifiers: [{ nullifier: ticket, slot: 45n }] })),
    'PowNullifierUsed',
  );
});

test('execute_issues_reward_utxo_and_registers_nullifier (core/src/mantle/ops/pow.rs)', () => {
  const op = claimOp(CURRENT_EPOCH);
  const { event, draft } = runClaim(op, accepting({ epochReward: 10n, pool: 1_000n }));
  const ticket = powTicket(op.epoch_nonce, op.block_hash, op.public_key);
  // The spent ticket is recorded against the anchor block's slot, and the pool pays out the reward.
  assert.deepEqual(
    draft.pow.nullifiers.find((n) => n.nullifier === ticket),
    { nullifier: ticket, slot: 45n },
  );
  assert.equal(draft.pow.pool, 990n);
  const id = opId({ opcode: Opcode.ClaimPowReward, payload: op });
  const note = { value: 10n, pk: op.public_key };
  assert.equal(draft.notes.get(noteId(id, 0, note))?.note.value, 10n);
  assert.deepEqual(event, {
    type: 'PoWRewardClaimed',
    pow_nullifier: ticket,
    utxo: { op_id: id, output_index: 0, note },
  });
});

test('execute_panics_when_pool_cannot_cover_the_reward (core/src/mantle/ops/pow.rs)', () => {
  // The reference aborts in execution; the shortfall is refused before any note is minted.
  const op = claimOp(CURRENT_EPOCH);
  rejects(() => runClaim(op, accepting({ epochReward: 10n, pool: 5n })), 'RewardPoolExhausted');
});
