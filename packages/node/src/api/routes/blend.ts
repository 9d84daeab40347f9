/**
 * Route definitions of the Blend namespace: the node's Blend network info, joining as a core node (an
 * SDP declaration), sending a transaction through the mix network, and the transactions an edge node
 * holds until a PoW solution backs them. Info and pending wait while consensus is Bootstrapping, as
 * the reference's service only answers once the chain is Online.
 */

import { fr } from '../../codec/schema.ts';
import { locator } from '../../mantle/locator.ts';
import { codecSchema } from '../codec-schema.ts';
import { array, boolean, hex, nullable, object, pair, string } from '../json-schema.ts';
import { def, type RouteDef } from '../route-def.ts';
import { SignedTransactionBody } from './mantle.ts';
import { SdpSubmission } from './sdp.ts';

export const JoinBlend = object({
  locator: codecSchema(locator, { type: 'string' }),
  service_note_id: codecSchema(fr, { type: 'string', pattern: '^[0-9a-f]{64}$' }),
});

export const BlendInfo = nullable(
  object({
    node_id: string,
    core_info: nullable(
      object({
        current_epoch_peers: array(pair(string, boolean)),
        old_epoch_peers: nullable(array(string)),
      }),
    ),
  }),
);

export const blendRoutes = {
  blendInfo: def({
    method: 'GET',
    path: '/blend/info',
    tag: 'Blend',
    summary:
      "This node's Blend peer id and, for a core node, its core peers of the current epoch (with their health) and of the previous one during a transition",
    response: { json: BlendInfo },
    gatedWhileBootstrapping: true,
  }),
  blendJoin: def({
    method: 'POST',
    path: '/blend/join',
    tag: 'Blend',
    summary: "Declares this node as a Blend core node (an SDP declaration with the node's Blend keys)",
    body: JoinBlend,
    response: { json: SdpSubmission },
    errors: [500],
  }),
  blendDisperse: def({
    method: 'POST',
    path: '/blend/transactions/disperse',
    tag: 'Blend',
    summary:
      "Sends a signed transaction through the Blend network instead of this node's mempool; answers its hash once accepted for blending",
    body: SignedTransactionBody,
    response: { json: hex(32) },
    errors: [422, 500],
  }),
  blendPending: def({
    method: 'GET',
    path: '/blend/transactions/pending',
    tag: 'Blend',
    summary: 'Hashes of the transactions waiting for a PoW solution before they are blended, oldest first',
    response: { json: array(hex(32)) },
    gatedWhileBootstrapping: true,
  }),
} as const satisfies Record<string, RouteDef>;
