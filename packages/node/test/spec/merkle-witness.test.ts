/**
 * The unit tests of core/src/proofs/merkle.rs (Merkle paths turned into circuit witnesses), ported in
 * our terms.
 *
 * The reference's circuits take the 32 siblings leaf-first and one selector per level, most
 * significant level first, true when the sibling is the left child (`merkle_path_to_witness`,
 * `mmr_path_to_witness`). Our witnesses (src/ledger/proof-system.ts `PolWitness`, `PocWitness`) carry
 * the same leaf-first siblings with the leaf index; bit i of the index (least significant first) is
 * the selector of level i, which is how `merkleRoot` and our circuits (zk/circuits/merkle.circom) read
 * it. So F's selector k is bit 31 - k of our index, and the tests below check the values of F's
 * tests through that correspondence.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Fr } from '../../src/crypto/field.ts';
import { compress, merkleRoot } from '../../src/crypto/poseidon2/index.ts';

const F = 'core/src/proofs/merkle.rs';
const TREE_HEIGHT_EXCEPT_ROOT = 32;

/** F's selector array (most significant level first, true = sibling on the left) of a leaf index. */
function selectors(index: bigint): boolean[] {
  return Array.from({ length: TREE_HEIGHT_EXCEPT_ROOT }, (_, k) => ((index >> BigInt(31 - k)) & 1n) === 1n);
}

/** The root from sides given per level (true = sibling on the left), leaf level first. */
function rootBySides(leaf: Fr, siblings: readonly Fr[], left: readonly boolean[]): Fr {
  let cur = leaf;
  siblings.forEach((s, i) => {
    cur = left[i] ? compress(s, cur) : compress(cur, s);
  });
  return cur;
}

test(`test_merkle_path_to_witness (${F})`, () => {
  // F's path: level i holds the value i, as Left(i) for even i and Right(i) for odd i.
  const items = Array.from({ length: TREE_HEIGHT_EXCEPT_ROOT }, (_, i) => BigInt(i));
  const left = items.map((_, i) => i % 2 === 0);
  // The leaf index of that path: bit i set where the sibling is on the left.
  let index = 0n;
  left.forEach((l, i) => {
    if (l) index |= 1n << BigInt(i);
  });
  assert.equal(index, 0x55555555n);
  assert.deepEqual(items.slice(0, 4), [0n, 1n, 2n, 3n]);
  assert.deepEqual(selectors(index).slice(0, 4), [false, true, false, true]);
  const leaf = 12345n;
  assert.equal(merkleRoot(leaf, items, index), rootBySides(leaf, items, left));
});

test(`test_mmr_path_to_witness (${F})`, () => {
  // Leaf index 11 (0b1011), siblings 1..=32.
  const siblings = Array.from({ length: TREE_HEIGHT_EXCEPT_ROOT }, (_, i) => BigInt(i + 1));
  const sel = selectors(11n);
  // For leaf index 11 the selector order starts at height 32.
  assert.deepEqual(sel.slice(28), [true, false, true, true]);
  assert.ok(sel.slice(0, 28).every((s) => !s));
  const leaf = 777n;
  const leftFromLevel = [...sel].reverse();
  assert.equal(merkleRoot(leaf, siblings, 11n), rootBySides(leaf, siblings, leftFromLevel));
});

test(`test_mmr_path_to_witness_validates_leaf_index (${F})`, () => {
  const siblings = new Array<Fr>(TREE_HEIGHT_EXCEPT_ROOT).fill(0n);
  // The highest valid index, 2^32 - 1, is accepted; 2^32 is outside the tree.
  assert.equal(typeof merkleRoot(1n, siblings, 2n ** 32n - 1n), 'bigint');
  assert.throws(() => merkleRoot(1n, siblings, 2n ** 32n), RangeError);
});
