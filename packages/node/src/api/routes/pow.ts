/**
 * Route definitions of the PoW namespace: the service's status, the claimable tickets, the mining and
 * auto-claim toggles (commands: 200 `null` at once, `GET /pow/status` shows their effect) and the claim.
 * Status, claimable and claim wait while consensus is Bootstrapping, as the reference's service only
 * answers once the chain is Online.
 */
import {
  array,
  boolean,
  hex,
  literal,
  nullable,
  nullValue,
  object,
  string,
  u64,
  uint,
} from '../json-schema.ts';
import { def, type RouteDef } from '../route-def.ts';

export const PowStatus = object({
  is_mining: boolean,
  are_rewards_enabled: boolean,
  auto_claim: object({
    is_armed: boolean,
    tick: object({ unit: literal('seconds', 'slots'), value: u64 }),
    targets: array(object({ public_key: hex(32), threshold: u64, balance: nullable(u64) })),
  }),
});

export const ClaimableRewards = object({
  claimable_tickets: uint(),
  slots_until_expiry: array(u64),
});

export const PowClaimRequest = object({
  claim_address: string,
});

export const PowClaimResult = object({ tx_hash: nullable(hex(32)) });

const toggle = (path: string, summary: string) =>
  def({ method: 'PUT', path, tag: 'PoW', summary, response: { json: nullValue } });

export const powRoutes = {
  powStatus: def({
    method: 'GET',
    path: '/pow/status',
    tag: 'PoW',
    summary: 'Mining, rewards and auto-claim state, with the balance of each auto-claim target',
    response: { json: PowStatus },
    gatedWhileBootstrapping: true,
  }),
  powClaimable: def({
    method: 'GET',
    path: '/pow/rewards/claimable',
    tag: 'PoW',
    summary: 'The mined winning tickets still within the reward window, with the slots each has left',
    response: { json: ClaimableRewards },
    gatedWhileBootstrapping: true,
  }),
  powMiningStart: toggle('/pow/mining/start', 'Turns mining on (not persisted: a restart turns it off)'),
  powMiningStop: toggle('/pow/mining/stop', 'Turns mining off'),
  powAutoClaimStart: toggle(
    '/pow/auto-claim/start',
    'Arms auto-claim (ignored when rewards are disabled or no target is configured)',
  ),
  powAutoClaimStop: toggle('/pow/auto-claim/stop', 'Disarms auto-claim (manual claims still work)'),
  powClaim: def({
    method: 'POST',
    path: '/pow/claim',
    tag: 'PoW',
    summary:
      'Claims the ready tickets in one transaction added to the mempool, to claim_address or else to the neediest auto-claim target; tx_hash null when no ticket is ready. The body is optional: one that is not valid JSON, or whose claim_address is not a ZK public key, counts as none',
    body: PowClaimRequest,
    optionalBody: true,
    response: { json: PowClaimResult },
    errors: [500],
    gatedWhileBootstrapping: true,
  }),
} as const satisfies Record<string, RouteDef>;
