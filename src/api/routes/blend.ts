/** Route definitions of the Blend namespace: joining the Blend network as a core node (its declaration). */

import { fr } from '../../codec/schema.ts';
import { locator } from '../../mantle/locator.ts';
import { codecSchema } from '../codec-schema.ts';
import { object } from '../json-schema.ts';
import { def, type RouteDef } from '../route-def.ts';
import { SdpSubmission } from './sdp.ts';

export const JoinBlend = object({
  locator: codecSchema(locator, { type: 'string' }),
  service_note_id: codecSchema(fr, { type: 'string', pattern: '^[0-9a-f]{64}$' }),
});

export const blendRoutes = {
  blendJoin: def({
    method: 'POST',
    path: '/blend/join',
    tag: 'Blend',
    summary: "Declares this node as a Blend core node (an SDP declaration with the node's Blend keys)",
    body: JoinBlend,
    response: { json: SdpSubmission },
    errors: [500],
  }),
} as const satisfies Record<string, RouteDef>;
