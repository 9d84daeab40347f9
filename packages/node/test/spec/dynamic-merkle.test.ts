/**
 * The unit tests of merkle/dynamic-merkle/src/lib.rs (the reference's fixed-height, persistent UTXO
 * Merkle tree), ported to our UtxoTree (src/ledger/trees/utxo-tree.ts).
 *
 * Translation: F's `insert(value) -> (tree, index)` is our `insert(noteId) -> { tree, index }`,
 * `remove(index)` and `root()` are the same, `size()` is `size`, `path(index) -> Option<MerklePath>`
 * is `path(index)` (which throws where F returns None), `from_sorted_items(items)` is
 * `UtxoTree.restore({ leaves: items })`. F's `MerkleNode::Left(s)` / `Right(s)` at level i is our
 * `path[i] = s` with bit i of the index 1 / 0. F's `fr_from_rng` draws a random u64; the ports use fixed
 * u64 values instead. The structure checks (`assert_canonical`, `subtree_at(..) == Node::Empty`) use
 * the tree's test access (`__testing.canonicalProblem`, `__testing.isEmptySubtree`).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Fr } from '../../src/crypto/field.ts';
import { compress, merkleRoot } from '../../src/crypto/poseidon2/index.ts';
import { __testing, UtxoTree } from '../../src/ledger/trees/utxo-tree.ts';
import { MerkleTreeError, TREE_HEIGHT, ZERO_HASHES } from '../../src/ledger/trees/zero-hashes.ts';

const F = 'merkle/dynamic-merkle/src/lib.rs';
const TREE_HEIGHT_EXCEPT_ROOT = 32;

/** Fixed stand-ins for F's `fr_from_rng` (random u64 values). */
const U64 = [
  0x9e3779b97f4a7c15n,
  0xbf58476d1ce4e5b9n,
  0x94d049bb133111ebn,
  0x2545f4914f6cdd1dn,
  0xd6e8feb86659fd93n,
  0xa0761d6478bd642fn,
  0xe7037ed1a0b428dbn,
  0x8ebc6af09c88c6e3n,
];

function assertCanonical(tree: UtxoTree): void {
  assert.equal(__testing.canonicalProblem(tree), null);
}

/** F's `verify_path`: fold the leaf with its siblings, the side given by the index bits. */
function verifyPath(item: Fr, path: readonly Fr[], index: number, expectedRoot: Fr): void {
  let current = item;
  for (let i = 0; i < path.length; i++) {
    const siblingIsLeft = Math.floor(index / 2 ** i) % 2 === 1;
    current = siblingIsLeft ? compress(path[i]!, current) : compress(current, path[i]!);
  }
  assert.equal(current, expectedRoot, "Computed root from path doesn't match expected root");
  assert.equal(merkleRoot(item, path, BigInt(index)), expectedRoot);
}

function insertAll(tree: UtxoTree, values: readonly Fr[]): UtxoTree {
  let t = tree;
  for (const v of values) t = t.insert(v).tree;
  return t;
}

test(`test_empty_tree (${F})`, () => {
  const tree = UtxoTree.empty();
  assert.equal(tree.size, 0);
  assert.equal(tree.root(), ZERO_HASHES[TREE_HEIGHT_EXCEPT_ROOT]);
  assert.equal(tree.height, TREE_HEIGHT_EXCEPT_ROOT);
  assert.equal(TREE_HEIGHT, TREE_HEIGHT_EXCEPT_ROOT);
});

test(`test_free_position_management (${F})`, () => {
  const [a, b, c, d] = U64 as [Fr, Fr, Fr, Fr];
  const tree3 = insertAll(UtxoTree.empty(), [a, b, c]);
  const removed = tree3.remove(1);
  assert.equal(removed.size, 2);
  const { tree: reinserted, index } = removed.insert(d);
  assert.equal(index, 1);
  assert.equal(reinserted.size, 3);
});

test(`test_root_consistency (${F})`, () => {
  const [a, b] = U64 as [Fr, Fr];
  const tree2 = insertAll(UtxoTree.empty(), [a, b]);
  const root1 = tree2.root();
  const reinserted = tree2.remove(0).insert(a).tree;
  assert.equal(reinserted.root(), root1);
});

test(`test_deterministic_root (${F})`, () => {
  const [a, b] = U64 as [Fr, Fr];
  assert.equal(insertAll(UtxoTree.empty(), [a, b]).root(), insertAll(UtxoTree.empty(), [a, b]).root());
});

test(`test_remove_out_of_bounds (${F})`, () => {
  const tree = UtxoTree.empty().insert(U64[0]!).tree;
  // F panics with "Index out of bounds".
  assert.throws(
    () => tree.remove(2 ** 32),
    (e) => e instanceof MerkleTreeError && /out of range/.test(e.message),
  );
});

test(`test_single_insert (${F})`, () => {
  const tree = UtxoTree.empty();
  const { tree: withItem, index } = tree.insert(U64[0]!);
  assert.equal(withItem.size, 1);
  assert.equal(index, 0);
  assert.notEqual(withItem.root(), tree.root());
  // F: the root node is an Inner node (not the collapsed Empty of height 32).
  assert.equal(__testing.isEmptySubtree(withItem, 0, TREE_HEIGHT_EXCEPT_ROOT), false);
});

test(`test_multiple_inserts (${F})`, () => {
  let tree = UtxoTree.empty();
  for (let i = 0; i < 3; i++) {
    const r = tree.insert(U64[i]!);
    tree = r.tree;
    assert.equal(tree.size, i + 1);
    assert.equal(r.index, i);
  }
  assert.equal(tree.size, 3);
});

test(`test_sparse_recovery_does_not_materialize_gaps (${F})`, () => {
  const recovered = UtxoTree.restore({ leaves: [[2 ** 31 + 1, 1n]] });
  assert.equal(recovered.size, 1);
  const { tree, index } = recovered.insert(2n);
  assert.equal(index, 0);
  assert.equal(tree.size, 2);
});

test(`test_single_removal_uses_empty_leaf (${F})`, () => {
  let tree = UtxoTree.empty();
  const first = tree.insert(1n);
  tree = first.tree;
  const second = tree.insert(2n);
  tree = second.tree;
  const removed = tree.remove(first.index);
  assert.equal(removed.size, 1);
  assert.ok(__testing.isEmptySubtree(removed, first.index, 0));
  assert.throws(() => removed.path(first.index), MerkleTreeError);
  assert.equal(removed.path(second.index).length, 32);
  assertCanonical(removed);
});

test(`test_sibling_empty_subtrees_collapse (${F})`, () => {
  let tree = insertAll(UtxoTree.empty(), [0n, 1n, 2n]);
  tree = tree.remove(0).remove(1);
  assert.ok(__testing.isEmptySubtree(tree, 0, 1));
  assert.equal(tree.size, 1);
  assertCanonical(tree);
});

test(`test_empty_subtrees_collapse_recursively (${F})`, () => {
  let tree = insertAll(UtxoTree.empty(), [0n, 1n, 2n, 3n, 4n]);
  for (let position = 0; position < 4; position++) tree = tree.remove(position);
  assert.ok(__testing.isEmptySubtree(tree, 0, 2));
  assert.equal(tree.size, 1);
  assertCanonical(tree);
});

test(`test_removing_every_item_restores_canonical_empty_tree (${F})`, () => {
  let tree = insertAll(UtxoTree.empty(), [0n, 1n, 2n, 3n, 4n, 5n, 6n, 7n]);
  for (let position = 0; position < 8; position++) tree = tree.remove(position);
  assert.ok(__testing.isEmptySubtree(tree, 0, TREE_HEIGHT_EXCEPT_ROOT));
  assert.equal(tree.root(), UtxoTree.empty().root());
  assertCanonical(tree);
});

test(`test_remove_and_reinsert_restores_root (${F})`, () => {
  const value = 1n;
  let tree = UtxoTree.empty().insert(value).tree;
  tree = tree.insert(2n).tree;
  const originalRoot = tree.root();
  const { tree: reinserted, index } = tree.remove(0).insert(value);
  assert.equal(index, 0);
  assert.equal(reinserted.root(), originalRoot);
  assertCanonical(reinserted);
});

test(`test_mutation_and_sparse_recovery_have_same_structure (${F})`, () => {
  const capacity = 2 ** TREE_HEIGHT_EXCEPT_ROOT;
  const items: [number, Fr][] = [
    [1, 1n],
    [7, 7n],
    [2 ** 31, 31n],
    [capacity - 1, 32n],
  ];
  const recovered = UtxoTree.restore({ leaves: items });
  // F's `tree_from_indexed_mutation` inserts each item at its own position, one after the other.
  let mutated = UtxoTree.empty();
  for (const item of items) mutated = UtxoTree.restore({ leaves: [item] }, mutated);
  assert.equal(mutated.size, items.length);
  assert.deepEqual(mutated.snapshot(), recovered.snapshot());
  assert.deepEqual(mutated.snapshot(recovered), { height: 32, leaves: [], removed: [] });
  assert.equal(mutated.root(), recovered.root());
  assertCanonical(mutated);
  assertCanonical(recovered);
});

test(`test_direct_serde_roundtrip_preserves_canonical_structure (${F})`, () => {
  // F's values are [b; 32] byte arrays under a test-only byte-adding hasher; ours are field elements.
  const items: [number, Fr][] = [
    [1, 1n],
    [7, 7n],
    [2 ** 31, 31n],
    [2 ** 32 - 1, 32n],
  ];
  const base = UtxoTree.restore({ leaves: items });
  const inserted = base.insert(99n);
  const tree = inserted.tree.remove(inserted.index);
  const serialized = tree.snapshot();
  const recovered = UtxoTree.restore(serialized);
  // F: the serialized form has no record of holes; ours lists the live leaves only.
  assert.deepEqual(Object.keys(serialized).sort(), ['height', 'leaves']);
  assert.deepEqual(serialized.leaves, items);
  assert.equal(recovered.root(), tree.root());
  assert.deepEqual(recovered.snapshot(), serialized);
  assertCanonical(recovered);
});

test(`test_direct_serde_canonicalizes_empty_inner_nodes (${F})`, () => {
  // F decodes a hand-built tree of empty inner nodes into the collapsed Empty root. Our snapshot can
  // only name positions; the nearest input is a difference that empties every position of its base.
  const base = UtxoTree.restore({
    leaves: [
      [0, 1n],
      [1, 2n],
    ],
  });
  const recovered = UtxoTree.restore({ leaves: [], removed: [0, 1] }, base);
  assert.ok(__testing.isEmptySubtree(recovered, 0, TREE_HEIGHT_EXCEPT_ROOT));
  assert.equal(recovered, UtxoTree.empty());
});

test(`test_remove_single_item (${F})`, () => {
  const tree = UtxoTree.empty();
  const withItem = tree.insert(U64[0]!).tree;
  const afterRemoval = withItem.remove(0);
  assert.equal(afterRemoval.size, 0);
  assert.equal(afterRemoval.root(), tree.root());
});

test(`test_remove_and_reinsert (${F})`, () => {
  const tree = insertAll(UtxoTree.empty(), U64.slice(0, 3));
  const afterRemoval = tree.remove(1);
  assert.equal(afterRemoval.size, 2);
  const { tree: afterReinsert, index } = afterRemoval.insert(U64[3]!);
  assert.equal(afterReinsert.size, 3);
  assert.equal(index, 1);
});

test(`test_structural_sharing (${F})`, () => {
  const tree1 = UtxoTree.empty();
  const tree2 = tree1.insert(U64[0]!).tree;
  const tree3 = tree2.insert(U64[1]!).tree;
  assert.equal(tree1.size, 0);
  assert.equal(tree2.size, 1);
  assert.equal(tree3.size, 2);
  const tree4 = tree2.remove(0);
  assert.equal(tree4.size, 0);
  assert.equal(tree2.size, 1);
});

test(`test_smallest_free_position_selection (${F})`, () => {
  // Insert items at positions 0, 1, 2, 3, 4.
  let tree = insertAll(UtxoTree.empty(), U64.slice(0, 5));
  // Remove items at positions 3, 1, 4 (creating free positions in that order).
  tree = tree.remove(3).remove(1).remove(4);
  const first = tree.insert(U64[5]!);
  assert.equal(first.index, 1, 'Should select smallest free position first');
  const second = first.tree.insert(U64[6]!);
  assert.equal(second.index, 3, 'Should select next smallest free position');
  const third = second.tree.insert(U64[7]!);
  assert.equal(third.index, 4, 'Should select remaining free position');
});

test(`test_path_empty_tree (${F})`, () => {
  assert.throws(() => UtxoTree.empty().path(0), MerkleTreeError);
});

test(`test_path_single_item (${F})`, () => {
  const item = 0n;
  const { tree, index } = UtxoTree.empty().insert(item);
  const path = tree.path(index);
  assert.equal(path.length, TREE_HEIGHT_EXCEPT_ROOT);
  verifyPath(item, path, index, tree.root());
  // Index 0 goes down the left subtree at every level: every sibling is a Right one, an empty subtree.
  for (let height = 0; height < path.length; height++) {
    assert.equal(Math.floor(index / 2 ** height) % 2, 0);
    assert.equal(path[height], ZERO_HASHES[height]);
  }
});

test(`test_path_removed_item (${F})`, () => {
  const { tree, index } = UtxoTree.empty().insert(0n);
  assert.equal(tree.path(index).length, 32);
  const removed = tree.remove(index);
  assert.throws(() => removed.path(index), MerkleTreeError);
});

test(`test_path_multiple_items (${F})`, () => {
  const [item0, item1, item2] = [0n, 1n, 2n];
  let tree = UtxoTree.empty();
  const r0 = tree.insert(item0);
  tree = r0.tree;
  const r1 = tree.insert(item1);
  tree = r1.tree;
  const r2 = tree.insert(item2);
  tree = r2.tree;

  const path0 = tree.path(r0.index);
  assert.equal(path0.length, TREE_HEIGHT_EXCEPT_ROOT);
  verifyPath(item0, path0, r0.index, tree.root());

  const path1 = tree.path(r1.index);
  assert.equal(path1.length, TREE_HEIGHT_EXCEPT_ROOT);
  verifyPath(item1, path1, r1.index, tree.root());
  // The first sibling of idx1 is idx0, on the left.
  assert.equal(r1.index % 2, 1);
  assert.equal(path1[0], item0);

  const path2 = tree.path(r2.index);
  assert.equal(path2.length, TREE_HEIGHT_EXCEPT_ROOT);
  verifyPath(item2, path2, r2.index, tree.root());
});
