import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { MAX_PAYLOAD_BODY_SIZE } from '../../../src/blend/index.ts';
import { zkPublicKey } from '../../../src/crypto/zk-keys.ts';
import { checkTx } from '../../../src/ledger/apply.ts';
import { LedgerError } from '../../../src/ledger/errors.ts';
import { gasContextOf, minimumTotalGasCost } from '../../../src/ledger/gas.ts';
import { Opcode } from '../../../src/mantle/ops.ts';
import { encodeTxGossip } from '../../../src/network/index.ts';
import {
  buildClaimBatch,
  changeOutputs,
  claimableOn,
  claimPayloadSize,
  maxClaimsByOps,
  maxClaimsByPayload,
  PowError,
} from '../../../src/pow/index.ts';
import { insecureTestZkSign } from '../../../src/zk/insecure-test-proofs.ts';
import { TestChain } from '../../mocks/ledger.ts';
import { findWinners } from './helpers.ts';

const signZk = async (msg: bigint, sks: readonly bigint[]) => insecureTestZkSign(msg, [...sks]);
const ADDRESS = zkPublicKey(123456789n);

function rejects(fn: () => unknown, code: string) {
  assert.throws(fn, (e: unknown) => e instanceof LedgerError && e.ledgerCode === code, `expected ${code}`);
}

function balanceOf(c: TestChain, pk: bigint): bigint {
  let sum = 0n;
  for (const r of c.state.notes.values()) if (r.note.pk === pk) sum += r.note.value;
  return sum;
}

/** A chain with one block at slot 5 and `n` winning tickets on it. */
function setup(n: number) {
  const c = new TestChain();
  c.apply([], 5n);
  const winners = findWinners(c.state, c.tip, 5n, n);
  return { c, winners };
}

const batchOn = (
  c: TestChain,
  winners: Parameters<typeof buildClaimBatch>[0]['winners'],
  pool = c.state.pow.pool,
) =>
  buildClaimBatch({
    claimAddress: ADDRESS,
    reward: c.state.pow.epoch_reward,
    pool,
    gas: gasContextOf(c.state),
    winners,
    signZk,
  });

describe('PoW claim transaction', () => {
  test('claims, then a Transfer of the minted notes to the address, applies on the ledger and mints to it', async () => {
    const { c, winners } = setup(3);
    const reward = c.state.pow.epoch_reward;
    const poolBefore = c.state.pow.pool;
    const targetBefore = c.state.pow.target;
    const b = await batchOn(c, winners);
    assert.deepEqual(
      b.tx.mantle_tx.ops.map((o) => o.opcode),
      [Opcode.ClaimPowReward, Opcode.ClaimPowReward, Opcode.ClaimPowReward, Opcode.Transfer],
    );
    assert.deepEqual(
      b.tx.ops_proofs.map((p) => p.type),
      ['None', 'None', 'None', 'ZkSig'],
    );
    assert.equal(b.claimed.length, 3);
    // The fee is the transaction's mandatory gas cost.
    assert.equal(b.fee, minimumTotalGasCost(b.tx.mantle_tx, gasContextOf(c.state)));
    const r = c.apply([b.tx], 6n);
    const nullifiers = r.events.flatMap((e) =>
      e.kind === 'Tx' && e.event.payload.type === 'PoWRewardClaimed' ? [e.event.payload.pow_nullifier] : [],
    );
    assert.deepEqual(nullifiers.sort(), winners.map((w) => w.ticket).sort());
    assert.equal(c.state.pow.pool, poolBefore - 3n * reward);
    assert.equal(balanceOf(c, ADDRESS), 3n * reward - b.fee);
    // The same ticket again: its nullifier is spent. (The block's three claims tightened the target, which
    // is checked first: the earlier target is put back so that the nullifier check is reached.)
    const again = await batchOn(c, winners.slice(0, 1));
    const sameTarget = { ...c.state, pow: { ...c.state.pow, target: targetBefore } };
    rejects(() => checkTx(sameTarget, c.ctx, again.tx, 7n), 'PowNullifierUsed');
  });

  test('more than 32 tickets: one Transfer per group of 32, each signed by its group; the whole applies', async () => {
    const { c, winners } = setup(40);
    const b = await batchOn(c, winners);
    const ops = b.tx.mantle_tx.ops;
    assert.equal(ops.length, 42);
    assert.equal(ops[32]!.opcode, Opcode.Transfer);
    assert.equal(ops[41]!.opcode, Opcode.Transfer);
    assert.equal(ops[32]!.opcode === Opcode.Transfer && ops[32]!.payload.inputs.length, 32);
    assert.equal(ops[41]!.opcode === Opcode.Transfer && ops[41]!.payload.inputs.length, 8);
    const reward = c.state.pow.epoch_reward;
    c.apply([b.tx], 6n);
    assert.equal(balanceOf(c, ADDRESS), 40n * reward - b.fee);
  });

  test('a ticket outside the window is refused by the ledger', async () => {
    const { c, winners } = setup(1);
    const b = await batchOn(c, winners);
    rejects(() => checkTx(c.state, c.ctx, b.tx, 5n + 301n), 'PowClaimOutsideWindow');
    checkTx(c.state, c.ctx, b.tx, 5n + 300n);
  });

  test('capped by the pool: only what the pool pays is claimed; an empty pool or a zero reward fails', async () => {
    const { c, winners } = setup(3);
    const reward = c.state.pow.epoch_reward;
    const b = await batchOn(c, winners, 2n * reward + 1n);
    assert.equal(b.claimed.length, 2);
    assert.deepEqual(b.claimed, winners.slice(0, 2));
    await assert.rejects(batchOn(c, winners, reward - 1n), (e: unknown) => {
      assert.ok(e instanceof PowError);
      assert.equal(e.code, 'POW_REWARD_POOL_EXHAUSTED');
      assert.equal(e.message, 'no claims fit within the reward pool');
      return true;
    });
    await assert.rejects(
      buildClaimBatch({
        claimAddress: ADDRESS,
        reward: 0n,
        pool: 1n << 40n,
        gas: gasContextOf(c.state),
        winners,
        signZk,
      }),
      /PoW rewards are disabled \(epoch reward is zero\)/,
    );
    // A pool the ledger itself cannot pay: the transaction is refused as a whole.
    const all = await batchOn(c, winners);
    const poor = { ...c.state, pow: { ...c.state.pow, pool: reward } };
    rejects(() => checkTx(poor, c.ctx, all.tx, 6n), 'RewardPoolExhausted');
  });

  test('the fee is charged group by group and fails only beyond the total reward', () => {
    assert.deepEqual(changeOutputs([5], 100n, 30n), [470n]);
    assert.deepEqual(changeOutputs([32, 8], 100n, 30n), [3170n, 800n]);
    assert.deepEqual(changeOutputs([32, 8], 100n, 3250n), [0n, 750n]);
    assert.deepEqual(changeOutputs([32, 8], 100n, 4000n), [0n, 0n]);
    assert.throws(() => changeOutputs([32, 8], 100n, 4001n), /PoW reward does not cover the transaction fee/);
  });

  test('at most 247 claims fit the 255 ops (with their 8 transfers)', () => {
    assert.equal(maxClaimsByOps(), 247);
  });

  test('build_reward_claim_tx_caps_claims_to_what_a_blend_payload_carries', async () => {
    // F: more tickets and pool room than any cap allows; the payload budget binds before the op budget,
    // and the transaction fits the Blend payload a claim is published in.
    const cap = maxClaimsByPayload();
    assert.ok(cap < maxClaimsByOps(), 'the payload budget binds before the op budget');
    assert.ok(claimPayloadSize(cap) <= MAX_PAYLOAD_BODY_SIZE);
    assert.ok(claimPayloadSize(cap + 1) > MAX_PAYLOAD_BODY_SIZE);
    // The batch is built without the ledger: winners of any key do (no ticket search needed).
    const c = new TestChain();
    const winners = Array.from({ length: cap + 50 }, (_, i) => {
      const secretKey = BigInt(i + 1);
      return {
        ticket: BigInt(i),
        blockId: c.tip,
        blockSlot: 0n,
        epochNonce: 0n,
        secretKey,
        publicKey: zkPublicKey(secretKey),
      };
    });
    const b = await batchOn(c, winners, 1000n * c.state.pow.epoch_reward);
    assert.equal(b.claimed.length, cap);
    assert.ok(encodeTxGossip(b.tx).length <= MAX_PAYLOAD_BODY_SIZE);
    assert.equal(encodeTxGossip(b.tx).length, claimPayloadSize(cap), 'the probe measures the real batch');
    const claims = b.tx.mantle_tx.ops.filter((o) => o.opcode === Opcode.ClaimPowReward).length;
    assert.equal(claims, cap);
    assert.equal(b.tx.mantle_tx.ops.length - claims, Math.ceil(cap / 32));
  });

  test('only tickets of blocks on the branch are claimed', () => {
    const { c, winners } = setup(2);
    const stray = { ...winners[1]!, blockId: new Uint8Array(32).fill(9) };
    assert.deepEqual(claimableOn(c.state, [winners[0]!, stray]), [winners[0]!]);
  });
});
