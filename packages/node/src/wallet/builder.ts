/**
 * Transaction builders (F `MantleTxBuilder`, `core/src/mantle/transactions/builder.rs`): a list of ops,
 * the notes the builder spends (`ledgerInputs`, mirrored by the pending Transfer's inputs) and the
 * pending Transfer appended as the last op when built. Pure functions over the shared `TxBuilder`
 * shape; the fee-aware ones take the gas context of the block funded against.
 */
import { bytesToHex } from '../codec/hex.ts';
import type { Fr } from '../crypto/field.ts';
import { type GasContext, minimumTotalGasCost } from '../ledger/gas.ts';
import type { Note, Utxo } from '../mantle/note.ts';
import { MAX_INPUTS, MAX_OUTPUTS, type Op, Opcode } from '../mantle/ops.ts';
import { MAX_OPS, type MantleTx } from '../mantle/tx.ts';
import { txBuilderError } from './errors.ts';
import type { TxBuilder } from './interface.ts';

const U64_MAX = 0xffff_ffff_ffff_ffffn;

/** A builder of these ops, spending nothing yet. */
export function newBuilder(ops: readonly Op[] = []): TxBuilder {
  if (ops.length > MAX_OPS)
    throw txBuilderError(`Invalid operation bounds in transaction: more than ${MAX_OPS} ops`);
  return {
    ops,
    ledgerInputs: [],
    pendingTransfer: { inputs: [], outputs: [] },
    channelMultiSigProofs: new Map(),
  };
}

/** A note the builder spends, with its id (computed once by whoever knows the note). */
export interface LedgerInput {
  readonly id: Fr;
  readonly utxo: Utxo;
}

/** F `extend_ledger_inputs`: the notes join both the ledger inputs and the pending Transfer's inputs. */
export function addLedgerInputs(b: TxBuilder, inputs: readonly LedgerInput[]): TxBuilder {
  if (b.pendingTransfer.inputs.length + inputs.length > MAX_INPUTS)
    throw txBuilderError(`Invalid ledger input bounds in transfer: more than ${MAX_INPUTS} inputs`);
  return {
    ...b,
    ledgerInputs: [...b.ledgerInputs, ...inputs.map((i) => i.utxo)],
    pendingTransfer: {
      inputs: [...b.pendingTransfer.inputs, ...inputs.map((i) => i.id)],
      outputs: b.pendingTransfer.outputs,
    },
  };
}

/** F `extend_ledger_outputs`. */
export function addLedgerOutputs(b: TxBuilder, notes: readonly Note[]): TxBuilder {
  if (b.pendingTransfer.outputs.length + notes.length > MAX_OUTPUTS)
    throw txBuilderError(`Invalid ledger output bounds in transfer: more than ${MAX_OUTPUTS} outputs`);
  return {
    ...b,
    pendingTransfer: { inputs: b.pendingTransfer.inputs, outputs: [...b.pendingTransfer.outputs, ...notes] },
  };
}

/** F `build`: the ops, then the pending Transfer unless it is empty. */
export function buildTx(b: TxBuilder): MantleTx {
  const { inputs, outputs } = b.pendingTransfer;
  if (inputs.length === 0 && outputs.length === 0) return { ops: [...b.ops] };
  if (b.ops.length + 1 > MAX_OPS)
    throw txBuilderError(`Invalid operation bounds in transaction: more than ${MAX_OPS} ops`);
  return {
    ops: [...b.ops, { opcode: Opcode.Transfer, payload: { inputs: [...inputs], outputs: [...outputs] } }],
  };
}

/** Σ ledger inputs − Σ pending outputs (builder-managed value only, as F). */
export function netBalance(b: TxBuilder): bigint {
  let sum = 0n;
  for (const u of b.ledgerInputs) sum += u.note.value;
  for (const n of b.pendingTransfer.outputs) sum -= n.value;
  return sum;
}

/** F `tx_fee`: the fee the funded transaction pays (its net balance). */
export function txFee(b: TxBuilder): bigint {
  const net = netBalance(b);
  if (net < 0n) throw txBuilderError(`Funded transaction has negative net balance: ${net}`);
  return net;
}

/** F `minimum_gas_cost`: the mandatory fee of the built transaction once signed. */
export function minimumGasCost(b: TxBuilder, ctx: GasContext): bigint {
  for (const op of b.ops) {
    if (op.opcode !== Opcode.ChannelWithdraw && op.opcode !== Opcode.ChannelTransfer) continue;
    const id = bytesToHex(op.payload.channel_id);
    if (ctx.transferThreshold(id) === undefined)
      throw txBuilderError(`Missing transfer threshold for channel ${id}`);
  }
  const fee = minimumTotalGasCost(buildTx(b), ctx);
  if (fee > U64_MAX) throw txBuilderError('Gas computation overflow');
  return fee;
}

/** F `priority_fee_amount`: ceil(fee × percent / 100), in u64. */
export function priorityFeeAmount(mandatoryFee: bigint, percent: bigint): bigint {
  const amount = (mandatoryFee * percent + 99n) / 100n;
  if (amount > U64_MAX) throw txBuilderError('Gas computation overflow');
  return amount;
}

/** F `required_fee`: the mandatory fee plus the priority reserve, in u64. */
export function requiredFee(mandatoryFee: bigint, percent: bigint): bigint {
  const fee = mandatoryFee + priorityFeeAmount(mandatoryFee, percent);
  if (fee > U64_MAX) throw txBuilderError('Gas computation overflow');
  return fee;
}

/** F `funding_delta_with_priority_fee`: what is left after the required fee (negative: missing). */
export function fundingDelta(b: TxBuilder, ctx: GasContext, percent: bigint): bigint {
  return netBalance(b) - requiredFee(minimumGasCost(b, ctx), percent);
}

/**
 * F `return_change`: prices the transaction with a dummy change output `{0, pk 0}` and, if at least 1
 * is left, adds the change note `{left, changePk}`; undefined when the change is unaffordable.
 */
export function returnChange(
  b: TxBuilder,
  ctx: GasContext,
  changePk: Fr,
  percent: bigint,
): TxBuilder | undefined {
  const left = fundingDelta(addLedgerOutputs(b, [{ value: 0n, pk: 0n }]), ctx, percent);
  if (left < 1n) return undefined;
  return addLedgerOutputs(b, [{ value: left, pk: changePk }]);
}

/**
 * F `consumed_or_locked_notes`: inputs of the builder's Transfer and ChannelDeposit ops, the service
 * notes of its SDP declare and withdraw ops, and its ledger inputs.
 */
export function consumedOrLockedNotes(b: TxBuilder): Fr[] {
  const out: Fr[] = [];
  for (const op of b.ops) {
    if (op.opcode === Opcode.Transfer || op.opcode === Opcode.ChannelDeposit) out.push(...op.payload.inputs);
    else if (op.opcode === Opcode.SDPDeclare || op.opcode === Opcode.SDPWithdraw)
      out.push(op.payload.service_note_id);
  }
  out.push(...b.pendingTransfer.inputs);
  return out;
}
