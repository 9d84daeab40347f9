/**
 * Leader rewards: tests of the reference's ledger/src/mantle/leader.rs, ledger/src/lib.rs (leader
 * claims) and core/src/mantle/ops/leader_claim.rs. Proofs of claim are the insecure test proofs:
 * they bind the same public inputs (voucher nullifier, voucher root, tx hash) as the circuit.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bytesToHex } from '../../src/codec/hex.ts';
import { checkTx, executeTx } from '../../src/ledger/apply.ts';
import { Draft } from '../../src/ledger/draft.ts';
import { LedgerError } from '../../src/ledger/errors.ts';
import {
  applyLeaderClaim,
  commitVoucher,
  leaderEpochChange,
  voucherRewardAmount,
} from '../../src/ledger/leader-claims.ts';
import type { OpEnv } from '../../src/ledger/op-env.ts';
import { noteId } from '../../src/mantle/note.ts';
import { type LeaderClaimOp, type Op, Opcode, opId } from '../../src/mantle/ops.ts';
import { insecureTestPocProof } from '../../src/zk/insecure-test-proofs.ts';
import { feeOp, genesisNotes, newKey, type Owned, signTx, TestChain } from '../mocks/ledger.ts';

function rejects(fn: () => unknown, code: string) {
  assert.throws(fn, (e: unknown) => e instanceof LedgerError && e.ledgerCode === code, `expected ${code}`);
}

/** A draft over a fresh chain's state, and a header applier in the reference's `try_apply_header` shape. */
function leaderDriver() {
  const draft = new Draft(new TestChain().state);
  let epoch = 0;
  return {
    draft,
    applyHeader(e: number, voucherCm: bigint) {
      if (e > epoch) {
        leaderEpochChange(draft);
        epoch = e;
      }
      commitVoucher(draft, voucherCm);
    },
  };
}

function envOf(draft: Draft): OpEnv {
  return {
    ctx: new TestChain().ctx,
    draft,
    txHash: new Uint8Array(32),
    txMsg: 0n,
    opIndex: 0,
    slot: 1n,
    genesis: false,
  };
}

const DUMMY_POC = { type: 'PoC' as const, proof: new Uint8Array(128) };

test('test_leader_claim_operation (ledger/src/lib.rs)', () => {
  const s = leaderDriver();
  s.applyHeader(1, 0n);
  s.applyHeader(1, 1n);
  s.applyHeader(1, 2n);
  s.applyHeader(2, 3n);
  s.draft.leader = { ...s.draft.leader, claimable_rewards: 300n };
  for (const nf of [0n, 1n, 2n]) {
    assert.equal(voucherRewardAmount(s.draft), 100n);
    const op: LeaderClaimOp = { rewards_root: s.draft.leader.snapshot.root, voucher_nullifier: nf, pk: 0n };
    const ev = applyLeaderClaim(envOf(s.draft), op, DUMMY_POC);
    assert.ok(ev.type === 'LeaderRewardClaimed');
    assert.equal(ev.utxo.note.value, 100n);
  }
  assert.equal(s.draft.leader.claimable_rewards, 0n);
});

test('test_duplicate_leader_claim_is_rejected (ledger/src/lib.rs)', () => {
  const s = leaderDriver();
  s.applyHeader(1, 0n);
  s.applyHeader(2, 1n);
  s.draft.leader = { ...s.draft.leader, claimable_rewards: 100n };
  const op: LeaderClaimOp = { rewards_root: s.draft.leader.snapshot.root, voucher_nullifier: 0n, pk: 0n };
  const ev = applyLeaderClaim(envOf(s.draft), op, DUMMY_POC);
  assert.ok(ev.type === 'LeaderRewardClaimed');
  assert.equal(ev.utxo.note.value, 100n);
  rejects(() => applyLeaderClaim(envOf(s.draft), op, DUMMY_POC), 'VoucherAlreadyClaimed');
});

test('execute_emits_leader_reward_claimed_event (core/src/mantle/ops/leader_claim.rs)', () => {
  // The reference feeds reward 38 out of a pool of 100; here the reward is the pool's even split,
  // so the pool is 77 over 2 unclaimed vouchers (38 each) and 39 remains.
  const s = leaderDriver();
  s.applyHeader(1, 10n);
  s.applyHeader(1, 11n);
  s.applyHeader(2, 12n);
  s.draft.leader = { ...s.draft.leader, claimable_rewards: 77n };
  const op: LeaderClaimOp = { rewards_root: s.draft.leader.snapshot.root, voucher_nullifier: 7n, pk: 0n };
  const ev = applyLeaderClaim(envOf(s.draft), op, DUMMY_POC);
  assert.equal(s.draft.leader.nullifiers.has(7n), true);
  assert.equal(s.draft.leader.claimable_rewards, 39n);
  const id = opId({ opcode: Opcode.LeaderClaim, payload: op });
  const note = { value: 38n, pk: 0n };
  assert.deepEqual(ev, {
    type: 'LeaderRewardClaimed',
    voucher_nullifier: 7n,
    utxo: { op_id: id, output_index: 0, note },
  });
  assert.equal(s.draft.notes.get(noteId(id, 0, note))?.note.value, 38n);
});

// ---------- through the whole transaction path ----------

const me = newKey('leader-claim-spec');
const claimOp = (root: bigint, nullifier: bigint): Op => ({
  opcode: Opcode.LeaderClaim,
  payload: { rewards_root: root, voucher_nullifier: nullifier, pk: me.publicKey },
});

/** A fee-paying tx with this claim, its proof of claim over `provenNullifier` (default: the op's). */
function claimTx(fund: Owned, op: Op, provenNullifier?: bigint) {
  return signTx([feeOp(fund).op, op], [[fund.sk], []], (_h, msg, o) => {
    if (o.opcode !== Opcode.LeaderClaim) return undefined;
    const p = o.payload as LeaderClaimOp;
    return {
      type: 'PoC',
      proof: insecureTestPocProof({
        voucher_nullifier: provenNullifier ?? p.voucher_nullifier,
        voucher_root: p.rewards_root,
        mantle_tx_hash: msg,
      }),
    };
  });
}

test('validate_accepts_valid_proof_of_claim (core/src/mantle/ops/leader_claim.rs)', () => {
  const c = new TestChain();
  const fund = genesisNotes(c.genesis)[0]!;
  const op = claimOp(c.state.leader.snapshot.root, 77n);
  const tx = claimTx(fund, op);
  // Accepted (F: `verify` is `Ok(())`): executed, the claim spends its voucher nullifier and mints its note.
  const draft = new Draft(c.state);
  executeTx(draft, c.ctx, tx, c.state.slot + 1n);
  assert.equal(draft.leader.nullifiers.has(77n), true);
  assert.equal(draft.notes.get(noteId(opId(op), 0, { value: 0n, pk: me.publicKey }))?.note.value, 0n);
});

test('validate_rejects_op_nullifier_not_matching_proof (core/src/mantle/ops/leader_claim.rs)', () => {
  const c = new TestChain();
  const fund = genesisNotes(c.genesis)[0]!;
  const tx = claimTx(fund, claimOp(c.state.leader.snapshot.root, 999n), 77n);
  rejects(() => checkTx(c.state, c.ctx, tx, c.state.slot + 1n), 'InvalidProofOfClaim');
});

test('a leader claim with nothing claimable creates a note of value 0 (F: core/src/mantle/ops/leader_claim.rs execute, ledger/src/mantle/leader.rs reward_amount)', () => {
  const c = new TestChain();
  assert.equal(c.state.leader.claimable_rewards, 0n);
  assert.equal(voucherRewardAmount(c.state), 0n);
  const fund = genesisNotes(c.genesis)[0]!;
  const op = claimOp(c.state.leader.snapshot.root, 77n);
  const r = c.apply([claimTx(fund, op)]);
  const ev = r.events.find((e) => e.kind === 'Tx' && e.event.payload.type === 'LeaderRewardClaimed');
  assert.ok(ev && ev.kind === 'Tx' && ev.event.payload.type === 'LeaderRewardClaimed');
  assert.equal(ev.event.payload.utxo.note.value, 0n);
  assert.equal(bytesToHex(ev.event.op_id), bytesToHex(opId(op)));
  const id = noteId(opId(op), 0, { value: 0n, pk: me.publicKey });
  assert.equal(c.state.notes.get(id)?.note.value, 0n);
  assert.equal(c.state.leader.nullifiers.has(77n), true);
  assert.equal(c.state.leader.claimable_rewards, 0n);
});
