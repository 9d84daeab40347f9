/** Route definitions of the channel namespace: deposits into a channel, funded by the node's wallet. */

import type { Json } from '@logos-ts/shared/json';
import { id32 } from '../../codec/primitives.ts';
import { fr } from '../../codec/schema.ts';
import { channelDepositOp } from '../../mantle/ops.ts';
import { codecSchema } from '../codec-schema.ts';
import { array, hex, type Infer, object, type Schema, u64 } from '../json-schema.ts';
import { def, type RouteDef } from '../route-def.ts';

const zkKey = codecSchema(fr, { type: 'string', pattern: '^[0-9a-f]{64}$' });

const required = object({
  deposit: codecSchema(channelDepositOp, {
    type: 'object',
    properties: {
      channel_id: { type: 'string' },
      inputs: { type: 'array', items: { type: 'string' } },
      metadata: { type: 'array', items: { type: 'integer' } },
    },
    required: ['channel_id', 'inputs', 'metadata'],
  }),
  change_public_key: zkKey,
  funding_public_keys: array(zkKey),
  max_tx_fee: u64,
});

const tipSchema = codecSchema(id32, {
  type: 'string',
  description: 'accepted (checked as a block id) and ignored: always funded against the current tip',
});

/** The deposit request; `tip` is optional (accepted and ignored, as the reference does). */
export const ChannelDepositRequest: Schema<Infer<typeof required>> = {
  jsonSchema: {
    ...required.jsonSchema,
    properties: { ...(required.jsonSchema.properties as object), tip: tipSchema.jsonSchema },
  },
  decode(v, path = '') {
    const out = required.decode(v, path);
    const tip = (v as { tip?: Json }).tip;
    if (tip !== undefined && tip !== null) tipSchema.decode(tip, path ? `${path}.tip` : 'tip');
    return out;
  },
};

export const channelRoutes = {
  channelDeposit: def({
    method: 'POST',
    path: '/channel/deposit',
    tag: 'Mantle',
    summary: 'Builds a channel deposit, funds and signs it with the node wallet and adds it to the mempool',
    body: ChannelDepositRequest,
    response: { json: object({ hash: hex(32) }) },
    errors: [500],
  }),
} as const satisfies Record<string, RouteDef>;
