/** Route definitions of the Mantle namespace: gas prices and channels. */

import { array, hex, object, u64, uint } from '../json-schema.ts';
import { def, q, type RouteDef } from '../route-def.ts';

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

export const mantleRoutes = {
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
