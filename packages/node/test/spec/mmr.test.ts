/**
 * The unit tests of mmr/src/lib.rs, ported to our voucher tree (src/ledger/trees/voucher-tree.ts).
 *
 * The reference keeps leader vouchers in a Merkle Mountain Range (ledger/src/mantle/leader.rs:
 * `MerkleMountainRange<VoucherCm, ZkHasher>` with the default MAX_HEIGHT 33, leaves at height 1)
 * whose `frontier_root` pads the peaks with empty subtrees up to MAX_HEIGHT: the root of a fixed tree
 * of 2^32 leaves with the vouchers at 0, 1, 2, ... Our VoucherTree is that tree (an append-only
 * frontier). Translation: an MMR of MAX_HEIGHT H is our tree of height H - 1 (H - 1 siblings per path,
 * 2^(H-1) leaves); `push` is `append`, `frontier_root()` is `root()`, `len()` is `count`, the MMR peaks
 * (`roots`) are the set entries of our frontier (a peak of height h is `frontier[h - 1]`), and a
 * `MerklePath` of leaf i is `voucherPath(leaves, i)` checked with `merkleRoot(leaf, path, i)`.
 * F's `b2p(bytes)` is the bytes read as a little-endian integer, reduced mod p.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Fr, frFromBytesModOrder } from '../../src/crypto/field.ts';
import { compress, merkleRoot } from '../../src/crypto/poseidon2/index.ts';
import {
  VoucherTree,
  voucherPath,
  __testing as voucherTesting,
} from '../../src/ledger/trees/voucher-tree.ts';
import { TREE_HEIGHT, ZERO_HASHES } from '../../src/ledger/trees/zero-hashes.ts';
import { prng } from '../utils/prng.ts';

const F = 'mmr/src/lib.rs';
const ACCEPTABLE_MAX_HEIGHT = 33;

const ascii = (s: string) => new TextEncoder().encode(s);

/** F's test `leaf` / `b2p`: up to 32 bytes, little-endian, mod p. */
function leaf(bytes: Uint8Array): Fr {
  assert.ok(bytes.length <= 32);
  const repr = new Uint8Array(32);
  repr.set(bytes);
  return frFromBytesModOrder(repr);
}

/** An empty MMR of MAX_HEIGHT `h` = our empty voucher tree of height h - 1. */
function mmr(maxHeight: number): VoucherTree {
  return voucherTesting.emptyOfHeight(maxHeight - 1);
}

/** F's `empty_subtree_root(height)`, height counted with leaves at 1. */
function emptySubtreeRoot(height: number): Fr {
  return ZERO_HASHES[height - 1]!;
}

/** The peaks of the MMR, bottom of the stack first (oldest, highest): [height, root]. */
function peaks(v: VoucherTree): [number, Fr][] {
  const s = v.snapshot();
  const out: [number, Fr][] = [];
  for (let i = s.frontier.length - 1; i >= 0; i--) {
    if (Math.floor(s.count / 2 ** i) % 2 === 1) out.push([i + 1, s.frontier[i]!]);
  }
  return out;
}

/** F's test `padded_leaves` then `root`: the dense root of the leaves padded with 0 to 2^(height-1). */
function denseRoot(leaves: readonly Fr[], maxHeight: number): Fr {
  let nodes = [...leaves];
  while (nodes.length < 2 ** (maxHeight - 1)) nodes.push(0n);
  while (nodes.length > 1) {
    const up: Fr[] = [];
    for (let i = 0; i < nodes.length; i += 2) up.push(compress(nodes[i]!, nodes[i + 1]!));
    nodes = up;
  }
  return nodes[0]!;
}

function randomBytes32(rand: () => number): Uint8Array {
  return Uint8Array.from({ length: 32 }, () => Math.floor(rand() * 256));
}

test(`test_empty_roots (${F})`, () => {
  let root = 0n;
  for (let i = 1; i <= ACCEPTABLE_MAX_HEIGHT; i++) {
    assert.equal(emptySubtreeRoot(i), root);
    root = compress(root, root);
  }
  // The production tree: MAX_HEIGHT 33, i.e. our height 32, empty root z_32.
  assert.equal(VoucherTree.empty().height, ACCEPTABLE_MAX_HEIGHT - 1);
  assert.equal(VoucherTree.empty().root(), emptySubtreeRoot(ACCEPTABLE_MAX_HEIGHT));
});

for (const maxHeight of [8, 16]) {
  // F ignores the height-16 variant as very slow; here it is a few runs.
  test(`test_frontier_root_${maxHeight} (${F})`, () => {
    const runs = maxHeight === 8 ? 30 : 2;
    for (let seed = 1; seed <= runs; seed++) {
      const rand = prng(seed * 977 + maxHeight);
      // proptest's Vec<[u8; 32]> strategy draws 0..100 elements.
      const n = seed === 1 ? 0 : Math.floor(rand() * 100);
      const elems = Array.from({ length: n }, () => randomBytes32(rand));
      let v = mmr(maxHeight);
      for (const e of elems) v = v.append(leaf(e));
      assert.equal(v.root(), denseRoot(elems.map(leaf), maxHeight), `seed ${seed}, ${n} elements`);
    }
  });
}

test(`test_empty_tree (${F})`, () => {
  const v = mmr(3);
  assert.equal(v.count, 0);
  assert.equal(v.root(), emptySubtreeRoot(3));
});

test(`test_zero_height_is_rejected (${F})`, () => {
  // F refuses MAX_HEIGHT 0 (and above 33); ours refuses heights outside 1..=32. (F's MAX_HEIGHT 1, a
  // single-leaf MMR with no siblings, has no counterpart: our smallest tree has 2 leaves.)
  assert.throws(() => voucherTesting.emptyOfHeight(0), RangeError);
  assert.throws(() => voucherTesting.emptyOfHeight(ACCEPTABLE_MAX_HEIGHT), RangeError);
});

test(`test_mmr_push (${F})`, () => {
  const HEIGHT = 3; // max 2^(3-1) = 4 leaves
  let v = mmr(HEIGHT);
  assert.equal(2 ** v.height, 4);
  assert.equal(v.count, 0);
  const root0 = v.root();
  assert.equal(root0, emptySubtreeRoot(HEIGHT));

  v = v.append(leaf(ascii('hello')));
  assert.equal(v.count, 1);
  assert.deepEqual(peaks(v), [[1, leaf(ascii('hello'))]]);
  const root1 = v.root();
  assert.notEqual(root1, root0);

  v = v.append(leaf(ascii('world')));
  assert.equal(v.count, 2);
  const helloWorld = compress(leaf(ascii('hello')), leaf(ascii('world')));
  assert.deepEqual(peaks(v), [[2, helloWorld]]);
  const root2 = v.root();
  assert.notEqual(root2, root1);

  v = v.append(leaf(ascii('!')));
  assert.equal(v.count, 3);
  assert.deepEqual(peaks(v), [
    [2, helloWorld],
    [1, leaf(ascii('!'))],
  ]);
  const root3 = v.root();
  assert.notEqual(root3, root2);

  v = v.append(leaf(ascii('!')));
  assert.equal(v.count, 4);
  assert.deepEqual(peaks(v), [[3, compress(helloWorld, compress(leaf(ascii('!')), leaf(ascii('!'))))]]);
  const root4 = v.root();
  assert.notEqual(root4, root3);

  assert.throws(() => v.append(leaf(ascii('already full'))), /full/);
});

/** After each append, every tracked leaf's path verifies against the new root. */
function trackPaths(elements: readonly string[], maxHeight: number, tracked: (i: number) => boolean): void {
  const leaves: Fr[] = [];
  let v = mmr(maxHeight);
  elements.forEach((e, i) => {
    leaves.push(leaf(ascii(e)));
    v = v.append(leaf(ascii(e)));
    const root = v.root();
    for (let j = 0; j <= i; j++) {
      if (!tracked(j)) continue;
      const path = voucherTesting.voucherPathOfHeight(leaves, j, maxHeight - 1);
      assert.equal(
        merkleRoot(leaves[j]!, path, BigInt(j)),
        root,
        `path ${j} invalid after pushing element ${i}`,
      );
    }
  });
}

test(`test_merkle_path_track_all (${F})`, () => {
  trackPaths(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'], 4, () => true);
});

test(`test_merkle_path_track_some (${F})`, () => {
  trackPaths(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'], 4, (i) => i % 2 === 0);
});

test(`test_push_with_paths_rejects_out_of_range_leaf_index (${F})`, () => {
  // F refuses a tracked path whose leaf index is not below the leaf count (1 leaf, index 1).
  assert.throws(() => voucherTesting.voucherPathOfHeight([leaf(ascii('a'))], 1, 2), /out of range/);
});

test(`test_merkle_path_single_element (${F})`, () => {
  const v = mmr(3).append(leaf(ascii('only')));
  const path = voucherTesting.voucherPathOfHeight([leaf(ascii('only'))], 0, 2);
  assert.equal(merkleRoot(leaf(ascii('only')), path, 0n), v.root());
});

test(`test_merkle_path_full_tree (${F})`, () => {
  const HEIGHT = 3; // 4 leaves
  const elems = ['w', 'x', 'y', 'z'].map((e) => leaf(ascii(e)));
  let v = mmr(HEIGHT);
  for (const e of elems) v = v.append(e);
  const frontier = v.root();
  assert.equal(frontier, denseRoot(elems, HEIGHT));
  elems.forEach((e, i) => {
    const path = voucherTesting.voucherPathOfHeight(elems, i, HEIGHT - 1);
    assert.equal(merkleRoot(e, path, BigInt(i)), frontier);
  });
  // Full: the next push fails.
  assert.throws(() => v.append(leaf(ascii('overflow'))), /full/);
});

test(`test_push_with_paths_matches_push (${F})`, () => {
  const HEIGHT = 8;
  let v = mmr(HEIGHT);
  const leaves: Fr[] = [];
  for (let i = 0n; i < 50n; i++) {
    const bytes = new Uint8Array(8);
    new DataView(bytes.buffer).setBigUint64(0, i, true);
    leaves.push(leaf(bytes));
    v = v.append(leaf(bytes));
    // The path built for the new leaf gives the same root as the plain append.
    const path = voucherTesting.voucherPathOfHeight(leaves, leaves.length - 1, HEIGHT - 1);
    assert.equal(merkleRoot(leaf(bytes), path, i), v.root());
  }
});

test(`test_deserialization_rejects_unsupported_mmr_height (${F})`, () => {
  const encoded = VoucherTree.empty().snapshot();
  assert.throws(() => VoucherTree.restore({ ...encoded, height: 0 }), RangeError);
  assert.throws(() => VoucherTree.restore({ ...encoded, height: TREE_HEIGHT + 1 }), RangeError);
  // The production path: 32 siblings per voucher.
  assert.equal(voucherPath([1n], 0).length, ACCEPTABLE_MAX_HEIGHT - 1);
});
