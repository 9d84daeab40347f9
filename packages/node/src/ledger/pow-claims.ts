/**
 * Proof-of-work reward claims (opcode 64): a ticket `digest([epoch_nonce, block_hash mod p, pk])`
 * below the reward target, for a recent block of this branch, claims the epoch reward once.
 * F: core/src/mantle/ops/pow.rs (claim rules), ledger/src/mantle/pow/{mod,difficulty}.rs (state).
 */

import { bytesEqual } from '../codec/hex.ts';
import { U64_MAX } from '../codec/schema.ts';
import { FR_MODULUS, frFromBytesModOrder } from '../crypto/field.ts';
import { digest } from '../crypto/poseidon2/index.ts';
import { type ClaimPowRewardOp, Opcode, opId } from '../mantle/ops.ts';
import { closeEpoch, recordBlockTxs } from './blend-difficulty.ts';
import type { Draft } from './draft.ts';
import { fail } from './errors.ts';
import type { TxEventPayload } from './events.ts';
import type { OpEnv } from './op-env.ts';
import type { PowRewardParams } from './parameters.ts';
import type { PowState, RecentBlock } from './state.ts';

/** The largest reward target: p − 1, the largest field element. */
export const MAX_POW_TARGET = FR_MODULUS - 1n;

/** The PoW ticket, which is also the claim's nullifier. */
export function powTicket(epochNonce: bigint, blockHash: Uint8Array, publicKey: bigint): bigint {
  return digest([epochNonce, frFromBytesModOrder(blockHash), publicKey]);
}

// inferred: the genesis reward target is the deployment's `initial_target`, else p / 2^initial_difficulty;
// F seeds a placeholder (docs/design/fidelity.md)
export function initialPowTarget(p: PowRewardParams): bigint {
  return p.initial_target ?? FR_MODULUS >> BigInt(p.initial_difficulty);
}

/** The retarget constants: `q = factor / precision`, T expected claims per block. */
export interface PowDifficultyParams {
  readonly ema_smoothing_factor: bigint;
  readonly ema_smoothing_precision: bigint;
  readonly target_claims_per_block: bigint;
}

/**
 * The reward target after a block with `claims` accepted claims:
 * `T · target · P / max(1, (P − F) · claims + F · T)`, capped at p − 1 (no floor: 0 stays 0).
 * F: ledger/src/mantle/pow/difficulty.rs `compute_new_reward_difficulty`.
 */
export function nextRewardTarget(claims: bigint, target: bigint, p: PowDifficultyParams): bigint {
  const P = p.ema_smoothing_precision;
  const F = p.ema_smoothing_factor;
  const T = p.target_claims_per_block;
  if (F > P) throw new RangeError('EMA_SMOOTHING_FACTOR must not exceed EMA_SMOOTHING_PRECISION');
  let demand = (P - F) * claims + F * T;
  if (demand < 1n) demand = 1n;
  const next = (T * target * P) / demand;
  return next > MAX_POW_TARGET ? MAX_POW_TARGET : next;
}

/**
 * The per-claim reward of an epoch: `pool · rate_num / (rate_den · T · expected blocks)`, rounded
 * down, saturating at the u64 maximum. F: ledger/src/mantle/pow/mod.rs `compute_epoch_pow_reward`.
 */
export function epochPowReward(pool: bigint, rateNum: bigint, denominator: bigint): bigint {
  if (denominator <= 0n) throw new RangeError('the PoW payout denominator must be positive');
  const reward = (pool * rateNum) / denominator;
  return reward > U64_MAX ? U64_MAX : reward;
}

const saturatingAdd = (a: bigint, b: bigint): bigint => (a + b > U64_MAX ? U64_MAX : a + b);

/** Adds a block's PoW share to the epoch's refill (saturating). F: `add_reward_refill_rewards`. */
export function addPowRefill(pow: PowState, reward: bigint): PowState {
  return { ...pow, refill: saturatingAdd(pow.refill, reward) };
}

/**
 * Epoch change: the refill lands in the pool (saturating) and the epoch reward is recomputed from
 * the pool. F: ledger/src/mantle/pow/mod.rs `add_rewards_to_pool`, once however many epochs were crossed.
 */
export function powEpochChange(
  draft: Draft,
  p: PowRewardParams,
  expectedBlocksPerEpoch: bigint,
  epochsCrossed = 1,
): void {
  const pool = saturatingAdd(draft.pow.pool, draft.pow.refill);
  // Each epoch crossed closes its transaction counts; a skipped epoch closes as empty.
  let tx_density = draft.pow.tx_density;
  for (let i = 0; i < epochsCrossed; i++) tx_density = closeEpoch(tx_density);
  // inferred: one claims-per-block constant for the retarget and this denominator, epoch length × f
  // blocks per epoch (docs/design/fidelity.md)
  const epoch_reward = epochPowReward(
    pool,
    p.rate_num,
    p.rate_den * p.target_claims_per_block * expectedBlocksPerEpoch,
  );
  draft.pow = { ...draft.pow, pool, refill: 0n, epoch_reward, tx_density };
}

/**
 * The anchor block of a claim, which must be a recent block of this branch at most `window` slots
 * before the current one (and not after it). F: core/src/mantle/ops/pow.rs `accept_claim`.
 */
export function acceptClaimBlock(
  recent: readonly RecentBlock[],
  current: bigint,
  blockHash: Uint8Array,
  window: number,
  opIndex?: number,
): RecentBlock {
  const block = recent.find((b) => bytesEqual(b.id, blockHash));
  if (!block) return fail('UnknownPowBlock', 'the block is not a recent block of this branch', opIndex);
  if (current < block.slot || current - block.slot > BigInt(window)) {
    fail(
      'PowClaimOutsideWindow',
      `the block is at slot ${block.slot}, the current slot is ${current} and the window ${window} slots`,
      opIndex,
    );
  }
  return block;
}

export function applyClaimPowReward(env: OpEnv, op: ClaimPowRewardOp): TxEventPayload {
  const { draft, opIndex, slot } = env;
  const cfg = env.ctx.config.pow;
  const pow = draft.pow;
  // F: a zero epoch reward is the cutoff; the configured rate only shapes it at epoch changes.
  if (pow.epoch_reward === 0n)
    fail('RewardsDisabled', 'PoW rewards are disabled (the epoch reward is 0)', opIndex);
  if (pow.pool < pow.epoch_reward) fail('RewardPoolExhausted', 'the PoW reward pool is exhausted', opIndex);
  const block = acceptClaimBlock(pow.recent_blocks, slot, op.block_hash, cfg.slot_window, opIndex);
  // inferred: the real epoch nonces, not F's placeholder digest of the epoch number (docs/design/fidelity.md)
  if (op.epoch_nonce !== draft.epoch_state.nonce && op.epoch_nonce !== draft.prev_epoch_nonce) {
    fail('InvalidEpochNonce', 'epoch_nonce is neither the current nor the previous epoch nonce', opIndex);
  }
  const ticket = powTicket(op.epoch_nonce, op.block_hash, op.public_key);
  if (ticket >= pow.target) fail('TicketAboveTarget', 'the ticket is not below the target', opIndex);
  if (pow.nullifiers.some((n) => n.nullifier === ticket))
    fail('PowNullifierUsed', 'this ticket was already claimed', opIndex);
  const id = opId({ opcode: Opcode.ClaimPowReward, payload: op });
  const note = { value: pow.epoch_reward, pk: op.public_key };
  draft.addNote(id, 0, note, null, opIndex);
  draft.pow = {
    ...pow,
    pool: pow.pool - pow.epoch_reward,
    // The spent ticket is kept against its anchor block's slot (F: `execute`).
    nullifiers: [...pow.nullifiers, { nullifier: ticket, slot: block.slot }],
  };
  return { type: 'PoWRewardClaimed', pow_nullifier: ticket, utxo: { op_id: id, output_index: 0, note } };
}

/**
 * Drops seen blocks and spent tickets whose slot is more than `window` slots before `current`
 * (a slot exactly `window` back is kept). F: `prune_seen_block_slots`, `prune_nullifiers_by_slots`.
 */
export function prunePowWindow(pow: PowState, current: bigint, window: number): PowState {
  const cutoff = current > BigInt(window) ? current - BigInt(window) : 0n;
  return {
    ...pow,
    recent_blocks: pow.recent_blocks.filter((b) => b.slot >= cutoff),
    nullifiers: pow.nullifiers.filter((n) => n.slot >= cutoff),
  };
}

/**
 * After each block: retarget from the block's accepted claims, record the block (for claims and in
 * the epoch's transaction counts), prune the window.
 */
export function powAfterBlock(
  draft: Draft,
  p: PowRewardParams,
  blockId: Uint8Array,
  slot: bigint,
  claims: bigint,
  txs: bigint,
): void {
  const pow = draft.pow;
  const recorded = {
    ...pow,
    recent_blocks: [...pow.recent_blocks, { id: blockId, slot }],
    tx_density: recordBlockTxs(pow.tx_density, txs),
  };
  draft.pow = {
    ...prunePowWindow(recorded, slot, p.slot_window),
    target: nextRewardTarget(claims, pow.target, p),
  };
}
