/**
 * Blend activity rewards, ported from the reference's tests:
 * ledger/src/mantle/sdp/rewards/blend/mod.rs, blend/message/src/reward/{token,epoch}.rs and
 * blend/proofs/src/selection/tests.rs.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { bytesToHex } from '../../src/codec/hex.ts';
import { blake2b256 } from '../../src/crypto/blake2b.ts';
import { CoreTree } from '../../src/crypto/blend/core-tree.ts';
import {
  blake2bSized,
  hammingDistance,
  keyNullifierOf,
  selectionIndex,
} from '../../src/crypto/blend/selection.ts';
import { Ed25519Signer } from '../../src/crypto/ed25519.ts';
import { type Fr, frFromAscii, leBytesToBigint } from '../../src/crypto/field.ts';
import { DeferredProofChecks } from '../../src/ledger/deferred-proofs.ts';
import { LedgerError } from '../../src/ledger/errors.ts';
import { PROOFS_ALREADY_VERIFIED } from '../../src/ledger/proof-system.ts';
import {
  type ActivityProofChecks,
  activityThreshold,
  addBlendIncome,
  applyActivity,
  type BlendRewards,
  blendActivityChecks,
  blendingTokenBytes,
  coreQuota,
  type EpochPoqInputs,
  newBlendRewards,
  type ResolvedBlendRewardParams,
  rewardOpId,
  rewardsEpochChange,
  tokenCountBitLen,
  tokenDistance,
} from '../../src/ledger/sdp-rewards.ts';
import type { BlendActivityProof } from '../../src/mantle/ops.ts';
import {
  INSECURE_TEST_CHECKS,
  INSECURE_TEST_PROOFS,
  insecureTestPoqProofOf,
} from '../../src/zk/insecure-test-proofs.ts';

// ---------- fixtures (F: ledger/src/mantle/sdp/rewards/test_utils.rs, blend/mod.rs tests) ----------

function createProviderId(byte: number): Uint8Array {
  return new Ed25519Signer(new Uint8Array(32).fill(byte)).publicKey;
}

/** The active set of an epoch state built by `create_epoch_state`: provider i has zk id i. */
function activeSet(providers: readonly Uint8Array[]) {
  return providers.map((provider_id, i) => ({ provider_id, zk_id: BigInt(i) }));
}

function params(rounds: bigint, minimumNetworkSize: bigint): ResolvedBlendRewardParams {
  return {
    rounds_per_epoch: rounds,
    message_frequency_per_round: 1.0,
    num_blend_layers: 3n,
    minimum_network_size: minimumNetworkSize,
    data_replication_factor: 0n,
    activity_threshold_sensitivity: 1n,
  };
}

/** `ActivityProof { epoch, proof_of_quota: [b; 160], signing_key: key of [b; 32], proof_of_selection: [b; 32] }`. */
function proofOf(epoch: number, b: number, poselByte = b, keyByte = b): BlendActivityProof {
  const fill = (n: number, v: number) => new Uint8Array(n).fill(v);
  return {
    epoch,
    signing_key: createProviderId(keyByte),
    proof_of_quota: {
      key_nullifier: leBytesToBigint(fill(32, b)),
      proof: { pi_a: fill(32, b), pi_b: fill(64, b), pi_c: fill(32, b) },
    },
    proof_of_selection: { selection_randomness: leBytesToBigint(fill(32, poselByte)) },
  };
}

/** An epoch's proof-of-quota inputs (any values: these tests do not verify proofs of quota). */
const POQ0: EpochPoqInputs = { pol_ledger_aged: 1n, lottery_0: 2n, lottery_1: 3n, pow_blend_difficulty: 4n };

const alwaysSuccess: ActivityProofChecks = { proofOfQuota: () => true, proofOfSelection: () => true };
const alwaysFailure: ActivityProofChecks = { proofOfQuota: () => false, proofOfSelection: () => false };
/** Fails when the target epoch's nonce (the PoQ's `pol_epoch_nonce`) is zero. */
const zeroNonceFailure: ActivityProofChecks = {
  proofOfQuota: (_p, t) => t.epoch_nonce !== 0n,
  proofOfSelection: (_p, _i, _n, t) => t.epoch_nonce !== 0n,
};

function code(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (e instanceof LedgerError) return e.ledgerCode;
    throw e;
  }
  return 'accepted';
}

/** `update_epoch(last, next)` where `next` keeps `last`'s snapshot and has nonce `nextNonce`. */
function step(
  r: BlendRewards,
  last: number,
  set: ReturnType<typeof activeSet>,
  next: number,
  nextNonce: Fr,
  p: ResolvedBlendRewardParams,
) {
  return rewardsEpochChange(r, last, set, next, nextNonce, POQ0, p);
}

describe('Blend rewards (ledger/src/mantle/sdp/rewards/blend/mod.rs)', () => {
  test('test_blend_no_reward_calculated_after_epoch0 (ledger/src/mantle/sdp/rewards/blend/mod.rs)', () => {
    const p = params(86_400n, 1n);
    const set0 = activeSet([createProviderId(1), createProviderId(2)]);
    const r0 = newBlendRewards(0, 0n, POQ0);
    assert.equal(r0.target, null);
    const { rewards, utxos } = step(r0, 0, set0, 1, 1n, p);
    assert.notEqual(rewards.target, null);
    assert.equal(utxos.length, 0);
  });

  test('test_rewards_with_no_activity_proofs (ledger/src/mantle/sdp/rewards/blend/mod.rs)', () => {
    const p = params(86_400n, 1n);
    const set = activeSet([createProviderId(1), createProviderId(2)]);
    const r1 = step(newBlendRewards(0, 0n, POQ0), 0, set, 1, 1n, p).rewards;
    assert.equal(step(r1, 1, set, 2, 2n, p).utxos.length, 0);
  });

  test('test_rewards_calculation (ledger/src/mantle/sdp/rewards/blend/mod.rs)', () => {
    const [p1, p2, p3, p4] = [1, 2, 3, 4].map(createProviderId) as [
      Uint8Array,
      Uint8Array,
      Uint8Array,
      Uint8Array,
    ];
    const p = params(86_400n, 1n);
    const set = activeSet([p1, p2, p3, p4]);
    let r = step(addBlendIncome(newBlendRewards(0, 0n, POQ0), 1000n), 0, set, 1, 1n, p).rewards;
    r = applyActivity(r, p1, proofOf(0, 1), 0, alwaysSuccess);
    // provider2's token has the smallest Hamming distance.
    r = applyActivity(r, p2, proofOf(0, 4), 0, alwaysSuccess);
    r = applyActivity(r, p3, proofOf(0, 1), 0, alwaysSuccess);
    const { utxos } = step(r, 1, set, 2, 2n, p);
    assert.equal(utxos.length, 3);
    const byZk = new Map(utxos.map((u) => [u.note.pk, u.note.value]));
    assert.equal(byZk.get(1n), byZk.get(0n)! * 2n);
    assert.equal(byZk.get(1n), byZk.get(2n)! * 2n);
    assert.equal(byZk.get(3n), undefined);
    // base = 1000 / (3 submitters + 1 premium) = 250, one op, outputs sorted by zk id.
    assert.deepEqual(
      utxos.map((u) => [u.output_index, u.note.pk, u.note.value]),
      [
        [0, 0n, 250n],
        [1, 1n, 500n],
        [2, 2n, 250n],
      ],
    );
    for (const u of utxos) assert.deepEqual(u.op_id, rewardOpId(0));
  });

  test('test_blend_duplicate_active_messages (ledger/src/mantle/sdp/rewards/blend/mod.rs)', () => {
    const p1 = createProviderId(1);
    const p = params(86_400n, 1n);
    let r = step(newBlendRewards(0, 0n, POQ0), 0, activeSet([p1]), 1, 1n, p).rewards;
    r = applyActivity(r, p1, proofOf(0, 1), 0, alwaysSuccess);
    assert.equal(
      code(() => applyActivity(r, p1, proofOf(0, 2, 2, 1), 0, alwaysSuccess)),
      'DuplicateActiveMessage',
    );
  });

  test('test_blend_invalid_epoch (ledger/src/mantle/sdp/rewards/blend/mod.rs)', () => {
    const p1 = createProviderId(1);
    const p = params(86_400n, 1n);
    const set = activeSet([p1]);
    const r = step(newBlendRewards(0, 0n, POQ0), 0, set, 1, 1n, p).rewards;
    assert.equal(
      code(() => applyActivity(r, p1, proofOf(99, 1), 0, alwaysSuccess)),
      'InvalidActivityEpoch',
    );
    assert.equal(step(r, 1, set, 2, 2n, p).utxos.length, 0);
  });

  test('test_blend_active_message_from_unknown_provider (ledger/src/mantle/sdp/rewards/blend/mod.rs)', () => {
    const p = params(86_400n, 1n);
    const r = step(newBlendRewards(0, 0n, POQ0), 0, activeSet([createProviderId(1)]), 1, 1n, p).rewards;
    assert.equal(
      code(() => applyActivity(r, createProviderId(2), proofOf(0, 1), 0, alwaysSuccess)),
      'UnknownProvider',
    );
  });

  test('test_blend_network_too_small (ledger/src/mantle/sdp/rewards/blend/mod.rs)', () => {
    const p1 = createProviderId(1);
    const p = params(86_400n, 2n);
    const set = activeSet([p1]);
    const r = step(newBlendRewards(0, 0n, POQ0), 0, set, 1, 1n, p).rewards;
    assert.equal(r.target, null);
    assert.equal(
      code(() => applyActivity(r, p1, proofOf(0, 1), 0, alwaysSuccess)),
      'TargetEpochNotSet',
    );
    assert.equal(step(r, 1, set, 2, 2n, p).utxos.length, 0);
  });

  test('test_blend_network_shrinking (ledger/src/mantle/sdp/rewards/blend/mod.rs)', () => {
    const [p1, p2] = [createProviderId(1), createProviderId(2)];
    const p = params(86_400n, 2n);
    const set0 = activeSet([p1, p2]);
    const set1 = activeSet([p1]);
    let s = step(addBlendIncome(newBlendRewards(0, 0n, POQ0), 1000n), 0, set0, 1, 1n, p);
    assert.equal(s.utxos.length, 0);
    assert.notEqual(s.rewards.target, null);
    let r = applyActivity(s.rewards, p1, proofOf(0, 1), 0, alwaysSuccess);
    r = addBlendIncome(r, 500n);
    s = step(r, 1, set1, 2, 2n, p);
    assert.equal(s.rewards.target, null);
    assert.equal(s.utxos.length, 1);
    assert.equal(
      s.utxos.reduce((a, u) => a + u.note.value, 0n),
      1000n,
    );
  });

  test('test_blend_network_growing (ledger/src/mantle/sdp/rewards/blend/mod.rs)', () => {
    const [p1, p2] = [createProviderId(1), createProviderId(2)];
    const p = params(86_400n, 2n);
    let s = step(newBlendRewards(0, 0n, POQ0), 0, activeSet([p1]), 1, 1n, p);
    assert.equal(s.utxos.length, 0);
    assert.equal(s.rewards.target, null);
    const r = addBlendIncome(s.rewards, 1000n);
    const set1 = activeSet([p1, p2]);
    s = step(r, 1, set1, 2, 2n, p);
    assert.notEqual(s.rewards.target, null);
    assert.equal(s.utxos.length, 0, 'epoch0 snapshot was smaller than minimum network size');
    const r2 = applyActivity(s.rewards, p1, proofOf(1, 1), 0, alwaysSuccess);
    s = step(r2, 2, set1, 3, 3n, p);
    assert.equal(s.utxos.length, 1);
    assert.equal(
      s.utxos.reduce((a, u) => a + u.note.value, 0n),
      1000n,
    );
  });

  test('test_blend_update_epoch_panics_on_same_epoch (ledger/src/mantle/sdp/rewards/blend/mod.rs)', () => {
    const p = params(86_400n, 1n);
    assert.throws(
      () => step(newBlendRewards(0, 0n, POQ0), 0, activeSet([createProviderId(1)]), 0, 0n, p),
      /must be greater than/,
    );
  });

  test('test_blend_update_epoch_panics_on_decreasing_epoch (ledger/src/mantle/sdp/rewards/blend/mod.rs)', () => {
    const p = params(86_400n, 1n);
    const set = activeSet([createProviderId(1)]);
    const r = step(newBlendRewards(0, 0n, POQ0), 0, set, 1, 1n, p).rewards;
    assert.throws(() => step(r, 1, set, 0, 0n, p), /must be greater than/);
  });

  test('test_blend_multi_epoch_jump (ledger/src/mantle/sdp/rewards/blend/mod.rs)', () => {
    const p1 = createProviderId(1);
    const p = params(86_400n, 1n);
    const set = activeSet([p1]);
    let r = step(addBlendIncome(newBlendRewards(0, 0n, POQ0), 1000n), 0, set, 1, 1n, p).rewards;
    r = applyActivity(r, p1, proofOf(0, 1), 0, alwaysSuccess);
    const s = step(r, 1, set, 3, 3n, p);
    assert.equal(s.utxos.length, 1);
    assert.equal(s.utxos[0]!.note.value, 1000n);
    assert.equal(s.rewards.target, null);
    assert.equal(
      code(() => applyActivity(s.rewards, p1, proofOf(1, 1), 0, alwaysSuccess)),
      'TargetEpochNotSet',
    );
  });

  test('test_blend_proof_distance_larger_than_activity_threshold (ledger/src/mantle/sdp/rewards/blend/mod.rs)', () => {
    const p1 = createProviderId(1);
    const p = params(10n, 1n);
    const set = activeSet([p1]);
    const r = step(newBlendRewards(0, 9999n, POQ0), 0, set, 1, 1n, p).rewards;
    assert.equal(
      code(() => applyActivity(r, p1, proofOf(0, 4), 0, alwaysSuccess)),
      'HammingDistanceTooLarge',
    );
    assert.equal(step(r, 1, set, 2, 2n, p).utxos.length, 0);
  });

  test('test_blend_invalid_proofs (ledger/src/mantle/sdp/rewards/blend/mod.rs)', () => {
    const p1 = createProviderId(1);
    const p = params(1000n, 1n);
    const set = activeSet([p1]);
    const r = step(newBlendRewards(0, 0n, POQ0), 0, set, 1, 1n, p).rewards;
    assert.equal(
      code(() => applyActivity(r, p1, proofOf(0, 1), 0, alwaysFailure)),
      'InvalidActivityProof',
    );
    assert.equal(step(r, 1, set, 2, 2n, p).utxos.length, 0);
  });

  test('test_blend_proof_verifier_after_epoch_update (ledger/src/mantle/sdp/rewards/blend/mod.rs)', () => {
    const provider = createProviderId(1);
    const p = params(1000n, 1n);
    const set = activeSet([provider]);
    // Epoch 0 has nonce 0: the target epoch 0's proofs fail.
    const r1 = step(newBlendRewards(0, 0n, POQ0), 0, set, 1, 1n, p).rewards;
    assert.equal(
      code(() => applyActivity(r1, provider, proofOf(0, 1), 0, zeroNonceFailure)),
      'InvalidActivityProof',
    );
    const r2 = step(r1, 1, set, 2, 2n, p).rewards;
    assert.equal(
      code(() => applyActivity(r2, provider, proofOf(1, 1), 0, zeroNonceFailure)),
      'accepted',
    );
  });
});

describe('Blending tokens (blend/message/src/reward)', () => {
  test('test_hamming_distance (blend/message/src/reward/token.rs)', () => {
    const b = (...x: number[]) => new Uint8Array(x);
    assert.equal(hammingDistance(b(0b1010_1010, 0b1100_1100), b(0b1010_1010, 0b1100_1100)), 0n);
    assert.equal(hammingDistance(b(0b1010_1010, 0b1100_1100), b(0b0101_0101, 0b0011_0011)), 16n);
    assert.equal(hammingDistance(b(0b1111_1111, 0b1111_1111), b(0b0000_0000)), 8n);
    assert.equal(hammingDistance(b(), b()), 0n);
  });

  test('test_hash (blend/message/src/reward/token.rs)', () => {
    const input = new TextEncoder().encode('test data');
    const out = blake2bSized(input, 3);
    assert.equal(out.length, 3);
    assert.deepEqual(out, blake2bSized(input, 3));
    assert.equal(blake2bSized(input, 0).length, 0);
    assert.equal(blake2bSized(input, 65).length, 64);
  });

  test('test_blending_token_hamming_distance (blend/message/src/reward/token.rs)', () => {
    // token(signing key of [1; 32], PoQ [1; 160], PoSel [2; 32]) against randomness Fr 1, 1 byte.
    const token = blendingTokenBytes(proofOf(0, 1, 2, 1));
    assert.equal(tokenDistance(token, 1, 1n), 5n);
  });

  test('test_activity_threshold (blend/message/src/reward/epoch.rs)', () => {
    assert.equal(activityThreshold(10n, 127n, 1n), 2n);
    assert.equal(activityThreshold(10n, 0n, 1n), 9n);
    assert.equal(activityThreshold(0n, 127n, 1n), 0n);
  });

  test('test_token_count_bit_len (blend/message/src/reward/epoch.rs)', () => {
    assert.equal(tokenCountBitLen(5n, 2n), 4n);
  });
});

describe('Proof of selection (blend/proofs/src/selection/tests.rs)', () => {
  const verify = (r: Fr, index: bigint, n: bigint, keyNullifier: Fr) =>
    blendActivityChecks(PROOFS_ALREADY_VERIFIED).proofOfSelection(
      {
        ...proofOf(0, 0),
        proof_of_quota: { ...proofOf(0, 0).proof_of_quota, key_nullifier: keyNullifier },
        proof_of_selection: { selection_randomness: r },
      },
      index,
      n,
      // the target is not used by the selection check
      undefined as never,
    );

  test('secret_selection_randomness_to_key_nullifier_dst_encoding (blend/proofs/src/selection/tests.rs)', () => {
    const bytes = Uint8Array.from(Buffer.from('4b45595f4e554c4c49464945525f5631', 'hex'));
    assert.equal(frFromAscii('KEY_NULLIFIER_V1'), leBytesToBigint(bytes));
  });

  test('success_on_valid_proof (blend/proofs/src/selection/tests.rs)', () => {
    assert.equal(verify(0n, 0n, 1n, keyNullifierOf(0n)), true);
  });

  test('failure_on_invalid_nullifier (blend/proofs/src/selection/tests.rs)', () => {
    assert.equal(verify(0n, 0n, 1n, 1n), false);
  });

  test('failure_on_invalid_index (blend/proofs/src/selection/tests.rs)', () => {
    const expected = selectionIndex(0n, 2n);
    assert.equal(verify(0n, 1n - expected, 2n, keyNullifierOf(0n)), false);
    assert.equal(verify(0n, expected, 2n, keyNullifierOf(0n)), true);
  });

  test('failure_on_expected_index_too_large (blend/proofs/src/selection/tests.rs)', () => {
    assert.equal(verify(0n, 1n, 0n, 1n), false);
  });
});

describe('reward op id', () => {
  test('Blake2b256(bincode(BlendNetwork) = 0u32 LE ‖ epoch u32 LE) (ledger/src/mantle/sdp/rewards/mod.rs)', () => {
    assert.deepEqual(rewardOpId(7), blake2b256(new Uint8Array([0, 0, 0, 0, 7, 0, 0, 0])));
  });
});

describe('Proof of quota of activity proofs (ledger/src/mantle/sdp/rewards/blend/current_epoch.rs)', () => {
  const p = { ...params(1000n, 1n), data_replication_factor: 2n };
  const epoch0: EpochPoqInputs = {
    pol_ledger_aged: 11n,
    lottery_0: 12n,
    lottery_1: 13n,
    pow_blend_difficulty: 14n,
  };
  const providers = [createProviderId(1), createProviderId(2), createProviderId(3)];
  // zk ids out of order: the tree sorts them as the membership does.
  const set = providers.map((provider_id, i) => ({ provider_id, zk_id: BigInt(30 - i) }));
  const target = () => rewardsEpochChange(newBlendRewards(0, 77n, epoch0), 0, set, 1, 1n, POQ0, p).rewards;

  test('the target epoch is verified against its core root and quota and its own leader and PoW inputs', () => {
    const r = target();
    assert.deepEqual(r.current_poq, POQ0, 'the new current epoch keeps its own inputs');
    assert.deepEqual(r.target!.poq, {
      core: { zk_root: new CoreTree([28n, 29n, 30n]).root, quota: coreQuota(p, 3) },
      leader: {
        pol_ledger_aged: 11n,
        pol_epoch_nonce: 77n,
        message_quota: 9n,
        lottery_0: 12n,
        lottery_1: 13n,
      },
      pow: { pow_blend_difficulty: 14n, pow_quota: 3n },
    });
  });

  /** An activity proof of provider `i` whose proof of selection designates it and whose token counts. */
  function activity(r: BlendRewards, i: number, poqKey: Uint8Array): BlendActivityProof {
    const t = r.target!;
    const index = BigInt(
      t.providers.findIndex((d) => bytesToHex(d.provider_id) === bytesToHex(providers[i]!)),
    );
    for (let s = 1n; ; s++) {
      if (selectionIndex(s, 3n) !== index) continue;
      const proof: BlendActivityProof = {
        epoch: 0,
        signing_key: providers[i]!,
        proof_of_quota: {
          key_nullifier: keyNullifierOf(s),
          proof: insecureTestPoqProofOf({ ...t.poq, signing_key: poqKey }, keyNullifierOf(s)),
        },
        proof_of_selection: { selection_randomness: s },
      };
      if (
        tokenDistance(blendingTokenBytes(proof), t.token_count_byte_len, r.current_nonce) <=
        t.activity_threshold
      )
        return proof;
    }
  }

  test('a proof of quota of the target inputs with the proof signing key is accepted; another key is not', () => {
    const r = target();
    const checks = blendActivityChecks(INSECURE_TEST_CHECKS);
    const ok = applyActivity(r, providers[0]!, activity(r, 0, providers[0]!), 0, checks);
    assert.equal(ok.target!.submitted.length, 1);
    assert.equal(
      code(() => applyActivity(r, providers[1]!, activity(r, 1, providers[2]!), 0, checks)),
      'InvalidActivityProof',
    );
  });

  test('deferred: the proof of quota is recorded with its site and fails when settled', async () => {
    const r = target();
    const deferred = new DeferredProofChecks();
    const site = { txHash: new Uint8Array(32).fill(9), opIndex: 2 };
    applyActivity(r, providers[1]!, activity(r, 1, providers[2]!), 2, blendActivityChecks(deferred, site));
    assert.deepEqual(
      deferred.obligations.map((o) => o.kind),
      ['poq'],
    );
    await assert.rejects(
      deferred.settle(INSECURE_TEST_PROOFS),
      (e: unknown) => e instanceof LedgerError && e.ledgerCode === 'InvalidActivityProof',
    );
    const good = new DeferredProofChecks();
    applyActivity(r, providers[1]!, activity(r, 1, providers[1]!), 2, blendActivityChecks(good, site));
    await good.settle(INSECURE_TEST_PROOFS);
  });
});
