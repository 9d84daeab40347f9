/**
 * Gas and fees: execution gas per op, storage gas per byte, the two gas markets, and the split of a
 * block's reward between Blend providers, the leader and the PoW pool.
 */
import { bytesToHex } from '../codec/hex.ts';
import { type Op, Opcode } from '../mantle/ops.ts';
import { type OpProof, proofSize } from '../mantle/proofs.ts';
import { encodeMantleTx, type MantleTx } from '../mantle/tx.ts';
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
import type { LedgerState } from './state.ts';

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

/** Gas prices and channel thresholds a transaction is priced against (F `MantleTxGasContext`). */
export interface GasContext {
  readonly execution_base_gas_price: bigint;
  readonly storage_gas_price: bigint;
  /** Transfer threshold of an existing channel (by hex id), undefined for an unknown channel. */
  transferThreshold(channelHex: string): number | undefined;
  /** Configuration threshold of an existing channel (by hex id), undefined for an unknown channel. */
  configurationThreshold(channelHex: string): number | undefined;
}

const ZK_PROOF_BYTES = 128;
const ED25519_SIG_BYTES = 64;

/** A multi-signature proof of `n` signatures, as the predicted size takes it. */
const multiSigOf = (n: number): OpProof => ({
  type: 'ChannelMultiSigProof',
  signatures: Array.from({ length: n }, () => ({ signature: new Uint8Array(64), channel_key_index: 0 })),
});

/**
 * The threshold an op's channel signatures are predicted with: the channel's configuration threshold
 * for a ChannelConfig (0 for a new channel: the ledger checks no proof then), its transfer threshold
 * for a withdraw or channel transfer (0 when the channel is unknown).
 */
function channelThreshold(op: Op, ctx: GasContext): number {
  switch (op.opcode) {
    case Opcode.ChannelConfig:
      return ctx.configurationThreshold(bytesToHex(op.payload.channel)) ?? 0;
    case Opcode.ChannelWithdraw:
    case Opcode.ChannelTransfer:
      return ctx.transferThreshold(bytesToHex(op.payload.channel_id)) ?? 0;
    default:
      return 0;
  }
}

/** Size in bytes of an op's proof once signed, as predicted before signing. */
function minimumProofSize(op: Op, ctx: GasContext): number {
  switch (op.opcode) {
    case Opcode.ChannelInscribe:
      return ED25519_SIG_BYTES;
    case Opcode.SDPDeclare:
      return ZK_PROOF_BYTES + ED25519_SIG_BYTES;
    case Opcode.SDPWithdraw:
    case Opcode.SDPActive:
    case Opcode.LeaderClaim:
    case Opcode.Transfer:
    case Opcode.ChannelDeposit:
      return ZK_PROOF_BYTES;
    case Opcode.ChannelConfig:
    case Opcode.ChannelWithdraw:
    case Opcode.ChannelTransfer:
      return proofSize(multiSigOf(channelThreshold(op, ctx)));
    case Opcode.ClaimPowReward:
      return 0;
  }
}

/**
 * The smallest size of the signed transaction (F `minimum_signed_mantle_tx_size`): its ops' bytes plus
 * each op's proof, channel multi-signatures counted at their channel's threshold.
 */
export function minimumSignedTxSize(tx: MantleTx, ctx: GasContext): bigint {
  let size = encodeMantleTx(tx).length;
  for (const op of tx.ops) size += minimumProofSize(op, ctx);
  return BigInt(size);
}

/**
 * The mandatory fee of a transaction before it is signed (F `RawMantleTx::minimum_total_gas_cost`):
 * Σ execution gas × execution base price + minimum signed size × storage price. Channel ops pay their
 * per-signature gas at the channel's threshold.
 */
export function minimumTotalGasCost(tx: MantleTx, ctx: GasContext): bigint {
  let gas = 0n;
  for (const op of tx.ops) {
    const t = channelThreshold(op, ctx);
    gas += executionGas(op, t > 0 ? multiSigOf(t) : { type: 'None' });
  }
  return gas * ctx.execution_base_gas_price + minimumSignedTxSize(tx, ctx) * ctx.storage_gas_price;
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

/** The gas context of a ledger state: its prices and its channels' thresholds. */
export function gasContextOf(state: Pick<LedgerState, 'gas' | 'channels'>): GasContext {
  return {
    execution_base_gas_price: state.gas.execution_base_gas_price,
    storage_gas_price: state.gas.storage_gas_price,
    transferThreshold: (id) => state.channels.get(id)?.transfer_threshold,
    configurationThreshold: (id) => state.channels.get(id)?.configuration_threshold,
  };
}
