/**
 * Route definitions of the leader namespace: the wallet's aged notes, its claimable reward vouchers,
 * the claim of one voucher, and (beyond the reference, under `/x/`) every voucher with its state.
 */
import { array, hex, literal, nullable, object, u64, uint } from '../json-schema.ts';
import { def, q, type RouteDef } from '../route-def.ts';

const id = hex(32);

export const AgedNotes = object({
  tip: id,
  notes: array(object({ note_id: id, value: u64, public_key: id })),
  count: uint(),
  total_value: u64,
});

export const ClaimableVouchers = object({
  tip: id,
  vouchers: array(object({ commitment: id, nullifier: id })),
  reward_amount: u64,
  total_claimable: u64,
});

export const VoucherStatus = literal('available', 'reserved', 'not_yet_provable', 'claimed');

export const WalletVouchers = object({
  tip: id,
  reward_amount: u64,
  vouchers: array(
    object({
      index: u64,
      commitment: id,
      nullifier: id,
      status: VoucherStatus,
      position: nullable(u64),
    }),
  ),
});

export const LeaderClaim = object({ tx_hash: id });

export const leaderRoutes = {
  leaderAgedNotes: def({
    method: 'GET',
    path: '/leader/aged-notes',
    tag: 'Leader',
    summary: "The wallet's notes in the epoch's aged snapshot that may win a slot (JSON sent as text/plain)",
    query: { tip: q.id('block id') },
    response: { json: AgedNotes },
  }),
  leaderClaimVouchers: def({
    method: 'GET',
    path: '/leader/claim/vouchers',
    tag: 'Leader',
    summary: "The wallet's reward vouchers that can be claimed now (JSON sent as text/plain)",
    query: { tip: q.id('block id') },
    response: { json: ClaimableVouchers },
  }),
  // F: the claim is a message to the `chain-leader` service, which serves its inbound messages only
  // once the chain is Online (`services/chain/chain-leader/src/lib.rs` `run`): it waits while Bootstrapping.
  leaderClaim: def({
    method: 'POST',
    path: '/leader/claim',
    tag: 'Leader',
    summary: 'Claims one reward voucher and adds the claim to the mempool (500 when none is claimable)',
    response: { json: LeaderClaim },
    errors: [500],
    gatedWhileBootstrapping: true,
  }),
  leaderVouchers: def({
    method: 'GET',
    path: '/x/leader/vouchers',
    tag: 'Leader',
    summary:
      "Every reward voucher of the wallet with its state: available (claimable now), reserved (a claim is pending), not_yet_provable (not in the epoch's voucher snapshot yet), claimed",
    response: { json: WalletVouchers },
  }),
} as const satisfies Record<string, RouteDef>;
