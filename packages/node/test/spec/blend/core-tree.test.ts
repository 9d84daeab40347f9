/**
 * The core tree against the reference's Merkle tree tests (F: blend/crypto/src/merkle.rs tests) and
 * the proof-of-quota fixture's core path (F: blend/proofs/src/quota/fixtures.rs).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  CORE_MERKLE_TREE_HEIGHT,
  CORE_TREE_MAX_KEYS,
  CoreTree,
  CoreTreeError,
  coreTreeRootOf,
  pathFromReference,
  referencePathAndSelectors,
} from '../../../src/crypto/blend/core-tree.ts';
import { compress } from '../../../src/crypto/poseidon2/index.ts';
import { zkPublicKey } from '../../../src/crypto/zk-keys.ts';
import { validCoreQuotaInputs } from './poq-fixtures.ts';

function selectors(tree: CoreTree, key: bigint): boolean[] {
  const path = tree.pathOf(key);
  assert.ok(path);
  assert.equal(coreTreeRootOf(key, path), tree.root, 'the path reaches the root');
  assert.equal(path.siblings.length, CORE_MERKLE_TREE_HEIGHT);
  return referencePathAndSelectors(path).map(([, s]) => s);
}

// F: blend/crypto/src/merkle.rs::tests::single_key
test('single_key: the root differs from the key, every selector is false', () => {
  const tree = new CoreTree([1n]);
  assert.notEqual(tree.root, 1n);
  assert.ok(!selectors(tree, 1n).some((s) => s));
});

// F: blend/crypto/src/merkle.rs::tests::two_keys
test('two_keys: keys sorted by value; 101 is the right child at the leaf level only', () => {
  const tree = new CoreTree([101n, 100n]);
  assert.equal(tree.indexOfKey(101n), 1);
  assert.equal(tree.indexOfKey(100n), 0);
  const one = selectors(tree, 101n);
  assert.equal(one.at(-1), true);
  assert.ok(!one.slice(0, -1).some((s) => s));
  assert.ok(!selectors(tree, 100n).some((s) => s));
  // The leaf level pairs the two keys; the levels above pair with the trees of zeros.
  let z = 0n;
  let node = compress(100n, 101n);
  for (let h = 1; h < CORE_MERKLE_TREE_HEIGHT; h++) {
    z = compress(z, z);
    node = compress(node, z);
  }
  assert.equal(tree.root, node);
});

// F: blend/crypto/src/merkle.rs::tests::three_keys
test('three_keys: 102 is a left leaf in the right subtree of height one', () => {
  const tree = new CoreTree([101n, 100n, 102n]);
  assert.equal(tree.indexOfKey(101n), 1);
  assert.equal(tree.indexOfKey(100n), 0);
  assert.equal(tree.indexOfKey(102n), 2);
  const one = selectors(tree, 101n);
  assert.equal(one.at(-1), true);
  assert.ok(!one.slice(0, -1).some((s) => s));
  assert.ok(!selectors(tree, 100n).some((s) => s));
  const three = selectors(tree, 102n);
  assert.equal(three.at(-1), false);
  assert.equal(three.at(-2), true);
  assert.ok(!three.slice(0, -2).some((s) => s));
});

// F: blend/crypto/src/merkle.rs::tests::empty_key_list
test('empty_key_list', () => {
  assert.throws(
    () => new CoreTree([]),
    (e: unknown) => e instanceof CoreTreeError && e.reason === 'empty',
  );
});

// F: blend/crypto/src/merkle.rs::tests::too_many_keys
test('too_many_keys: more than 2^20 keys are refused before anything is hashed', () => {
  const keys = new Array<bigint>(CORE_TREE_MAX_KEYS + 1).fill(1n);
  assert.throws(
    () => new CoreTree(keys),
    (e: unknown) => e instanceof CoreTreeError && e.reason === 'too_many',
  );
});

// F: blend/crypto/src/merkle.rs::tests::duplicate_keys
test('duplicate_keys', () => {
  assert.throws(
    () => new CoreTree([1n, 1n]),
    (e: unknown) => e instanceof CoreTreeError && e.reason === 'duplicate',
  );
});

test('a key that is not a leaf has no path', () => {
  assert.equal(new CoreTree([1n, 2n]).pathOf(3n), undefined);
});

// F: blend/proofs/src/quota/fixtures.rs valid_proof_of_core_quota_inputs
test('the reference fixture path leads from the key of core_sk to its core root', () => {
  const { public: pub, witness } = validCoreQuotaInputs(new Uint8Array(32), 1n);
  assert.equal(coreTreeRootOf(zkPublicKey(witness.core_sk), witness.core_path), pub.core.zk_root);
  // The conversion to and from the reference's pairs is lossless.
  assert.deepEqual(pathFromReference(referencePathAndSelectors(witness.core_path)), witness.core_path);
});

test('a tree of the reference test keys 1..=100 gives every key a path to the root', () => {
  const keys = Array.from({ length: 100 }, (_, i) => zkPublicKey(BigInt(i + 1)));
  const tree = new CoreTree(keys);
  for (const k of keys) {
    const p = tree.pathOf(k)!;
    assert.equal(coreTreeRootOf(k, p), tree.root);
  }
  const sorted = [...keys].sort((a, b) => (a < b ? -1 : 1));
  assert.equal(tree.indexOfKey(sorted[57]!), 57);
});
