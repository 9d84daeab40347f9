/**
 * The unit tests of merkle/utxotree/src/lib.rs, ported to our UTXO tree.
 *
 * F's UtxoTree is keyed: it keeps key -> (item, position) beside the dynamic Merkle tree whose leaf
 * is the key itself (merkle/tree/src/lib.rs, `UtxoLeaf`). Our ledger keeps that map in its note map
 * (`LedgerState.notes`, note id -> record with `index`) beside `UtxoTree`; the tests below pair the two
 * the same way with a plain Map (`Keyed`). F's `TestFr::from_rng` draws a random u64; the ports use
 * fixed u64 values. F's `Error::NotFound` is a missing key in the map.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Fr } from '../../src/crypto/field.ts';
import { UtxoTree } from '../../src/ledger/trees/utxo-tree.ts';
import { prng } from '../utils/prng.ts';

const F = 'merkle/utxotree/src/lib.rs';

const U64 = [
  0x9e3779b97f4a7c15n,
  0xbf58476d1ce4e5b9n,
  0x94d049bb133111ebn,
  0x2545f4914f6cdd1dn,
  0xd6e8feb86659fd93n,
  0xa0761d6478bd642fn,
];

/** A note map (key -> item and position) beside the tree, as F's MerkleTree and our ledger pair them. */
class Keyed {
  constructor(
    readonly tree: UtxoTree = UtxoTree.empty(),
    readonly items: ReadonlyMap<Fr, { item: Fr; pos: number }> = new Map(),
  ) {}
  get size(): number {
    return this.tree.size;
  }
  root(): Fr {
    return this.tree.root();
  }
  insert(key: Fr, item: Fr): [Keyed, number] {
    const { tree, index } = this.tree.insert(key);
    const items = new Map(this.items);
    items.set(key, { item, pos: index });
    return [new Keyed(tree, items), index];
  }
  remove(key: Fr): { ok: true; tree: Keyed; item: Fr } | { ok: false; error: 'NotFound' } {
    const entry = this.items.get(key);
    if (entry === undefined) return { ok: false, error: 'NotFound' };
    const items = new Map(this.items);
    items.delete(key);
    return { ok: true, tree: new Keyed(this.tree.remove(entry.pos), items), item: entry.item };
  }
}

function unwrap(r: ReturnType<Keyed['remove']>): { tree: Keyed; item: Fr } {
  assert.ok(r.ok);
  return r;
}

test(`test_empty_tree (${F})`, () => {
  assert.equal(new Keyed().size, 0);
});

test(`test_single_insert (${F})`, () => {
  const tree = new Keyed();
  const item = U64[0]!;
  const [withItem] = tree.insert(item, item);
  assert.equal(withItem.size, 1);
  assert.equal(tree.size, 0);
  assert.notEqual(withItem.root(), tree.root());
});

test(`test_multiple_inserts (${F})`, () => {
  let current = new Keyed();
  U64.slice(0, 3).forEach((item, i) => {
    const [next, pos] = current.insert(item, item);
    current = next;
    assert.equal(current.size, i + 1);
    assert.equal(pos, i);
  });
  assert.equal(current.size, 3);
});

test(`test_remove_existing_item (${F})`, () => {
  const item = U64[0]!;
  const [withItem] = new Keyed().insert(item, item);
  const { tree, item: removed } = unwrap(withItem.remove(item));
  assert.equal(tree.size, 0);
  assert.equal(removed, item);
});

test(`test_remove_non_existing_item (${F})`, () => {
  const item = U64[0]!;
  const [withItem] = new Keyed().insert(item, item);
  assert.deepEqual(withItem.remove(U64[1]!), { ok: false, error: 'NotFound' });
});

test(`test_remove_from_empty_tree (${F})`, () => {
  assert.deepEqual(new Keyed().remove(U64[0]!), { ok: false, error: 'NotFound' });
  // The tree itself refuses to empty a position that holds nothing.
  assert.throws(() => UtxoTree.empty().remove(0), /empty/);
});

test(`test_structural_sharing (${F})`, () => {
  const tree = new Keyed();
  const [tree1] = tree.insert(U64[0]!, U64[0]!);
  const [tree2] = tree1.insert(U64[1]!, U64[1]!);
  assert.equal(tree.size, 0);
  assert.equal(tree1.size, 1);
  assert.equal(tree2.size, 2);
});

test(`test_root_changes_with_operations (${F})`, () => {
  const tree = new Keyed();
  const emptyRoot = tree.root();
  const item = U64[0]!;
  const [withItem] = tree.insert(item, item);
  assert.notEqual(withItem.root(), emptyRoot);
  const { tree: after } = unwrap(withItem.remove(item));
  assert.equal(after.root(), emptyRoot);
});

test(`test_deterministic_root (${F})`, () => {
  let t1 = new Keyed();
  let t2 = new Keyed();
  for (const item of U64.slice(0, 3)) {
    [t1] = t1.insert(item, item);
    [t2] = t2.insert(item, item);
  }
  assert.equal(t1.root(), t2.root());
});

test(`test_mixed_operations (${F})`, () => {
  let current = new Keyed();
  const items = U64.slice(0, 4);
  for (const item of items) [current] = current.insert(item, item);
  assert.equal(current.size, 4);
  const { tree: afterRemoval } = unwrap(current.remove(items[1]!));
  assert.equal(afterRemoval.size, 3);
  const { tree: afterRemoval2 } = unwrap(afterRemoval.remove(items[3]!));
  assert.equal(afterRemoval2.size, 2);
  const [finalTree, pos] = afterRemoval2.insert(U64[4]!, U64[4]!);
  assert.equal(finalTree.size, 3);
  // Not asserted by F, follows from its placement rule: the smallest free position (1, not 3).
  assert.equal(pos, 1);
});

test(`test_empty_tree_root_consistency (${F})`, () => {
  assert.equal(new Keyed().root(), new Keyed().root());
});

test(`test_position_tracking (${F})`, () => {
  let current = new Keyed();
  const positions: number[] = [];
  for (const item of U64.slice(0, 3)) {
    const [next, pos] = current.insert(item, item);
    current = next;
    positions.push(pos);
  }
  assert.deepEqual(positions, [0, 1, 2]);
});

test(`test_large_tree_operations (${F})`, () => {
  let current = new Keyed();
  const numItems = 100;
  for (let i = 0; i < numItems; i++) {
    const item = BigInt(i);
    const [next, pos] = current.insert(item, item);
    current = next;
    assert.equal(pos, i);
  }
  assert.equal(current.size, numItems);
  for (let i = 0; i < numItems; i += 2) current = unwrap(current.remove(BigInt(i))).tree;
  assert.equal(current.size, numItems / 2);
});

test(`test_compress_recover_roundtrip (${F})`, () => {
  // F's Arbitrary tree: items 0..n-1 inserted, then some of them removed at random; compressed (the
  // items and their positions) and recovered, the two trees compare equal (items and root). F draws
  // n in 1..=2; these runs take n up to 300 as well.
  for (let seed = 1; seed <= 40; seed++) {
    const rand = prng(seed);
    const numItems = seed <= 20 ? 1 + (seed % 2) : 1 + Math.floor(rand() * 300);
    let tree = new Keyed();
    const items = Array.from({ length: numItems }, (_, i) => BigInt(i));
    for (const item of items) [tree] = tree.insert(item, item);
    const numRemovals = Math.floor(rand() * numItems);
    for (let k = 0; k < numRemovals; k++) {
      const [item] = items.splice(Math.floor(rand() * items.length), 1);
      tree = unwrap(tree.remove(item!)).tree;
    }
    const compressed = tree.tree.snapshot();
    const recovered = UtxoTree.restore(compressed);
    assert.equal(recovered.root(), tree.root());
    assert.equal(recovered.size, tree.size);
    assert.deepEqual(recovered.snapshot(), compressed);
    // Every item is at its recorded position in the recovered tree.
    for (const [key, { pos }] of tree.items) assert.equal(recovered.leaf(pos), key);
    // And the recovered tree places the next note where the original does.
    assert.equal(recovered.insert(999n).index, tree.tree.insert(999n).index);
  }
});
