/**
 * Handlers of the leader namespace (routes/leader.ts): aged notes and claimable vouchers (JSON sent
 * as text/plain, as the reference does), the claim of one voucher, and the wallet's vouchers by state.
 */
import { bytesToHex } from '../../codec/hex.ts';
import { frToBytes } from '../../crypto/field.ts';
import type { leaderRoutes } from '../routes/leader.ts';
import type { ApiContext, Handlers } from '../types.ts';
import { json, jsonAsText } from './reply.ts';

const frHex = (x: bigint) => bytesToHex(frToBytes(x));

export const leaderHandlers: Handlers<typeof leaderRoutes, Pick<ApiContext, 'ops'>> = {
  leaderAgedNotes(ctx, { query }) {
    const r = ctx.ops.agedNotes(query.tip);
    return jsonAsText({
      tip: bytesToHex(r.tip),
      notes: r.notes.map((n) => ({
        note_id: frHex(n.note_id),
        value: n.value,
        public_key: frHex(n.public_key),
      })),
      count: r.notes.length,
      total_value: r.notes.reduce((a, n) => a + n.value, 0n),
    });
  },
  leaderClaimVouchers(ctx, { query }) {
    const r = ctx.ops.claimableVouchers(query.tip);
    return jsonAsText({
      tip: bytesToHex(r.tip),
      vouchers: r.vouchers.map((v) => ({ commitment: frHex(v.commitment), nullifier: frHex(v.nullifier) })),
      reward_amount: r.reward_amount,
      total_claimable: r.reward_amount * BigInt(r.vouchers.length),
    });
  },
  async leaderClaim(ctx) {
    return json({ tx_hash: bytesToHex(await ctx.ops.claim()) });
  },
  leaderVouchers(ctx) {
    const r = ctx.ops.walletVouchers();
    return json({
      tip: bytesToHex(r.tip),
      reward_amount: r.reward_amount,
      vouchers: r.vouchers.map((v) => ({
        index: v.index,
        commitment: frHex(v.cm),
        nullifier: frHex(v.nullifier),
        status: v.status,
        position: v.position === undefined ? null : BigInt(v.position),
      })),
    });
  },
};
