/** Handlers of the Mantle namespace (routes/mantle.ts): the mempool, gas prices and channels. */

import type { Json } from '@logos-ts/shared/json';
import { DecodeError } from '../../codec/errors.ts';
import { bytesToHex, hexToBytes } from '../../codec/hex.ts';
import { u64 } from '../../codec/schema.ts';
import { LedgerError } from '../../ledger/errors.ts';
import type { ChannelState } from '../../ledger/state.ts';
import { OPCODE_NAMES, Opcode } from '../../mantle/ops.ts';
import { type SignedMantleTx, signedMantleTx } from '../../mantle/tx.ts';
import { MempoolError } from '../../mempool/index.ts';
import { ApiError, notFound, Rejection } from '../errors.ts';
import type { mantleRoutes } from '../routes/mantle.ts';
import type { ApiContext, Handlers } from '../types.ts';
import { json } from './reply.ts';

export const BODY_REJECTED = 'Failed to deserialize the JSON body into the target type: ';

/**
 * The reference's words for a transaction its preverification refuses (the `Display` of
 * `VerificationError` and the op errors inside it, core/src/mantle/transactions/errors.rs, ops/**).
 */
export function preverifyText(e: LedgerError, tx: SignedMantleTx): string {
  const i = e.opIndex ?? 0;
  const op = tx.mantle_tx.ops[i];
  const opcode = op?.opcode;
  switch (e.ledgerCode) {
    case 'ProofCountMismatch':
      return `The number of proofs (${tx.ops_proofs.length}) does not match the number of operations (${tx.mantle_tx.ops.length})`;
    case 'IncorrectProofType':
      return `Incorrect proof type for ${opcode === undefined ? 'unknown' : OPCODE_NAMES[opcode]} operation at index ${i}`;
    case 'InvalidProofOfClaim':
      return 'LeaderClaim verification error: Invalid Proof of Claim';
    case 'EmptyInputs':
      return opcode === Opcode.Transfer
        ? 'Transfer verification error: Inputs error: Inputs cannot be empty'
        : 'Channel verification error: Inputs error: Inputs cannot be empty';
    case 'ZeroValueOutput':
      return opcode === Opcode.Transfer
        ? 'Transfer verification error: Outputs error: Zero value note'
        : 'Channel verification error: Outputs error: Zero value note';
    case 'InvalidEd25519Signature':
      return opcode === Opcode.SDPDeclare
        ? 'SDP verification error: Invalid SDP declare EDDSA signature'
        : 'Channel verification error: Invalid signature';
    case 'InvalidZkSignature':
      // inferred: the reference checks ZkSig proofs when a block is built, not on admission (docs/design/fidelity.md)
      return opcode === Opcode.SDPDeclare
        ? 'SDP verification error: Invalid SDP declare ZkSignature'
        : opcode === Opcode.Transfer
          ? 'Transfer verification error: Invalid transfer ZkSignature'
          : `Invalid ZK signature for ${opcode === undefined ? 'unknown' : OPCODE_NAMES[opcode]} operation at index ${i}`;
    default:
      return e.message;
  }
}

/** The body as a signed transaction, or the reference's plain-text 422. */
export function decodeTx(body: Json): SignedMantleTx {
  try {
    return signedMantleTx.fromJson(body);
  } catch (e) {
    if (e instanceof DecodeError) throw new Rejection(422, BODY_REJECTED + e.message);
    throw e;
  }
}

function channelJson(c: ChannelState): Json {
  return {
    accredited_keys: c.accredited_keys.map(bytesToHex),
    configuration_threshold: c.configuration_threshold,
    tip_message: bytesToHex(c.tip_message),
    config_tip_hash: bytesToHex(c.config_tip_hash),
    tip_slot: u64.toJson(c.tip_slot),
    tip_sequencer: c.tip_sequencer,
    tip_sequencer_starting_slot: u64.toJson(c.tip_sequencer_starting_slot),
    posting_timeframe: c.posting_timeframe,
    posting_timeout: c.posting_timeout,
    transfer_threshold: c.transfer_threshold,
  };
}

export const mantleHandlers: Handlers<typeof mantleRoutes, Pick<ApiContext, 'chain' | 'mempool'>> = {
  async mempoolAddTx(ctx, { body }) {
    const tx = decodeTx(body);
    try {
      await ctx.mempool.add(tx, 'api');
    } catch (e) {
      // F: preverification runs while the body is decoded (a 422); the pool's own refusals are 500s.
      if (e instanceof LedgerError) throw new Rejection(422, BODY_REJECTED + preverifyText(e, tx));
      // inferred: a full pool (`MEMPOOL_FULL`, a bound F's unbounded pool does not have) answers 500
      // with the pool's text, as F's other pool refusals (docs/design/fidelity.md)
      if (e instanceof MempoolError) throw new ApiError(500, e.message);
      throw e;
    }
    return { body: 'null' };
  },
  mempoolView(ctx) {
    return json(ctx.mempool.view().map(bytesToHex));
  },
  mantleMetrics(ctx) {
    const m = ctx.mempool.metrics();
    return json({ pending_items: m.pending_items, last_item_timestamp: m.last_item_timestamp });
  },
  mantleStatus(ctx, { body }) {
    // F: `Pending` for a pending transaction, `Unknown` for anything else (an included one too).
    return json(body.map((h) => (ctx.mempool.has(hexToBytes(h)) ? 'Pending' : 'Unknown')));
  },
  mantleGasPrices(ctx, { query }) {
    const at = query.tip ?? ctx.chain.tip().id;
    const state = ctx.chain.stateOf(at);
    // F `get_gas_prices` (`nodes/node/binary/src/api/handlers.rs`): its 404 text names no block.
    if (!state) throw notFound('Ledger state not found for block');
    return json({
      tip: bytesToHex(at),
      execution_base_gas_price: u64.toJson(state.gas.execution_base_gas_price),
      storage_gas_price: u64.toJson(state.gas.storage_gas_price),
    });
  },
  channel(ctx, { params: { id } }) {
    const c = ctx.chain.tip().state.channels.get(bytesToHex(id));
    if (!c) throw notFound('Channel not found');
    return json(channelJson(c));
  },
};
