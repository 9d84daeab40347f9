/** Proof-of-work reward claims on the ledger (src/ledger/pow-claims.ts): tickets, targets and nullifiers. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { blake2b256 } from '../../../src/crypto/blake2b.ts';
import { frFromBytesModOrder } from '../../../src/crypto/field.ts';
import { zkPublicKey } from '../../../src/crypto/zk-keys.ts';
import { checkTx } from '../../../src/ledger/apply.ts';
import { powTicket } from '../../../src/ledger/pow-claims.ts';
import { noteId } from '../../../src/mantle/note.ts';
import { type Op, Opcode, opId } from '../../../src/mantle/ops.ts';
import { signTx, TestChain } from '../../mocks/ledger.ts';
import { rejects } from './helpers.ts';

describe('PoW claims', () => {
  /** A secret key whose ticket for this block and nonce is below the target. */
  function winningKey(nonce: bigint, blockId: Uint8Array, target: bigint): { sk: bigint; pk: bigint } {
    for (let i = 1; ; i++) {
      const sk = frFromBytesModOrder(blake2b256(Uint8Array.of(i & 0xff, (i >> 8) & 0xff, (i >> 16) & 0xff)));
      const pk = zkPublicKey(sk);
      if (powTicket(nonce, blockId, pk) < target) return { sk, pk };
    }
  }

  test('a winning ticket claims the epoch reward once, inside the window only', () => {
    const c = new TestChain();
    c.apply([], 5n);
    const block = c.tip;
    const nonce = c.state.epoch_state.nonce;
    const { sk, pk } = winningKey(nonce, block, c.state.pow.target);
    const reward = c.state.pow.epoch_reward;
    const claimOp: Op = {
      opcode: Opcode.ClaimPowReward,
      payload: { epoch_nonce: nonce, block_hash: block, public_key: pk },
    };
    const minted = noteId(opId(claimOp), 0, { value: reward, pk });
    const spend: Op = {
      opcode: Opcode.Transfer,
      payload: { inputs: [minted], outputs: [{ value: reward - 100_000n, pk }] },
    };
    const tx = signTx([claimOp, spend], [[], [sk]], (_h, _m, op) =>
      op.opcode === Opcode.ClaimPowReward ? { type: 'None' } : undefined,
    );
    const poolBefore = c.state.pow.pool;
    const r = c.apply([tx]);
    const ev = r.events.find((e) => e.kind === 'Tx' && e.event.payload.type === 'PoWRewardClaimed');
    assert.ok(ev);
    assert.equal(c.state.pow.pool, poolBefore - reward);
    assert.equal(c.state.notes.has(minted), false, 'the minted note was spent by the same transaction');
    // Same ticket again: the nullifier is used.
    const again = signTx([claimOp], [[]], () => ({ type: 'None' }));
    rejects(() => checkTx(c.state, c.ctx, again, c.state.slot + 1n), 'PowNullifierUsed');
    // A wrong nonce, an unknown block, a losing ticket.
    const wrongNonce: Op = {
      opcode: Opcode.ClaimPowReward,
      payload: { epoch_nonce: nonce + 1n, block_hash: block, public_key: pk },
    };
    rejects(
      () =>
        checkTx(
          c.state,
          c.ctx,
          signTx([wrongNonce], [[]], () => ({ type: 'None' })),
          c.state.slot + 1n,
        ),
      'InvalidEpochNonce',
    );
    const unknown: Op = {
      opcode: Opcode.ClaimPowReward,
      payload: { epoch_nonce: nonce, block_hash: new Uint8Array(32).fill(3), public_key: pk },
    };
    rejects(
      () =>
        checkTx(
          c.state,
          c.ctx,
          signTx([unknown], [[]], () => ({ type: 'None' })),
          c.state.slot + 1n,
        ),
      'UnknownPowBlock',
    );
    // Outside the window (300 slots on the devnet).
    c.apply([], 5n + 300n);
    const { pk: pk2 } = winningKey(nonce, block, c.state.pow.target);
    const late: Op = {
      opcode: Opcode.ClaimPowReward,
      payload: { epoch_nonce: nonce, block_hash: block, public_key: pk2 },
    };
    const lateTx = signTx([late], [[]], () => ({ type: 'None' }));
    rejects(() => checkTx(c.state, c.ctx, lateTx, 5n + 301n), 'PowClaimOutsideWindow');
    // Once a block past the window is applied, the old block is forgotten.
    c.apply([], 5n + 302n);
    rejects(() => checkTx(c.state, c.ctx, lateTx, c.state.slot + 1n), 'UnknownPowBlock');
  });

  test('the target retargets per block: eases without claims, tightens with more claims than targeted', () => {
    const c = new TestChain();
    const t0 = c.state.pow.target;
    c.apply([]);
    assert.ok(c.state.pow.target > t0);
    assert.equal(c.state.pow.target, (t0 * 10n) / 9n);
  });
});
