/**
 * Handlers of the SDP namespace (routes/sdp.ts): the declarations at the tip and the epoch's snapshot,
 * and the node's own SDP messages and current declaration.
 */

import type { Json } from '@logos-ts/shared/json';
import { bytesToHex } from '../../codec/hex.ts';
import { fr, u64 } from '../../codec/schema.ts';
import type { Declaration } from '../../ledger/state.ts';
import { locatorToString } from '../../mantle/locator.ts';
import type { SdpSubmission } from '../../ops/index.ts';
import type { sdpRoutes } from '../routes/sdp.ts';
import type { ApiContext, ApiReply, Handlers } from '../types.ts';
import { json } from './reply.ts';

function declarationJson(d: Declaration): Json {
  return {
    service_type: d.service_type,
    provider_id: bytesToHex(d.provider_id),
    service_note_id: fr.toJson(d.service_note_id),
    locators: d.locators.map(locatorToString),
    zk_id: fr.toJson(d.zk_id),
    created: d.created,
    active: d.active,
    withdraw_at: d.withdraw_at,
    nonce: u64.toJson(d.nonce),
  };
}

function declarationsJson(m: Iterable<[string, Declaration]>): Json {
  const out: { [k: string]: Json } = {};
  for (const [id, d] of [...m].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) out[id] = declarationJson(d);
  return out;
}

/** `{declaration_id, tx_id}`. */
export const submissionReply = (s: SdpSubmission): ApiReply =>
  json({ declaration_id: bytesToHex(s.declarationId), tx_id: bytesToHex(s.txHash) });

export const sdpHandlers: Handlers<typeof sdpRoutes, Pick<ApiContext, 'chain' | 'ops'>> = {
  sdpDeclarations: (ctx) => json(declarationsJson(ctx.chain.tip().state.sdp.declarations.entries())),
  sdpSnapshot: (ctx) => json(declarationsJson(ctx.chain.tip().state.sdp.snapshot.entries())),
  sdpPostDeclaration: async (ctx, { body }) => submissionReply(await ctx.ops.declare(body)),
  sdpPostActivity: async (ctx, { body }) => submissionReply(await ctx.ops.activity(body)),
  sdpPostWithdrawal: async (ctx, { body }) => submissionReply(await ctx.ops.withdraw(body)),
  async sdpSetDeclarationId(ctx, { body }) {
    await ctx.ops.setDeclarationId(body);
    return { body: 'null' };
  },
};
