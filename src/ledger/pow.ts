/**
 * Proof-of-work reward claims (opcode 64): a ticket `digest([epoch_nonce, block_hash mod p, pk])`
 * below the target, for a recent block of this branch, claims the epoch reward once.
 */

import { bytesEqual } from '../codec/hex.ts';
import { FR_MODULUS, frFromBytesModOrder } from '../crypto/field.ts';
import { digest } from '../crypto/poseidon2/index.ts';
import { type ClaimPowRewardOp, Opcode, opId } from '../mantle/ops.ts';
import type { PowRewardParams } from './config.ts';
import type { Draft } from './draft.ts';
import { fail } from './errors.ts';
import type { TxEventPayload } from './events.ts';
import type { OpEnv } from './op-env.ts';

/** The PoW ticket, which is also the claim's nullifier. */
export function powTicket(epochNonce: bigint, blockHash: Uint8Array, publicKey: bigint): bigint {
  return digest([epochNonce, frFromBytesModOrder(blockHash), publicKey]);
}

export function initialPowTarget(p: PowRewardParams): bigint {
  return FR_MODULUS >> BigInt(p.initial_difficulty);
}

export function applyClaimPowReward(env: OpEnv, op: ClaimPowRewardOp): TxEventPayload {
  const { draft, opIndex, slot } = env;
  const cfg = env.ctx.config.pow;
  const pow = draft.pow;
  if (cfg.rate_num === 0n || pow.epoch_reward === 0n)
    fail('RewardsDisabled', 'PoW rewards are disabled', opIndex);
  if (pow.pool < pow.epoch_reward) fail('RewardPoolExhausted', 'the PoW reward pool is exhausted', opIndex);
  const block = pow.recent_blocks.find((b) => bytesEqual(b.id, op.block_hash));
  if (!block) fail('UnknownPowBlock', 'the block is not a recent block of this branch', opIndex);
  if (slot - block.slot > BigInt(cfg.slot_window)) {
    fail(
      'PowClaimOutsideWindow',
      `the block is ${slot - block.slot} slots old, the window is ${cfg.slot_window}`,
      opIndex,
    );
  }
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
    nullifiers: [...pow.nullifiers, { nullifier: ticket, slot }],
  };
  return { type: 'PoWRewardClaimed', pow_nullifier: ticket, utxo: { op_id: id, output_index: 0, note } };
}

/**
 * After each block: retarget (`demand = max(1, (P − F) claims + F T)`,
 * `target' = clamp(T target P / demand, 1, p)`), record the block for claims, prune the window.
 */
export function powAfterBlock(
  draft: Draft,
  p: PowRewardParams,
  blockId: Uint8Array,
  slot: bigint,
  claims: bigint,
): void {
  const pow = draft.pow;
  const P = p.ema_smoothing_precision;
  const F = p.ema_smoothing_factor;
  const T = p.target_claims_per_block;
  let demand = (P - F) * claims + F * T;
  if (demand < 1n) demand = 1n;
  let target = (T * pow.target * P) / demand;
  if (target < 1n) target = 1n;
  if (target > FR_MODULUS) target = FR_MODULUS;
  const oldest = slot - BigInt(p.slot_window);
  draft.pow = {
    ...pow,
    target,
    recent_blocks: [...pow.recent_blocks.filter((b) => b.slot >= oldest), { id: blockId, slot }],
    nullifiers: pow.nullifiers.filter((n) => n.slot >= oldest),
  };
}

/** Epoch change: the fee share refills the pool; the epoch reward is recomputed from it. */
export function powEpochChange(draft: Draft, p: PowRewardParams, expectedBlocksPerEpoch: bigint): void {
  const pool = draft.pow.pool + draft.pow.refill;
  const den = p.rate_den * p.target_claims_per_block * expectedBlocksPerEpoch;
  const epoch_reward = den > 0n ? (pool * p.rate_num) / den : 0n;
  draft.pow = { ...draft.pow, pool, refill: 0n, epoch_reward };
}
