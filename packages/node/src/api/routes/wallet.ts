/**
 * Route definitions of the wallet namespace (F `nodes/api-common/src/bodies/wallet.rs`, handlers in
 * `nodes/node/binary/src/api/handlers.rs`): balances, transfers, funding a builder, signing with the
 * node's keys. Request fields are checked here with the chain codecs (canonical field elements, curve
 * points, u64 bounds) and reach the handlers in their JSON form; handlers decode them again.
 */

import type { Json } from '@logos-ts/shared/json';
import { DecodeError } from '../../codec/errors.ts';
import { ed25519PublicKey, id32 } from '../../codec/primitives.ts';
import { type Codec, fr } from '../../codec/schema.ts';
import { frFromBytes } from '../../crypto/field.ts';
import { MAX_ZK_SIGNING_KEYS } from '../../kms/index.ts';
import { utxo } from '../../mantle/note.ts';
import { transferOp } from '../../mantle/ops.ts';
import { proofFromJson } from '../../mantle/proofs.ts';
import { mantleTx } from '../../mantle/tx.ts';
import { Rejection } from '../errors.ts';
import {
  anyJson,
  array,
  boundedArray,
  hex,
  nullable,
  object,
  record,
  type Schema,
  SchemaError,
  u64,
} from '../json-schema.ts';
import { id32 as parseId32 } from '../params.ts';
import { def, type PathParam, q, type RouteDef } from '../route-def.ts';

/** A request field checked with a chain codec; it reaches the handler as sent. */
function checked<T extends Json>(codec: Codec<unknown>, jsonSchema: Schema<T>['jsonSchema']): Schema<T> {
  return {
    jsonSchema,
    decode(v, path = '') {
      try {
        codec.fromJson(v);
      } catch (e) {
        if (!(e instanceof DecodeError)) throw e;
        const where = [path, e.path].filter((p) => p !== '').join(path && e.path.startsWith('[') ? '' : '.');
        throw new SchemaError(where, `${codec.kind}: ${e.reason}`, v);
      }
      return v as T;
    },
  };
}

const FR_SCHEMA = {
  type: 'string',
  pattern: '^[0-9a-fA-F]{64}$',
  description: 'ZK public key: a field element, 32 bytes little-endian in hex',
};
/** A ZK public key (a canonical field element). */
export const zkPk = checked<string>(fr, FR_SCHEMA);
const txHashField = checked<string>(id32, { type: 'string', description: 'transaction hash (32 bytes hex)' });
const ed25519Pk = checked<string>(ed25519PublicKey, {
  type: 'string',
  description: 'Ed25519 public key (hex)',
});

/** The builder's channel multi-signature proofs: op index → `{signatures:[...]}`. */
const multiSigProofs: Codec<unknown> = {
  kind: 'channel multi-signature proofs by op index',
  write() {
    throw new Error('unreachable');
  },
  read() {
    throw new Error('unreachable');
  },
  toJson: (v) => v as Json,
  fromJson(j) {
    if (j === null || typeof j !== 'object' || Array.isArray(j)) throw new DecodeError('expected an object');
    for (const [k, v] of Object.entries(j)) {
      if (!/^(0|[1-9]\d{0,2})$/.test(k) || Number(k) > 255)
        throw new DecodeError(`op index ${JSON.stringify(k)} is not an operation index`);
      try {
        proofFromJson({ ChannelMultiSigProof: v as Json });
      } catch (e) {
        if (e instanceof DecodeError) throw e.under(k);
        throw e;
      }
    }
    return j;
  },
};

/** F `MantleTxBuilder` serde: `{mantle_tx:{ops}, ledger_inputs, pending_transfer, channel_multi_sig_proofs}`. */
export const TxBuilderJson = object(
  {
    mantle_tx: checked<Json>(mantleTx, { type: 'object', description: 'unsigned transaction `{ops:[...]}`' }),
    ledger_inputs: array(
      checked<Json>(utxo, { type: 'object', description: 'a utxo `{op_id:[32 ints], output_index, note}`' }),
    ),
    pending_transfer: checked<Json>(transferOp, {
      type: 'object',
      description: 'the funding transfer being built `{inputs, outputs}`',
    }),
    channel_multi_sig_proofs: checked<Json>(multiSigProofs, {
      type: 'object',
      description: 'op index → channel multi-signature proof',
    }),
  },
  'a transaction builder (F MantleTxBuilder)',
);

export const TransferFundsBody = object({
  tip: nullable(checked<string>(id32, { type: 'string', description: 'block id' })),
  change_public_key: zkPk,
  funding_public_keys: array(zkPk),
  recipient_public_key: zkPk,
  amount: u64,
});

/** `tip` and `priority_fee_percent` may be left out (serde `Option` and `#[serde(default)]`). */
function optionalFields<T extends object>(
  inner: Schema<T>,
  defaults: Readonly<Record<string, Json>>,
): Schema<T> {
  return {
    jsonSchema: {
      ...inner.jsonSchema,
      required: (inner.jsonSchema.required as string[]).filter((k) => !(k in defaults)),
    },
    decode(v, path) {
      if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
        const filled: Record<string, Json> = { ...v };
        for (const [k, d] of Object.entries(defaults)) if (!Object.hasOwn(filled, k)) filled[k] = d;
        return inner.decode(filled, path);
      }
      return inner.decode(v, path);
    },
  };
}

export const TransferFunds = optionalFields(TransferFundsBody, { tip: null });

export const Fund = optionalFields(
  object({
    tip: nullable(checked<string>(id32, { type: 'string', description: 'block id' })),
    tx_builder: TxBuilderJson,
    change_public_key: zkPk,
    funding_public_keys: array(zkPk),
    max_tx_fee: u64,
    priority_fee_percent: u64,
  }),
  { tip: null, priority_fee_percent: 0 },
);

export const SignEd25519 = object({ tx_hash: txHashField, pk: ed25519Pk });
/** `pks`: F `ZkPublicKeys` = `UpperBoundedVec<ZkPublicKey, MAX_ZK_SIGNING_KEYS>`, refused while decoding (422). */
export const SignZk = object({ tx_hash: txHashField, pks: boundedArray(zkPk, MAX_ZK_SIGNING_KEYS) });

const id = hex(32);

export const WalletBalance = object({
  tip: id,
  balance: u64,
  notes: record(u64, 'note id → value'),
  address: hex(32, 'ZK public key'),
});

export const ZkSignatureJson = object({ pi_a: hex(32), pi_b: hex(64), pi_c: hex(32) });

export const FundedTx = object({
  tip: id,
  funded_tx: anyJson('the funded transaction `{ops:[...]}`: every op unsigned, the fee transfer last'),
  transfer_proof: nullable(anyJson('`{"ZkSig":{pi_a,pi_b,pi_c}}` over the funded transaction hash')),
});

/** A ZK public key in a path (`/wallet/{public_key}/balance`): 32 bytes hex, a canonical field element. */
const ZK_PK_PATH: PathParam<bigint> = {
  jsonSchema: FR_SCHEMA,
  parse(raw, name) {
    const b = parseId32(raw, name);
    try {
      return frFromBytes(b);
    } catch {
      throw new Rejection(
        400,
        `Invalid URL: Cannot parse \`${name}\` with value \`${raw}\`: not a canonical field element`,
      );
    }
  },
};

export const walletRoutes = {
  walletBalance: def({
    method: 'GET',
    path: '/wallet/{public_key}/balance',
    tag: 'Wallet',
    summary:
      "A key's notes and balance at a block (default: the tip); notes held by channels are not counted",
    params: { public_key: ZK_PK_PATH },
    query: { tip: q.id('block id') },
    response: { json: WalletBalance },
    errors: [404, 500],
  }),
  walletTransferFunds: def({
    method: 'POST',
    path: '/wallet/transactions/transfer-funds',
    tag: 'Wallet',
    summary: 'Builds, funds (exact mandatory fee, largest notes first), signs and submits a transfer',
    body: TransferFunds,
    response: { json: object({ hash: id }) },
    status: 201,
    errors: [500],
  }),
  walletFund: def({
    method: 'POST',
    path: '/wallet/fund',
    tag: 'Wallet',
    summary:
      "Funds a transaction builder from the funding keys' notes (fee transfer appended last); not signed",
    body: Fund,
    response: { json: FundedTx },
    errors: [500],
  }),
  walletSignEd25519: def({
    method: 'POST',
    path: '/wallet/sign/ed25519',
    tag: 'Wallet',
    summary: 'Signs a transaction hash with a key of the key store (Ed25519)',
    body: SignEd25519,
    response: { json: object({ sig: hex(64) }) },
    errors: [500],
  }),
  walletSignZk: def({
    method: 'POST',
    path: '/wallet/sign/zk',
    tag: 'Wallet',
    summary: 'Signs a transaction hash with up to 32 ZK keys of the key store (ZkSig)',
    body: SignZk,
    response: { json: object({ sig: ZkSignatureJson }) },
    errors: [500],
  }),
} as const satisfies Record<string, RouteDef>;
