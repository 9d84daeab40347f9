/** Handlers of the SDP namespace (routes/sdp.ts): the declarations at the tip and the epoch's snapshot. */
import { bytesToHex } from '../../codec/hex.ts';
import type { Json } from '../../codec/json.ts';
import { fr, u64 } from '../../codec/schema.ts';
import type { Declaration } from '../../ledger/state.ts';
import { locatorToString } from '../../mantle/locator.ts';
import type { sdpRoutes } from '../routes/sdp.ts';
import type { ApiContext, Handlers } from '../types.ts';
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

export const sdpHandlers: Handlers<typeof sdpRoutes, Pick<ApiContext, 'chain'>> = {
  sdpDeclarations: (ctx) => json(declarationsJson(ctx.chain.tip().state.sdp.declarations.entries())),
  sdpSnapshot: (ctx) => json(declarationsJson(ctx.chain.tip().state.sdp.snapshot.entries())),
};
