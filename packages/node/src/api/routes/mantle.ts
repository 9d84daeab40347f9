/** Route definitions of the Mantle namespace: the mempool (add, view, metrics, status), gas prices, channels. */

import type { Json } from '@logos-ts/shared/json';
import {
  array,
  hex,
  literal,
  nullValue,
  object,
  type Schema,
  SchemaError,
  u64,
  uint,
} from '../json-schema.ts';
import { def, q, type RouteDef } from '../route-def.ts';
import { SignedTransaction } from './cryptarchia.ts';

const id = hex(32);

export const GasPrices = object({
  tip: id,
  execution_base_gas_price: u64,
  storage_gas_price: u64,
});

export const Channel = object({
  accredited_keys: array(hex(32, 'Ed25519 public key')),
  configuration_threshold: uint('uint16'),
  tip_message: id,
  config_tip_hash: id,
  tip_slot: u64,
  tip_sequencer: uint('uint16'),
  tip_sequencer_starting_slot: u64,
  posting_timeframe: uint(),
  posting_timeout: uint(),
  transfer_threshold: uint('uint16'),
});

/**
 * A signed transaction as a request body: documented as `SignedTransaction`, kept as parsed JSON here
 * and decoded (with the codec's strict checks and preverification) by the handler, which answers the
 * reference's 422 text when it fails.
 */
export const SignedTransactionBody: Schema<Json> = {
  jsonSchema: {
    type: 'object',
    properties: {
      mantle_tx: { type: 'object', properties: { ops: { type: 'array' } } },
      ops_proofs: { type: 'array' },
    },
    required: ['mantle_tx', 'ops_proofs'],
    description:
      SignedTransaction.jsonSchema.description ?? 'a signed transaction: mantle_tx and one proof per op',
  },
  decode(v, path = '') {
    if (v === null || typeof v !== 'object' || Array.isArray(v))
      throw new SchemaError(path, 'struct SignedMantleTx', v);
    return v;
  },
};

export const MempoolMetrics = object({
  pending_items: uint(),
  last_item_timestamp: u64,
});

export const MempoolStatus = literal('Pending', 'Unknown');

export const mantleRoutes = {
  mempoolAddTx: def({
    method: 'POST',
    path: '/mempool/add/tx',
    tag: 'Mempool',
    summary: 'Adds a signed transaction to the mempool (200 null; also for one already pending)',
    body: SignedTransactionBody,
    response: { json: nullValue },
    errors: [500],
  }),
  mempoolView: def({
    method: 'GET',
    path: '/mempool/view',
    tag: 'Mempool',
    summary: 'Hashes of the pending transactions that can be included on top of the tip, in arrival order',
    response: { json: array(id) },
  }),
  mantleMetrics: def({
    method: 'GET',
    path: '/mantle/metrics',
    tag: 'Mempool',
    summary: 'Pending transactions and the time of the latest addition (ms since the Unix epoch)',
    response: { json: MempoolMetrics },
  }),
  mantleStatus: def({
    method: 'POST',
    path: '/mantle/status',
    tag: 'Mempool',
    summary: 'Pending or Unknown for each transaction hash, in request order',
    body: array(id),
    response: { json: array(MempoolStatus) },
  }),
  mantleGasPrices: def({
    method: 'GET',
    path: '/mantle/gas-prices',
    tag: 'Mantle',
    summary: 'Gas prices at a block (default: the tip)',
    query: { tip: q.id('block id') },
    response: { json: GasPrices },
    errors: [404],
  }),
  channel: def({
    method: 'GET',
    path: '/channel/{id}',
    tag: 'Mantle',
    summary: 'State of a channel at the tip',
    response: { json: Channel },
    errors: [404],
  }),
} as const satisfies Record<string, RouteDef>;
