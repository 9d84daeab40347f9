/**
 * Handlers of the wallet namespace (routes/wallet.ts). As the reference, a balance and a transfer's
 * hash answer JSON with a `text/plain` content type (F: `(StatusCode, serde_json::to_string(..))`).
 */

import type { Json } from '@logos-ts/shared/json';
import { bytesToHex, hexToBytes } from '../../codec/hex.ts';
import { id32 } from '../../codec/primitives.ts';
import { fr } from '../../codec/schema.ts';
import { type Fr, frToBytes } from '../../crypto/field.ts';
import { type Utxo, utxo, utxoId } from '../../mantle/note.ts';
import { transferOp } from '../../mantle/ops.ts';
import { type OpProof, proofFromJson, proofToJson } from '../../mantle/proofs.ts';
import { mantleTx, txHashToFr as txHashFr } from '../../mantle/tx.ts';
import type { TxBuilder, WalletBalance } from '../../wallet/index.ts';
import { notFound, Rejection } from '../errors.ts';
import type { walletRoutes } from '../routes/wallet.ts';
import type { ApiContext, ApiReply, Handlers } from '../types.ts';
import { json } from './reply.ts';

const TEXT_JSON = 'text/plain; charset=utf-8';
const frHex = (x: Fr) => bytesToHex(frToBytes(x));
const pkOf = (hex: string): Fr => fr.fromJson(hex);

/** The body of a key's balance, serialised once per notes list and tip (lists are cached per block state). */
const balanceBodies = new WeakMap<WalletBalance['notes'], { tip: string; body: Buffer }>();

function balanceBody(b: WalletBalance): Buffer {
  const tip = bytesToHex(b.tip);
  const cached = balanceBodies.get(b.notes);
  if (cached && cached.tip === tip) return cached.body;
  const notes = b.notes.map((n) => `"${frHex(n.id)}":${n.value}`).join(',');
  const body = Buffer.from(
    `{"tip":"${tip}","balance":${b.balance},"notes":{${notes}},"address":"${frHex(b.address)}"}`,
  );
  balanceBodies.set(b.notes, { tip, body });
  return body;
}

/**
 * The builder of a `/wallet/fund` body (already checked by the route's schema). The pending
 * transfer's inputs must be the ids of the ledger inputs, in order (F keeps them in step).
 */
function builderOf(j: {
  mantle_tx: Json;
  ledger_inputs: Json[];
  pending_transfer: Json;
  channel_multi_sig_proofs: Json;
}): TxBuilder {
  const ledgerInputs: Utxo[] = j.ledger_inputs.map((u) => utxo.fromJson(u));
  const pending = transferOp.fromJson(j.pending_transfer);
  // inferred: a builder whose pending inputs are not its ledger inputs' ids is refused (F asserts they
  // match when inputs are added and cannot receive such a builder from its own clients) (docs/design/fidelity.md)
  const ids = ledgerInputs.map(utxoId);
  if (ids.length !== pending.inputs.length || ids.some((id, i) => id !== pending.inputs[i]))
    throw new Rejection(
      422,
      'Failed to deserialize the JSON body into the target type: tx_builder: pending_transfer.inputs must be the ids of ledger_inputs, in order',
    );
  const proofs = new Map<number, OpProof>();
  for (const [k, v] of Object.entries(j.channel_multi_sig_proofs as Record<string, Json>))
    proofs.set(Number(k), proofFromJson({ ChannelMultiSigProof: v }));
  return {
    ops: mantleTx.fromJson(j.mantle_tx).ops,
    ledgerInputs,
    pendingTransfer: { inputs: pending.inputs, outputs: pending.outputs },
    channelMultiSigProofs: proofs,
  };
}

const textJson = (body: string | Uint8Array, status = 200): ApiReply => ({
  status,
  body,
  contentType: TEXT_JSON,
});

export const walletHandlers: Handlers<typeof walletRoutes, Pick<ApiContext, 'wallet'>> = {
  walletBalance(ctx, { params: { public_key }, query }) {
    const b = ctx.wallet.balance(public_key, query.tip);
    if (!b) throw notFound('The requested address could not be found in the wallet');
    return textJson(balanceBody(b));
  },
  async walletTransferFunds(ctx, { body }) {
    const hash = await ctx.wallet.transfer({
      ...(body.tip !== null ? { tip: hexToBytes(body.tip, true) } : {}),
      changePk: pkOf(body.change_public_key),
      fundingPks: body.funding_public_keys.map(pkOf),
      recipientPk: pkOf(body.recipient_public_key),
      amount: body.amount,
    });
    return textJson(`{"hash":"${bytesToHex(hash)}"}`, 201);
  },
  async walletFund(ctx, { body }) {
    const funded = await ctx.wallet.fund({
      ...(body.tip !== null ? { tip: hexToBytes(body.tip, true) } : {}),
      builder: builderOf(body.tx_builder as Parameters<typeof builderOf>[0]),
      changePk: pkOf(body.change_public_key),
      fundingPks: body.funding_public_keys.map(pkOf),
      priorityFeePercent: body.priority_fee_percent,
      maxTxFee: body.max_tx_fee,
    });
    return json({
      tip: bytesToHex(funded.tip),
      funded_tx: mantleTx.toJson(funded.tx),
      transfer_proof: funded.transferProof
        ? proofToJson({ type: 'ZkSig', signature: funded.transferProof })
        : null,
    });
  },
  walletSignEd25519(ctx, { body }) {
    const sig = ctx.wallet.signEd25519(id32.fromJson(body.tx_hash), hexToBytes(body.pk, true));
    return json({ sig: bytesToHex(sig) });
  },
  async walletSignZk(ctx, { body }) {
    const hash = id32.fromJson(body.tx_hash);
    const sig = await ctx.wallet.signZk(txHashFr(hash), body.pks.map(pkOf));
    return json({
      sig: { pi_a: bytesToHex(sig.pi_a), pi_b: bytesToHex(sig.pi_b), pi_c: bytesToHex(sig.pi_c) },
    });
  },
};
