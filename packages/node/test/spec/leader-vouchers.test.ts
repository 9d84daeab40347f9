/**
 * The leader-voucher state of ledger/src/mantle/leader.rs: the vouchers (an MMR in the reference, our
 * VoucherTree: same padded root, see mmr.test.ts) and their epoch snapshot { root, count }.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Fr } from '../../src/crypto/field.ts';
import { checkTx } from '../../src/ledger/apply.ts';
import { LedgerError } from '../../src/ledger/errors.ts';
import { VoucherTree } from '../../src/ledger/trees/voucher-tree.ts';
import { type Op, Opcode } from '../../src/mantle/ops.ts';
import { insecureTestPocProof } from '../../src/zk/insecure-test-proofs.ts';
import { feeOp, genesisNotes, newKey, signTx, TestChain } from '../mocks/ledger.ts';

const F = 'ledger/src/mantle/leader.rs';
/** Slots per epoch of the devnet deployment used by TestChain. */
const EPOCH = 200n;

test(`test_epoch_transition (${F})`, () => {
  // F applies headers (epoch, voucher) to a fresh LeaderState; here blocks at a slot of that epoch.
  const c = new TestChain();
  assert.equal(c.state.leader.vouchers.count, 0);
  const leaves: Fr[] = [];
  const header = (epoch: bigint, voucher: Fr, slot = epoch * EPOCH) => {
    c.apply([], slot, voucher);
    leaves.push(voucher);
    assert.equal(c.state.epoch_state.epoch, Number(epoch));
  };
  header(1n, 0n);
  assert.equal(c.state.leader.snapshot.count, 0);
  header(2n, 1n);
  assert.equal(c.state.leader.snapshot.count, 1);
  header(2n, 2n, 2n * EPOCH + 1n);
  assert.equal(c.state.leader.snapshot.count, 1);
  header(3n, 3n);
  assert.equal(c.state.leader.snapshot.count, 3);
  // F's InvalidEpoch (a header of an earlier epoch) cannot be built here: a block's slot must exceed
  // its parent's, which the block checks refuse first.
  header(4n, 5n);
  assert.equal(c.state.leader.snapshot.count, 4);
  // The snapshot root is the root of the vouchers committed before the epoch's first block.
  let v = VoucherTree.empty();
  for (const leaf of leaves.slice(0, 4)) v = v.append(leaf);
  assert.equal(c.state.leader.snapshot.root, v.root());
  assert.equal(c.state.leader.vouchers.count, 5);
});

test(`the voucher snapshot before the first epoch change has root 0, RewardsRoot::default() (${F} LeaderState::new)`, () => {
  const c = new TestChain();
  assert.deepEqual(c.state.leader.snapshot, { root: 0n, count: 0 });
  // So in epoch 0 a claim naming the empty tree's root does not match the snapshot root.
  const fund = genesisNotes(c.genesis)[0]!;
  const me = newKey('epoch-0-claimer');
  const claim: Op = {
    opcode: Opcode.LeaderClaim,
    payload: { rewards_root: VoucherTree.empty().root(), voucher_nullifier: 9n, pk: me.publicKey },
  };
  const tx = signTx([feeOp(fund).op, claim], [[fund.sk], []], (_h, msg, o) =>
    o.opcode === Opcode.LeaderClaim
      ? {
          type: 'PoC',
          proof: insecureTestPocProof({
            voucher_nullifier: 9n,
            voucher_root: VoucherTree.empty().root(),
            mantle_tx_hash: msg,
          }),
        }
      : undefined,
  );
  assert.throws(
    () => checkTx(c.state, c.ctx, tx, c.state.slot + 1n),
    (e: unknown) => e instanceof LedgerError && e.ledgerCode === 'InvalidRewardsRoot',
  );
});
