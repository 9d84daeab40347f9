/** Leader reward claims against a ledger state, ported from the reference (ledger/src/lib.rs). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { epochSchedule } from '../../src/ledger/config.ts';
import { insecureTestPocProof } from '../../src/ledger/insecure-test-proofs.ts';
import type { LedgerState } from '../../src/ledger/state.ts';
import { type LeaderClaimOp, type Op, Opcode } from '../../src/mantle/ops.ts';
import { txHashToFr } from '../../src/mantle/tx.ts';
import { DEVNET, TestChain } from '../ledger/helpers.ts';
import { applyTx, rejects, signed, withPrices } from './ledger-helpers.ts';

const LIB = 'ledger/src/lib.rs';
const EPOCH = epochSchedule(DEVNET.ledger.consensus).epoch_length;

/** Vouchers `epoch1` committed by blocks of epoch 1, then one block of epoch 2; claimable set to `rewards`. */
function leaderState(epoch1: bigint[], rewards: bigint): LedgerState {
  const c = new TestChain();
  epoch1.forEach((v, i) => {
    c.apply([], EPOCH + 1n + BigInt(i), v);
  });
  c.apply([], 2n * EPOCH + 1n, 99n);
  assert.equal(c.state.leader.snapshot.count, epoch1.length);
  const s = withPrices(c.state, 0n, 0n);
  return { ...s, leader: { ...s.leader, claimable_rewards: rewards } };
}

function claimTx(state: LedgerState, nullifier: bigint) {
  const op: LeaderClaimOp = {
    rewards_root: state.leader.snapshot.root,
    voucher_nullifier: nullifier,
    pk: 0n,
  };
  const o: Op = { opcode: Opcode.LeaderClaim, payload: op };
  return signed([o], [], (hash) => ({
    type: 'PoC',
    proof: insecureTestPocProof({
      voucher_nullifier: nullifier,
      voucher_root: op.rewards_root,
      mantle_tx_hash: txHashToFr(hash),
    }),
  }));
}

function claimed(events: ReturnType<typeof applyTx>['events']): bigint {
  const ev = events[0]!;
  if (ev.kind !== 'Tx' || ev.event.payload.type !== 'LeaderRewardClaimed')
    throw new Error('expected a claim');
  return ev.event.payload.utxo.note.value;
}

test(`test_leader_claim_operation (${LIB})`, () => {
  let state = leaderState([0n, 1n, 2n], 300n);
  for (const nf of [0n, 1n, 2n]) {
    const r = applyTx(state, claimTx(state, nf));
    assert.equal(claimed(r.events), 100n);
    state = r.state;
  }
  assert.equal(state.leader.claimable_rewards, 0n);
});

test(`test_duplicate_leader_claim_is_rejected (${LIB})`, () => {
  const state = leaderState([0n], 100n);
  const tx = claimTx(state, 0n);
  const r = applyTx(state, tx);
  assert.equal(claimed(r.events), 100n);
  rejects(() => applyTx(r.state, claimTx(r.state, 0n)), 'VoucherAlreadyClaimed');
});
