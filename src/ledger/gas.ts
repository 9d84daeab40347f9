/**
 * Gas and fees: execution gas per op, storage gas per byte, the two gas markets, and the split of a
 * block's reward between Blend providers, the leader and the PoW pool.
 */
import { type Op, Opcode } from '../mantle/ops.ts';
import type { OpProof } from '../mantle/proofs.ts';
import {
  A_SCALE,
  EXECUTION_MARKET_DEN,
  EXECUTION_MARKET_NUM_BASE,
  FEE_AVG_NUM,
  FEE_WINDOW,
  type Ratio,
  REWARD_BASE,
  REWARD_FEE_MUL,
  STAKE_TARGET,
} from './parameters.ts';

const CHANNEL_SIG_GAS = 56n;

/** Execution gas of one op (`OperationGas`); channel ops with threshold signatures pay per signature. */
export function executionGas(op: Op, proof: OpProof): bigint {
  const sigs = proof.type === 'ChannelMultiSigProof' ? BigInt(proof.signatures.length) : 0n;
  switch (op.opcode) {
    case Opcode.Transfer:
    case Opcode.ChannelDeposit:
    case Opcode.SDPWithdraw:
    case Opcode.SDPActive:
      return 590n;
    case Opcode.ChannelConfig:
    case Opcode.ChannelWithdraw:
    case Opcode.ChannelTransfer:
      return CHANNEL_SIG_GAS * sigs;
    case Opcode.ChannelInscribe:
      return CHANNEL_SIG_GAS;
    case Opcode.SDPDeclare:
      return 646n;
    case Opcode.LeaderClaim:
      return 580n;
    case Opcode.ClaimPowReward:
      return 1n;
  }
}

function ceilDiv(a: bigint, b: bigint): bigint {
  return (a + b - 1n) / b;
}

/** After every block: `avg' = (gas + 9 avg) / 10`, `price' = ceil(price (11,177,110 + avg') / 12,773,840)`. */
export function updateExecutionMarket(
  price: bigint,
  average: bigint,
  blockGas: bigint,
): { price: bigint; average: bigint } {
  const avg = (blockGas + 9n * average) / 10n;
  return { price: ceilDiv(price * (EXECUTION_MARKET_NUM_BASE + avg), EXECUTION_MARKET_DEN), average: avg };
}

/** At an epoch change, with `used` the storage gas consumed in the closed epoch. */
export function updateStorageMarket(
  price: bigint,
  ema: bigint,
  used: bigint,
): { price: bigint; ema: bigint } {
  const e = (used + ema) / 2n;
  if (e === 0n) return { price, ema: e };
  if (8n * used <= 7n * e) return { price: ceilDiv(price * 7n, 8n), ema: e };
  if (8n * used >= 9n * e) return { price: ceilDiv(price * 9n, 8n), ema: e };
  return { price: ceilDiv(price * used, e), ema: e };
}

export interface BlockRewards {
  /** Goes to the Blend providers' income of the epoch. */
  readonly blend: bigint;
  /** Goes to the leaders' pending rewards (tips included). */
  readonly leader: bigint;
  /** Goes to the PoW pool's refill. */
  readonly pow: bigint;
  readonly fee_window: readonly bigint[];
}

/**
 * `compute_block_rewards`: the burned fees enter the 120-block fee window; the reward is
 * `(62500 a + 657 (A_SCALE − a) fees) / (657 A_SCALE)` with
 * `a = min(A_SCALE, max(0, STAKE_TARGET + 10512 Σwindow − total_stake))`, split 6/10 to Blend and
 * 4/10 (+ tips) to the leader; the PoW share (`pow_share`) of the same reward refills the PoW pool.
 */
export function blockRewards(
  feeWindow: readonly bigint[],
  blockNumber: bigint,
  burned: bigint,
  tips: bigint,
  totalStake: bigint,
  powShare: Ratio,
): BlockRewards {
  const window = feeWindow.slice();
  const i = Number(blockNumber % BigInt(FEE_WINDOW));
  window[i] = burned;
  let sum = 0n;
  for (const f of window) sum += f;
  let a = STAKE_TARGET + FEE_AVG_NUM * sum - totalStake;
  if (a < 0n) a = 0n;
  if (a > A_SCALE) a = A_SCALE;
  const num = REWARD_BASE * a + REWARD_FEE_MUL * (A_SCALE - a) * burned;
  const den = REWARD_FEE_MUL * A_SCALE;
  return {
    blend: (num * 6n) / (den * 10n),
    leader: (num * 4n) / (den * 10n) + tips,
    // F: ledger/src/lib.rs: the PoW share is a share of the block reward, like the other two.
    pow: (num * powShare.num) / (den * powShare.den),
    fee_window: window,
  };
}

export function emptyFeeWindow(): bigint[] {
  return new Array<bigint>(FEE_WINDOW).fill(0n);
}
