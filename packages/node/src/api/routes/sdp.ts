/**
 * Route definitions of the service declaration protocol (SDP) namespace: the declarations, and the
 * node's own SDP messages (declaration, activity, withdrawal) and current declaration.
 */

import { id32 } from '../../codec/primitives.ts';
import { activityMetadata, sdpDeclareOp } from '../../mantle/ops.ts';
import { codecSchema } from '../codec-schema.ts';
import { array, hex, literal, nullable, nullValue, object, record, string, u64 } from '../json-schema.ts';
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

/** The answer to the node's SDP messages: the declaration concerned and the submitted transaction. */
export const SdpSubmission = object({ declaration_id: id, tx_id: id });

const HEX64 = { type: 'string', pattern: '^[0-9a-fA-F]{64}$' };

export const DeclarationMessage = codecSchema(sdpDeclareOp, {
  type: 'object',
  properties: {
    service_type: { type: 'string', enum: ['BN'] },
    locators: { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 8 },
    provider_id: HEX64,
    zk_id: HEX64,
    service_note_id: HEX64,
  },
  required: ['service_type', 'locators', 'provider_id', 'zk_id', 'service_note_id'],
});

export const ActivityMetadata = codecSchema(activityMetadata, {
  type: 'object',
  properties: { Blend: { type: 'object' } },
  required: ['Blend'],
});

const declarationIdBody = codecSchema(id32, HEX64);

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
  sdpPostDeclaration: def({
    method: 'POST',
    path: '/sdp/declaration',
    tag: 'SDP',
    summary:
      'Builds a declaration, funds and signs it with the node wallet and adds it to the mempool; it becomes the current declaration',
    body: DeclarationMessage,
    response: { json: SdpSubmission },
    errors: [500],
  }),
  sdpPostActivity: def({
    method: 'POST',
    path: '/sdp/activity',
    tag: 'SDP',
    summary: 'An activity message for the current declaration (fails when none is set)',
    body: ActivityMetadata,
    response: { json: SdpSubmission },
    errors: [500],
  }),
  sdpPostWithdrawal: def({
    method: 'POST',
    path: '/sdp/withdrawal',
    tag: 'SDP',
    summary: 'Withdraws a declaration; afterwards the node has no current declaration',
    body: declarationIdBody,
    response: { json: SdpSubmission },
    errors: [500],
  }),
  sdpSetDeclarationId: def({
    method: 'POST',
    path: '/sdp/set-declaration-id',
    tag: 'SDP',
    summary: 'Sets the current declaration (it must exist at the tip) or clears it (null)',
    body: nullable(declarationIdBody),
    response: { json: nullValue },
    errors: [500],
  }),
} as const satisfies Record<string, RouteDef>;
