/**
 * The proof of quota's statement outside the circuit: tags, public input order, selection randomness
 * and key nullifier, and the reference's fixtures (F: blend/proofs/src/quota/{tests.rs,fixtures.rs},
 * blend/proofs/src/selection/tests.rs, zk/proofs/poq/src/inputs.rs).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CoreTree } from '../../../src/crypto/blend/core-tree.ts';
import {
  coreQuotaWitness,
  PoqInputError,
  type PoqPublicInputs,
  PoqSelector,
  type PoqWitness,
  poqCircuitInput,
  poqKeyNullifier,
  poqPublicInputList,
  poqWitnessSatisfies,
  powQuotaWitness,
  SELECTION_RANDOMNESS_V1,
  selectionRandomness,
  splitSigningKey,
} from '../../../src/crypto/blend/poq.ts';
import { KEY_NULLIFIER_V1, keyNullifierOf, selectionIndex } from '../../../src/crypto/blend/selection.ts';
import { leBytesToBigint } from '../../../src/crypto/field.ts';
import { digest } from '../../../src/crypto/poseidon2/index.ts';
import { zkPublicKey } from '../../../src/crypto/zk-keys.ts';
import { INSECURE_TEST_PROOFS } from '../../../src/zk/insecure-test-proofs.ts';
import {
  coreNodeFullFlow,
  leaderFullFlow,
  validCoreQuotaInputs,
  validLeadershipQuotaInputs,
  validWorkQuotaInputs,
} from './poq-fixtures.ts';

const hex = (h: string) => Uint8Array.from(Buffer.from(h, 'hex'));
const key = (b: number) => new Uint8Array(32).fill(b);

function fixtures(signingKey: Uint8Array): { name: string; pub: PoqPublicInputs; w: PoqWitness }[] {
  const c = validCoreQuotaInputs(signingKey, 1n);
  const l = validLeadershipQuotaInputs(signingKey, 1n);
  const p = validWorkQuotaInputs(signingKey, 20n);
  return [
    { name: 'core', pub: c.public, w: { ...c.witness, key_index: 0n } },
    { name: 'leader', pub: l.public, w: { ...l.witness, key_index: 0n } },
    { name: 'pow', pub: p.public, w: { ...p.witness, key_index: 0n } },
  ];
}

// F: blend/proofs/src/quota/tests.rs::secret_selection_randomness_dst_encoding
test('secret_selection_randomness_dst_encoding', () => {
  assert.equal(
    SELECTION_RANDOMNESS_V1,
    leBytesToBigint(hex('53454c454354494f4e5f52414e444f4d4e4553535f5631')),
  );
});

// F: blend/proofs/src/selection/tests.rs::secret_selection_randomness_to_key_nullifier_dst_encoding
test('secret_selection_randomness_to_key_nullifier_dst_encoding', () => {
  assert.equal(KEY_NULLIFIER_V1, leBytesToBigint(hex('4b45595f4e554c4c49464945525f5631')));
});

// F: blend/proofs/src/selection/tests.rs::success_on_valid_proof, failure_on_empty_membership
test('success_on_valid_proof / failure_on_empty_membership', () => {
  assert.equal(selectionIndex(0n, 1n), 0n);
  assert.throws(() => selectionIndex(0n, 0n), RangeError);
});

describe('reference fixtures (blend/proofs/src/quota/fixtures.rs)', () => {
  // F: blend/proofs/src/quota/tests.rs::valid_proof_of_core_quota, valid_proof_of_leadership_quota,
  // valid_proof_of_work_quota (the statement; the proofs are made in test/unit/crypto/blend/poq.test.ts)
  for (const { name, pub, w } of fixtures(key(0))) {
    test(`valid_proof_of_${name === 'pow' ? 'work' : name === 'leader' ? 'leadership' : name}_quota: the witness satisfies the statement`, () => {
      assert.equal(poqWitnessSatisfies(pub, w), true);
      assert.equal(
        poqKeyNullifier(pub.leader.pol_epoch_nonce, w),
        keyNullifierOf(selectionRandomness(pub.leader.pol_epoch_nonce, w)),
      );
    });
  }

  test('each branch fails with a wrong root, difficulty, lottery or an index at its quota', () => {
    const [c, l, p] = fixtures(key(0));
    assert.equal(poqWitnessSatisfies({ ...c!.pub, core: { ...c!.pub.core, zk_root: 2n } }, c!.w), false);
    assert.equal(poqWitnessSatisfies(c!.pub, { ...c!.w, key_index: 1n }), false);
    assert.equal(
      poqWitnessSatisfies({ ...l!.pub, leader: { ...l!.pub.leader, pol_ledger_aged: 2n } }, l!.w),
      false,
    );
    assert.equal(
      poqWitnessSatisfies({ ...l!.pub, leader: { ...l!.pub.leader, lottery_0: 0n, lottery_1: 0n } }, l!.w),
      false,
    );
    assert.equal(
      poqWitnessSatisfies({ ...p!.pub, pow: { ...p!.pub.pow, pow_blend_difficulty: 1n } }, p!.w),
      false,
    );
    assert.equal(poqWitnessSatisfies(p!.pub, { ...p!.w, key_index: 20n }), false);
    // The other branches' inputs play no part.
    assert.equal(poqWitnessSatisfies({ ...p!.pub, core: { zk_root: 0n, quota: 0n } }, p!.w), true);
  });
});

test('selection randomness: (core_sk, epoch nonce), (note sk, slot), (pow nonce, epoch nonce)', () => {
  const [c, l, p] = fixtures(key(0));
  const n = 99n;
  assert.equal(
    selectionRandomness(n, { ...c!.w, key_index: 3n }),
    digest([SELECTION_RANDOMNESS_V1, (c!.w as { core_sk: bigint }).core_sk, 3n, n]),
  );
  const lw = l!.w as Extract<PoqWitness, { selector: 1 }>;
  assert.equal(selectionRandomness(n, lw), digest([SELECTION_RANDOMNESS_V1, lw.secret_key, 0n, lw.slot]));
  const pw = p!.w as Extract<PoqWitness, { selector: 2 }>;
  assert.equal(selectionRandomness(n, pw), digest([SELECTION_RANDOMNESS_V1, pw.pow_nonce, 0n, n]));
});

test('public inputs in the order of PoQVerifierInput::to_inputs, the signing key as two LE halves', () => {
  const sk = Uint8Array.from({ length: 32 }, (_, i) => i + 1);
  const [k1, k2] = splitSigningKey(sk);
  assert.equal(k1, leBytesToBigint(sk.subarray(0, 16)));
  assert.equal(k2, leBytesToBigint(sk.subarray(16)));
  const pub: PoqPublicInputs = {
    signing_key: sk,
    core: { zk_root: 3n, quota: 2n },
    leader: { pol_ledger_aged: 6n, pol_epoch_nonce: 10n, message_quota: 4n, lottery_0: 11n, lottery_1: 12n },
    pow: { pow_blend_difficulty: 9n, pow_quota: 5n },
  };
  assert.deepEqual(poqPublicInputList(pub, 1n), [1n, 2n, 4n, 3n, 5n, 6n, k1, k2, 9n, 10n, 11n, 12n]);
  assert.throws(() => splitSigningKey(new Uint8Array(31)), PoqInputError);
});

// F: blend/proofs/src/quota/tests.rs::same_key_nullifier_for_different_public_keys, different_keys_same_index
test('same_key_nullifier_for_different_public_keys: the nullifier does not depend on the signing key', async () => {
  const a = validCoreQuotaInputs(key(200), 1n);
  const b = validCoreQuotaInputs(key(250), 1n);
  const pa = await INSECURE_TEST_PROOFS.provePoq(a.public, { ...a.witness, key_index: 0n });
  const pb = await INSECURE_TEST_PROOFS.provePoq(b.public, { ...b.witness, key_index: 0n });
  assert.equal(pa.keyNullifier, pb.keyNullifier);
  assert.equal(await INSECURE_TEST_PROOFS.verifyPoq(a.public, pa.keyNullifier, pa.proof), true);
  // A proof is bound to its signing key.
  assert.equal(await INSECURE_TEST_PROOFS.verifyPoq(b.public, pa.keyNullifier, pa.proof), false);
});

/** F: blend/proofs/src/quota/tests.rs generate_inputs: keys 1..=n, quota 1, a zero leader and PoW. */
function generateInputs(n: number): { pub: PoqPublicInputs; witnesses: PoqWitness[] } {
  const sks = Array.from({ length: n }, (_, i) => BigInt(i + 1));
  const tree = new CoreTree(sks.map(zkPublicKey));
  assert.equal(coreQuotaWitness(tree, BigInt(n + 1), 0n), undefined, 'a key outside the tree has no witness');
  return {
    pub: {
      signing_key: key(10),
      core: { quota: 1n, zk_root: tree.root },
      leader: { message_quota: 1n, pol_epoch_nonce: 0n, pol_ledger_aged: 0n, lottery_0: 0n, lottery_1: 0n },
      pow: { pow_blend_difficulty: 0n, pow_quota: 0n },
    },
    witnesses: sks.map((sk) => coreQuotaWitness(tree, sk, 0n)!),
  };
}

// F: blend/proofs/src/quota/tests.rs::poq_interaction_single_key, _two_keys, _three_keys,
// _four_keys, _one_hundred_keys (the statement and the circuit input of every key)
for (const n of [1, 2, 3, 4, 100]) {
  test(`poq_interaction with ${n} keys: every key's witness satisfies the statement`, () => {
    const { pub, witnesses } = generateInputs(n);
    for (const w of witnesses) {
      assert.equal(poqWitnessSatisfies(pub, w), true);
      poqCircuitInput(pub, w);
    }
  });
}

// F: blend/proofs/src/quota/tests.rs::same_key_different_indices
test('same_key_different_indices: one key with quota 2 has two distinct nullifiers', () => {
  const tree = new CoreTree([zkPublicKey(1n)]);
  const pub: PoqPublicInputs = {
    signing_key: key(10),
    core: { quota: 2n, zk_root: tree.root },
    leader: { message_quota: 0n, pol_epoch_nonce: 0n, pol_ledger_aged: 0n, lottery_0: 0n, lottery_1: 0n },
    pow: { pow_blend_difficulty: 0n, pow_quota: 0n },
  };
  const w = (i: bigint): PoqWitness => ({
    selector: PoqSelector.Core,
    key_index: i,
    core_sk: 1n,
    core_path: tree.pathOf(zkPublicKey(1n))!,
  });
  assert.ok(poqWitnessSatisfies(pub, w(0n)) && poqWitnessSatisfies(pub, w(1n)));
  assert.equal(poqWitnessSatisfies(pub, w(2n)), false);
  assert.notEqual(poqKeyNullifier(0n, w(0n)), poqKeyNullifier(0n, w(1n)));
});

test('the circuit input refuses what the circuit cannot take', async () => {
  const [c, , p] = fixtures(key(0));
  assert.throws(
    () => poqCircuitInput(c!.pub, { ...c!.w, key_index: 1n }),
    PoqInputError,
    'index at the quota',
  );
  assert.throws(
    () => poqCircuitInput({ ...c!.pub, core: { ...c!.pub.core, quota: 1n << 20n } }, c!.w),
    PoqInputError,
  );
  assert.throws(() => poqCircuitInput({ ...c!.pub, signing_key: new Uint8Array(33) }, c!.w), PoqInputError);
  const cw = c!.w as Extract<PoqWitness, { selector: 0 }>;
  assert.throws(
    () =>
      poqCircuitInput(c!.pub, { ...cw, core_path: { siblings: cw.core_path.siblings.slice(1), index: 0 } }),
    PoqInputError,
  );
  const input = poqCircuitInput(
    p!.pub,
    powQuotaWitness((p!.w as Extract<PoqWitness, { selector: 2 }>).pow_nonce, 0n),
  );
  assert.equal(input.selector, '2');
  assert.deepEqual(input.core_path, Array(20).fill('0'));
  // The insecure backend refuses a witness that does not satisfy the statement, as a real prover.
  await assert.rejects(
    INSECURE_TEST_PROOFS.provePoq({ ...p!.pub, pow: { ...p!.pub.pow, pow_blend_difficulty: 1n } }, p!.w),
    PoqInputError,
  );
});

// F: zk/proofs/poq/src/lib.rs::test_core_node_full_flow, test_leader_full_flow (the statement; the
// circuit's witness in test/unit/crypto/blend/poq.test.ts)
test('test_core_node_full_flow / test_leader_full_flow: the witnesses satisfy the statement', () => {
  for (const f of [coreNodeFullFlow(), leaderFullFlow()]) {
    assert.equal(poqWitnessSatisfies(f.public, f.witness), true);
    assert.deepEqual(splitSigningKey(f.public.signing_key), [123_456n, 654_321n]);
  }
  const lead = leaderFullFlow();
  assert.equal(poqWitnessSatisfies(lead.public, { ...lead.witness, key_index: 10n }), false);
});
