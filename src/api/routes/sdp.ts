/** Route definitions of the service declaration protocol (SDP) namespace: the declarations. */

import { array, hex, literal, nullable, object, record, string, u64 } from '../json-schema.ts';
import { def, type RouteDef } from '../route-def.ts';

const id = hex(32);

export const Declaration = object({
  service_type: literal('BN'),
  provider_id: hex(32, 'provider public key'),
  service_note_id: id,
  locators: array(string),
  zk_id: id,
  created: u64,
  active: u64,
  withdraw_at: nullable(u64),
  nonce: u64,
});

export const Declarations = record(Declaration, 'declaration id → declaration');

export const sdpRoutes = {
  sdpDeclarations: def({
    method: 'GET',
    path: '/mantle/sdp/declarations',
    tag: 'SDP',
    summary: 'Service declarations at the tip, by declaration id',
    response: { json: Declarations },
  }),
  sdpSnapshot: def({
    method: 'GET',
    path: '/mantle/sdp/snapshot',
    tag: 'SDP',
    summary: 'Service declarations as frozen for the current epoch',
    response: { json: Declarations },
  }),
} as const satisfies Record<string, RouteDef>;
