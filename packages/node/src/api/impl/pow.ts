/**
 * Handlers of the PoW namespace (routes/pow.ts). A claim failure answers 500
 * `Failed to claim PoW rewards: <reason>`, as the reference.
 */
import { bytesToHex, hexToBytes } from '../../codec/hex.ts';
import { type Fr, frFromBytes, frToBytes } from '../../crypto/field.ts';
import { PowError } from '../../pow/index.ts';
import { ApiError } from '../errors.ts';
import type { powRoutes } from '../routes/pow.ts';
import type { ApiContext, Handlers } from '../types.ts';
import { json } from './reply.ts';

const frHex = (x: Fr) => bytesToHex(frToBytes(x));

/** A ZK public key from its hex (32 bytes, little-endian, canonical); undefined when it is not one. */
function zkKey(hex: string | undefined): Fr | undefined {
  if (hex === undefined) return undefined;
  try {
    const bytes = hexToBytes(hex);
    return bytes.length === 32 ? frFromBytes(bytes) : undefined;
  } catch {
    return undefined;
  }
}

export const powHandlers: Handlers<typeof powRoutes, Pick<ApiContext, 'pow'>> = {
  powStatus(ctx) {
    const s = ctx.pow.status();
    return json({
      is_mining: s.is_mining,
      are_rewards_enabled: s.are_rewards_enabled,
      auto_claim: {
        is_armed: s.auto_claim.is_armed,
        tick: { unit: s.auto_claim.tick.unit, value: s.auto_claim.tick.value },
        targets: s.auto_claim.targets.map((t) => ({
          public_key: frHex(t.public_key),
          threshold: t.threshold,
          balance: t.balance,
        })),
      },
    });
  },
  async powClaimable(ctx) {
    const r = await ctx.pow.claimable();
    return json({ claimable_tickets: r.claimable_tickets, slots_until_expiry: r.slots_until_expiry });
  },
  powMiningStart(ctx) {
    ctx.pow.startMining();
    return json(null);
  },
  powMiningStop(ctx) {
    ctx.pow.stopMining();
    return json(null);
  },
  powAutoClaimStart(ctx) {
    ctx.pow.startAutoClaim();
    return json(null);
  },
  powAutoClaimStop(ctx) {
    ctx.pow.stopAutoClaim();
    return json(null);
  },
  async powClaim(ctx, { body }) {
    // F: an invalid claim address counts as none (the neediest auto-claim target is paid).
    // inferred: any content type is read as JSON (docs/design/fidelity.md)
    const address = zkKey(body?.claim_address);
    try {
      const hash = await ctx.pow.claim(address);
      return json({ tx_hash: hash === null ? null : bytesToHex(hash) });
    } catch (e) {
      if (e instanceof PowError) throw new ApiError(500, `Failed to claim PoW rewards: ${e.message}`);
      throw e;
    }
  },
};
