/**
 * The state transition: `applyBlock(state, block) -> {state', events}` and `applyTx` for a single
 * transaction against a state (mempool checks). Pure and deterministic; a refused block or
 * transaction throws a LedgerError and leaves the input state untouched.
 *
 * Block order: epoch change effects (header events) → proof of leadership → voucher commitment →
 * transactions in order (each op verified against the state the previous ops left, then executed;
 * fees checked per transaction) → execution gas limit → block rewards → gas market → PoW retarget
 * → nonce update → block density (the block's slot and its uncles' slots).
 */
import { type Block, MAX_BLOCK_TRANSACTIONS, MAX_BLOCK_TRANSACTIONS_SIZE } from '../block/block.ts';
import { type Header, headerId } from '../block/header.ts';
import { nextEpochNonce } from '../consensus/lottery.ts';
import { leBytesToBigint } from '../crypto/field.ts';
import { type Op, Opcode, opId as opIdOf, type TransferOp } from '../mantle/ops.ts';
import { encodeSignedTx, type SignedMantleTx, txHashToFr } from '../mantle/tx.ts';
import {
  applyChannelConfig,
  applyChannelDeposit,
  applyChannelInscribe,
  applyChannelTransfer,
  applyChannelWithdraw,
} from './channels.ts';
import { Draft, type LedgerContext } from './draft.ts';
import { advanceEpoch, markBlockDensity } from './epoch.ts';
import { fail, LedgerError } from './errors.ts';
import type { LedgerEvent, TxEventPayload } from './events.ts';
import { blockRewards, executionGas, updateExecutionMarket } from './gas.ts';
import { applyLeaderClaim, commitVoucher } from './leader-claims.ts';
import type { OpEnv } from './op-env.ts';
import { MAX_BLOCK_EXECUTION_GAS } from './parameters.ts';
import { addPowRefill, applyClaimPowReward, powAfterBlock } from './pow-claims.ts';
import { preverifyTx } from './preverify.ts';
import type { PolPublicInputs } from './proof-system.ts';
import { addSdpIncome, applySdpActive, applySdpDeclare, applySdpWithdraw } from './sdp.ts';
import type { EpochState, LedgerState } from './state.ts';
import { applyTransfer } from './transfer.ts';

export interface TxOutcome {
  readonly hash: Uint8Array;
  readonly executionGas: bigint;
  readonly storageGas: bigint;
  /** Σ exec gas × execution price + size × storage price. */
  readonly mandatoryFee: bigint;
  /** What the transaction pays above the mandatory fee: the leader's tip. */
  readonly tip: bigint;
  readonly powClaims: bigint;
}

export interface TxOptions {
  /** Genesis mode: dummy proofs, zero gas, input-less transfer allowed. */
  readonly genesis?: boolean;
}

/**
 * Applies one transaction to the draft. Preverification (stateless) runs first unless the caller
 * has done it. Fees use the draft's current prices.
 */
export function executeTx(
  draft: Draft,
  ctx: LedgerContext,
  tx: SignedMantleTx,
  slot: bigint,
  opts: TxOptions & { preverified?: Uint8Array; size?: bigint } = {},
): TxOutcome {
  const genesis = opts.genesis === true;
  const hash = opts.preverified ?? preverifyTx(tx, ctx.proofs).hash;
  const txMsg = txHashToFr(hash);
  let balance = 0n;
  let gas = 0n;
  let powClaims = 0n;
  const ops = tx.mantle_tx.ops;
  for (let i = 0; i < ops.length; i++) {
    const op = ops[i]!;
    const proof = tx.ops_proofs[i]!;
    const env: OpEnv = { ctx, draft, txHash: hash, txMsg, opIndex: i, slot, genesis };
    gas += executionGas(op, proof);
    switch (op.opcode) {
      case Opcode.Transfer:
        if (genesis) balance += genesisTransfer(env, op.payload);
        else balance += applyTransfer(env, op.payload, proof);
        break;
      case Opcode.ChannelConfig:
        applyChannelConfig(env, op.payload, proof);
        break;
      case Opcode.ChannelInscribe:
        applyChannelInscribe(env, op.payload);
        break;
      case Opcode.ChannelDeposit: {
        const notes = applyChannelDeposit(env, op.payload, proof);
        const amount = notes.reduce((a, n) => a + n.value, 0n);
        pushTxEvent(draft, hash, op, {
          type: 'Deposit',
          channel_id: op.payload.channel_id,
          amount,
          metadata: op.payload.metadata,
          notes,
        });
        break;
      }
      case Opcode.ChannelWithdraw:
        applyChannelWithdraw(env, op.payload, proof);
        break;
      case Opcode.ChannelTransfer:
        applyChannelTransfer(env, op.payload, proof);
        break;
      case Opcode.SDPDeclare:
        applySdpDeclare(env, op.payload, proof);
        break;
      case Opcode.SDPWithdraw:
        applySdpWithdraw(env, op.payload, proof);
        break;
      case Opcode.SDPActive:
        applySdpActive(env, op.payload, proof);
        break;
      case Opcode.LeaderClaim:
        pushTxEvent(draft, hash, op, applyLeaderClaim(env, op.payload, proof));
        break;
      case Opcode.ClaimPowReward:
        pushTxEvent(draft, hash, op, applyClaimPowReward(env, op.payload));
        powClaims++;
        break;
    }
  }
  if (genesis) return { hash, executionGas: 0n, storageGas: 0n, mandatoryFee: 0n, tip: 0n, powClaims };
  const storageGas = opts.size ?? BigInt(encodeSignedTx(tx).length);
  const mandatoryFee = gas * draft.gas.execution_base_gas_price + storageGas * draft.gas.storage_gas_price;
  if (balance < mandatoryFee) {
    fail('InsufficientBalance', `the transaction pays ${balance}, the mandatory fee is ${mandatoryFee}`);
  }
  return { hash, executionGas: gas, storageGas, mandatoryFee, tip: balance - mandatoryFee, powClaims };
}

function pushTxEvent(draft: Draft, hash: Uint8Array, op: Op, payload: TxEventPayload): void {
  draft.events.push({ kind: 'Tx', event: { tx_hash: hash, op_id: opIdOf(op), payload } });
}

/** The genesis distribution: a transfer with no inputs whose outputs are minted. */
function genesisTransfer(env: OpEnv, op: TransferOp): bigint {
  const id = opIdOf({ opcode: Opcode.Transfer, payload: op });
  op.outputs.forEach((note, i) => {
    env.draft.addNote(id, i, note, null, env.opIndex);
  });
  return 0n;
}

/** Checks a single transaction against a state (e.g. the tip, for the mempool) without keeping the result. */
export function checkTx(state: LedgerState, ctx: LedgerContext, tx: SignedMantleTx, slot: bigint): TxOutcome {
  return executeTx(new Draft(state), ctx, tx, slot);
}

export interface BlockResult {
  readonly state: LedgerState;
  readonly events: readonly LedgerEvent[];
  readonly id: Uint8Array;
}

export interface ApplyBlockOptions {
  /** Skip the proof of leadership (blocks the node produced itself and has just proved). */
  readonly skipProofOfLeadership?: boolean;
}

/** Leader key halves as the PoL circuit takes them: two 16-byte little-endian integers. */
export function leaderKeyHalves(key: Uint8Array): [bigint, bigint] {
  return [leBytesToBigint(key.subarray(0, 16)), leBytesToBigint(key.subarray(16, 32))];
}

/** The public inputs of a header's proof of leadership, against the epoch state of its slot. */
export function polPublicInputs(
  epoch: EpochState,
  latestRoot: bigint,
  h: Pick<Header, 'slot' | 'proof_of_leadership'>,
): PolPublicInputs {
  const [pk1, pk2] = leaderKeyHalves(h.proof_of_leadership.leader_key);
  return {
    entropy_contribution: h.proof_of_leadership.entropy_contribution,
    slot: h.slot,
    epoch_nonce: epoch.nonce,
    lottery_0: epoch.lottery.t0,
    lottery_1: epoch.lottery.t1,
    aged_root: epoch.utxos.root(),
    latest_root: latestRoot,
    leader_pk1: pk1,
    leader_pk2: pk2,
  };
}

/** The epoch state a block at `slot` on top of `state` is led under (the lottery a leader plays). */
export function epochStateAt(state: LedgerState, ctx: LedgerContext, slot: bigint): EpochState {
  return epochViewAt(state, ctx, slot).epoch_state;
}

/**
 * The epoch state and the SDP state (its active-set snapshot) a block at `slot` on top of `state`
 * would be applied under: `state`'s own when `slot` is in its epoch, else as the epoch change makes them.
 */
export function epochViewAt(
  state: LedgerState,
  ctx: LedgerContext,
  slot: bigint,
): Pick<LedgerState, 'epoch_state' | 'sdp'> {
  if (slot <= state.slot) fail('InvalidSlot', `slot ${slot} is not after the parent slot ${state.slot}`);
  const draft = new Draft(state);
  advanceEpoch(draft, ctx.config, slot);
  return { epoch_state: draft.epoch_state, sdp: draft.sdp };
}

export function applyBlock(
  state: LedgerState,
  block: Block,
  ctx: LedgerContext,
  opts: ApplyBlockOptions = {},
): BlockResult {
  const h = block.header;
  const slot = h.slot;
  if (slot <= state.slot)
    fail('InvalidSlot', `block slot ${slot} is not after the parent slot ${state.slot}`);
  if (block.transactions.length > MAX_BLOCK_TRANSACTIONS) {
    fail(
      'TooManyTransactions',
      `${block.transactions.length} transactions, at most ${MAX_BLOCK_TRANSACTIONS}`,
    );
  }
  let size = 0n;
  const sizes = block.transactions.map((tx) => BigInt(encodeSignedTx(tx).length));
  for (const s of sizes) size += s;
  if (size > BigInt(MAX_BLOCK_TRANSACTIONS_SIZE)) {
    fail('BlockTooLarge', `transactions take ${size} bytes, the limit is ${MAX_BLOCK_TRANSACTIONS_SIZE}`);
  }
  const draft = new Draft(state);
  const latestRoot = state.utxos.root();

  for (const e of advanceEpoch(draft, ctx.config, slot)) draft.events.push({ kind: 'Header', event: e });

  if (opts.skipProofOfLeadership !== true) {
    const inputs = polPublicInputs(draft.epoch_state, latestRoot, h);
    if (!ctx.proofs.verifyPol(inputs, h.proof_of_leadership.proof)) {
      fail('InvalidLeaderProof', 'the proof of leadership does not verify');
    }
  }
  commitVoucher(draft, h.proof_of_leadership.voucher_cm);

  let execGas = 0n;
  let burned = 0n;
  let tips = 0n;
  let powClaims = 0n;
  block.transactions.forEach((tx, i) => {
    let out: TxOutcome;
    try {
      out = executeTx(draft, ctx, tx, slot, { size: sizes[i]! });
    } catch (e) {
      if (e instanceof LedgerError) throw e.inTx(i);
      throw e;
    }
    execGas += out.executionGas;
    burned += out.mandatoryFee;
    tips += out.tip;
    powClaims += out.powClaims;
  });
  if (execGas > MAX_BLOCK_EXECUTION_GAS) {
    fail(
      'TooMuchExecutionGas',
      `the block uses ${execGas} execution gas, the limit is ${MAX_BLOCK_EXECUTION_GAS}`,
    );
  }

  const blockNumber = state.block_number + 1n;
  const rewards = blockRewards(
    draft.gas.fee_window,
    blockNumber,
    burned,
    tips,
    draft.epoch_state.total_stake,
    ctx.config.pow.pow_share,
  );
  addSdpIncome(draft, rewards.blend);
  draft.leader = { ...draft.leader, pending_rewards: draft.leader.pending_rewards + rewards.leader };
  draft.pow = addPowRefill(draft.pow, rewards.pow);
  const market = updateExecutionMarket(
    draft.gas.execution_base_gas_price,
    draft.gas.average_execution_gas,
    execGas,
  );
  draft.gas = {
    ...draft.gas,
    fee_window: rewards.fee_window,
    execution_base_gas_price: market.price,
    average_execution_gas: market.average,
    storage_gas_consumed_in_epoch: draft.gas.storage_gas_consumed_in_epoch + size,
  };

  const id = headerId(h);
  powAfterBlock(draft, ctx.config.pow, id, slot, powClaims, BigInt(block.transactions.length));
  draft.nonce = nextEpochNonce(draft.nonce, h.proof_of_leadership.entropy_contribution, slot);
  draft.block_number = blockNumber;
  draft.slot = slot;
  markBlockDensity(
    draft,
    ctx.config,
    slot,
    block.uncle_headers.map((u) => u.header.slot),
  );
  return { state: draft.state(), events: draft.events, id };
}
