/**
 * Leader rewards: every header commits a voucher; a voucher of epoch E can be claimed from E+1 with a
 * proof of claim, and the claimable pool is split evenly across the vouchers not yet claimed.
 */
import { type LeaderClaimOp, Opcode, opId } from '../mantle/ops.ts';
import type { OpProof } from '../mantle/proofs.ts';
import type { Draft } from './draft.ts';
import { fail } from './errors.ts';
import type { TxEventPayload } from './events.ts';
import type { OpEnv } from './op-env.ts';

/**
 * Reward of one claim now: the claimable pool over the unclaimed vouchers of the snapshot (rounded
 * down), or 0 when none is unclaimed. F: ledger/src/mantle/leader.rs `reward_amount`.
 */
export function voucherRewardAmount(d: Pick<Draft, 'leader'>): bigint {
  const unclaimed = BigInt(d.leader.snapshot.count) - BigInt(d.leader.nullifiers.size);
  return unclaimed > 0n ? d.leader.claimable_rewards / unclaimed : 0n;
}

export function applyLeaderClaim(env: OpEnv, op: LeaderClaimOp, proof: OpProof): TxEventPayload {
  const { draft, opIndex } = env;
  if (proof.type !== 'PoC') fail('IncorrectProofType', 'expected a proof of claim', opIndex);
  if (draft.leader.nullifiers.has(op.voucher_nullifier)) {
    fail('VoucherAlreadyClaimed', 'the voucher nullifier is already used', opIndex);
  }
  if (op.rewards_root !== draft.leader.snapshot.root) {
    fail('InvalidRewardsRoot', 'rewards_root is not the voucher root of the epoch snapshot', opIndex);
  }
  // The proof of claim itself is verified statelessly (preverify): it binds the nullifier, the
  // rewards root named in the op and the tx hash.
  // The claim creates its note whatever the amount, 0 included (F: core/src/mantle/ops/leader_claim.rs).
  const amount = voucherRewardAmount(draft);
  const id = opId({ opcode: Opcode.LeaderClaim, payload: op });
  const note = { value: amount, pk: op.pk };
  draft.addNote(id, 0, note, null, opIndex);
  draft.leader = {
    ...draft.leader,
    nullifiers: draft.leader.nullifiers.set(op.voucher_nullifier, true),
    claimable_rewards: draft.leader.claimable_rewards - amount,
  };
  return {
    type: 'LeaderRewardClaimed',
    voucher_nullifier: op.voucher_nullifier,
    utxo: { op_id: id, output_index: 0, note },
  };
}

/** A header's voucher enters the tree; called after the epoch change of its block. */
export function commitVoucher(draft: Draft, voucherCm: bigint): void {
  draft.leader = { ...draft.leader, vouchers: draft.leader.vouchers.append(voucherCm) };
}

/** First block of a new epoch: freeze the voucher tree and make the epoch's rewards claimable. */
export function leaderEpochChange(draft: Draft): void {
  const l = draft.leader;
  draft.leader = {
    ...l,
    snapshot: { root: l.vouchers.root(), count: l.vouchers.count },
    claimable_rewards: l.claimable_rewards + l.pending_rewards,
    pending_rewards: 0n,
  };
}
