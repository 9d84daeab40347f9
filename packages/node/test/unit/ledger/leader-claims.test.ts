/** Leader reward claims on the ledger (src/ledger/leader-claims.ts): vouchers, their epochs and nullifiers. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { bytesToHex } from '../../../src/codec/hex.ts';
import { checkTx } from '../../../src/ledger/apply.ts';
import { voucherRewardAmount } from '../../../src/ledger/leader-claims.ts';
import { type Op, Opcode, opId } from '../../../src/mantle/ops.ts';
import { insecureTestPocProof } from '../../../src/zk/insecure-test-proofs.ts';
import { genesisNotes, newKey, type Owned, TestChain } from '../../mocks/ledger.ts';
import { EPOCH, rejects, withFee } from './helpers.ts';

describe('leader rewards', () => {
  test('vouchers of epoch 0 become claimable in epoch 1, split evenly; nullifiers are single use', () => {
    const c = new TestChain();
    const notes = genesisNotes(c.genesis);
    for (let i = 1n; i <= 4n; i++) c.apply([], i * 10n, 100n + i);
    assert.equal(c.state.leader.vouchers.count, 4);
    const pending = c.state.leader.pending_rewards;
    assert.ok(pending > 0n);
    c.apply([], EPOCH + 1n, 200n);
    assert.equal(c.state.leader.snapshot.count, 4);
    assert.equal(c.state.leader.claimable_rewards, pending);
    const each = voucherRewardAmount(c.state);
    assert.equal(each, pending / 4n);

    const me = newKey('leader-claimer');
    const claim = (nullifier: bigint, root = c.state.leader.snapshot.root): Op => ({
      opcode: Opcode.LeaderClaim,
      payload: { rewards_root: root, voucher_nullifier: nullifier, pk: me.publicKey },
    });
    const signClaim = (fund: Owned, op: Op) =>
      withFee(fund, [op], [[]], (_h, msg, o) =>
        o.opcode === Opcode.LeaderClaim
          ? {
              type: 'PoC',
              proof: insecureTestPocProof({
                voucher_nullifier: (o.payload as { voucher_nullifier: bigint }).voucher_nullifier,
                voucher_root: (o.payload as { rewards_root: bigint }).rewards_root,
                mantle_tx_hash: msg,
              }),
            }
          : undefined,
      );
    rejects(
      () => checkTx(c.state, c.ctx, signClaim(notes[0]!, claim(555n, 1n)), c.state.slot + 1n),
      'InvalidRewardsRoot',
    );
    const badProof = withFee(notes[0]!, [claim(555n)], [[]], (_h, _m, o) =>
      o.opcode === Opcode.LeaderClaim ? { type: 'PoC', proof: new Uint8Array(128) } : undefined,
    );
    rejects(() => checkTx(c.state, c.ctx, badProof, c.state.slot + 1n), 'InvalidProofOfClaim');

    const r = c.apply([signClaim(notes[0]!, claim(555n))]);
    const ev = r.events.find((e) => e.kind === 'Tx');
    assert.ok(ev && ev.kind === 'Tx' && ev.event.payload.type === 'LeaderRewardClaimed');
    if (ev.kind === 'Tx' && ev.event.payload.type === 'LeaderRewardClaimed') {
      assert.equal(ev.event.payload.utxo.note.value, each);
      assert.equal(ev.event.payload.utxo.note.pk, me.publicKey);
      assert.equal(bytesToHex(ev.event.op_id), bytesToHex(opId(claim(555n))));
    }
    assert.equal(c.state.leader.claimable_rewards, pending - each);
    // The next claim gets an even share of what is left over the 3 remaining vouchers.
    assert.equal(voucherRewardAmount(c.state), (pending - each) / 3n);
    rejects(
      () => checkTx(c.state, c.ctx, signClaim(notes[1]!, claim(555n)), c.state.slot + 1n),
      'VoucherAlreadyClaimed',
    );
  });
});
