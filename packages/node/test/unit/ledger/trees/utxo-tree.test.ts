import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FieldError, FR_MODULUS, type Fr } from '../../../../src/crypto/field.ts';
import { merkleRoot } from '../../../../src/crypto/poseidon2/index.ts';
import { compressBigint } from '../../../../src/crypto/poseidon2/reference.ts';
import {
  UtxoTree,
  type UtxoTreeMutator,
  __testing as utxoTesting,
} from '../../../../src/ledger/trees/utxo-tree.ts';
import {
  VoucherTree,
  voucherPath,
  __testing as voucherTesting,
} from '../../../../src/ledger/trees/voucher-tree.ts';
import { MerkleTreeError, TREE_HEIGHT, ZERO_HASHES } from '../../../../src/ledger/trees/zero-hashes.ts';
import { prng } from '../../../utils/prng.ts';

// ---------------------------------------------------------------------------------------------------
// Oracles: the slow bigint Poseidon2 (memoized: it is a pure function) and a dense model of the tree.

const memo = new Map<string, Fr>();
function hash2(l: Fr, r: Fr): Fr {
  const key = `${l.toString(36)}:${r.toString(36)}`;
  let v = memo.get(key);
  if (v === undefined) {
    v = compressBigint(l, r);
    memo.set(key, v);
  }
  return v;
}

/** z_0..z_32 by the bigint oracle, independently of zero-hashes.ts. */
const Z: Fr[] = [0n];
for (let h = 0; h < TREE_HEIGHT; h++) Z.push(hash2(Z[h]!, Z[h]!));

/** Root of a height-32 tree whose leaves are `leaves` at positions 0..k-1 and 0 elsewhere. */
function sparseRoot(leaves: readonly Fr[]): Fr {
  let layer = [...leaves];
  for (let level = 0; level < TREE_HEIGHT; level++) {
    const next: Fr[] = [];
    for (let j = 0; j < layer.length; j += 2) next.push(hash2(layer[j]!, layer[j + 1] ?? Z[level]!));
    layer = next;
  }
  return layer[0] ?? Z[TREE_HEIGHT]!;
}

function randomInt(rand: () => number, n: number): number {
  return Math.floor(rand() * n);
}

/** A random non-zero canonical field element of full size. */
function randomFr(rand: () => number): Fr {
  let v = 0n;
  for (let i = 0; i < 8; i++) v = (v << 32n) | BigInt(randomInt(rand, 2 ** 32));
  v %= FR_MODULUS;
  return v === 0n ? 1n : v;
}

/** The dense model: 2^h leaves (0 = empty: the random ids are never 0), inserts at the smallest empty position by a scan, full recomputation of every node. */
class Model {
  readonly leaves: Fr[];
  size = 0;
  constructor(readonly height: number) {
    this.leaves = new Array<Fr>(2 ** height).fill(0n);
  }
  clone(): Model {
    const m = new Model(this.height);
    m.leaves.splice(0, m.leaves.length, ...this.leaves);
    m.size = this.size;
    return m;
  }
  get full(): boolean {
    return this.size === this.leaves.length;
  }
  insert(id: Fr): number {
    const index = this.leaves.indexOf(0n);
    assert.ok(index >= 0);
    this.leaves[index] = id;
    this.size++;
    return index;
  }
  remove(index: number): void {
    assert.notEqual(this.leaves[index], 0n);
    this.leaves[index] = 0n;
    this.size--;
  }
  /** Empty positions below the highest live one (the holes the next inserts refill first). */
  holes(): number[] {
    let last = this.leaves.length - 1;
    while (last >= 0 && this.leaves[last] === 0n) last--;
    const out: number[] = [];
    for (let i = 0; i < last; i++) if (this.leaves[i] === 0n) out.push(i);
    return out;
  }
  live(): number[] {
    const out: number[] = [];
    this.leaves.forEach((v, i) => {
      if (v !== 0n) out.push(i);
    });
    return out;
  }
  levels(): Fr[][] {
    const levels: Fr[][] = [this.leaves];
    for (let h = 0; h < this.height; h++) {
      const below = levels[h]!;
      const up: Fr[] = [];
      for (let j = 0; j < below.length; j += 2) up.push(hash2(below[j]!, below[j + 1]!));
      levels.push(up);
    }
    return levels;
  }
  root(): Fr {
    return this.levels()[this.height]![0]!;
  }
  path(index: number): Fr[] {
    const levels = this.levels();
    const out: Fr[] = [];
    for (let h = 0; h < this.height; h++) out.push(levels[h]![(index >> h) ^ 1]!);
    return out;
  }
}

/** One random operation applied to both the model and a mutator (or a single-op tree update). */
function randomOp(
  rand: () => number,
  model: Model,
  fillBias: number,
): { kind: 'insert'; id: Fr } | { kind: 'remove'; index: number } {
  const insert = model.size === 0 || (!model.full && rand() < fillBias);
  if (insert) return { kind: 'insert', id: randomFr(rand) };
  const live = model.live();
  return { kind: 'remove', index: live[randomInt(rand, live.length)]! };
}

/** A random step: either one tree.insert/remove or a withMutations batch of several ops. */
function randomStep(rand: () => number, tree: UtxoTree, model: Model, fillBias: number): UtxoTree {
  if (rand() < 0.4) {
    const op = randomOp(rand, model, fillBias);
    if (op.kind === 'insert') {
      const r = tree.insert(op.id);
      assert.equal(r.index, model.insert(op.id), 'insert takes the smallest empty position');
      return r.tree;
    }
    model.remove(op.index);
    return tree.remove(op.index);
  }
  const n = 1 + randomInt(rand, 24);
  return tree.withMutations((m: UtxoTreeMutator) => {
    for (let i = 0; i < n; i++) {
      const op = randomOp(rand, model, fillBias);
      if (op.kind === 'insert') assert.equal(m.insert(op.id), model.insert(op.id));
      else {
        model.remove(op.index);
        m.remove(op.index);
      }
      assert.equal(m.size, model.size);
    }
  });
}

function checkPath(tree: UtxoTree, index: number, model?: Model): void {
  if (tree.leaf(index) === undefined) {
    assert.throws(
      () => tree.path(index),
      (e) => e instanceof MerkleTreeError && /no path/.test(e.message),
    );
    return;
  }
  const path = tree.path(index);
  assert.equal(path.length, tree.height);
  if (model) assert.deepEqual(path, model.path(index));
  assert.equal(merkleRoot(tree.leaf(index)!, path, BigInt(index)), tree.root());
}

// ---------------------------------------------------------------------------------------------------
// UtxoTree

test('zero hashes: z_0 = 0, z_{h+1} = compress(z_h, z_h), 33 entries', () => {
  assert.equal(ZERO_HASHES.length, TREE_HEIGHT + 1);
  assert.deepEqual([...ZERO_HASHES], Z);
});

test('UtxoTree against a dense model (height 8): positions, roots, paths under random runs', () => {
  for (const seed of [1, 2, 3]) {
    const rand = prng(seed);
    const model = new Model(8);
    let tree = utxoTesting.emptyOfHeight(8);
    assert.equal(tree.root(), model.root());
    let sawFull = false;
    for (let step = 0; step < 160; step++) {
      // Phases: fill the tree (it gets full), drain it, then churn around half-full.
      const fillBias = step < 60 ? 0.9 : step < 110 ? 0.15 : 0.55;
      tree = randomStep(rand, tree, model, fillBias);
      if (model.full) {
        sawFull = true;
        assert.throws(() => tree.insert(5n), MerkleTreeError);
      }
      assert.equal(tree.size, model.size);
      assert.equal(tree.root(), model.root(), `seed ${seed} step ${step}: root`);
      for (let k = 0; k < 4; k++) {
        const i = randomInt(rand, 256);
        assert.equal(tree.leaf(i) ?? 0n, model.leaves[i]);
        checkPath(tree, i, model);
      }
      // Freed positions (empty leaves next to live ones) have no path.
      for (const i of model.holes().slice(-2)) checkPath(tree, i, model);
    }
    assert.ok(sawFull, 'the run reached a full tree');
    for (let i = 0; i < 256; i++) assert.equal(tree.leaf(i) ?? 0n, model.leaves[i]);
  }
});

test('UtxoTree insert takes the smallest empty position, freed or never used', () => {
  let t = utxoTesting.emptyOfHeight(3);
  for (let i = 0; i < 5; i++) {
    const r = t.insert(BigInt(100 + i));
    assert.equal(r.index, i);
    t = r.tree;
  }
  t = t.remove(1).remove(3).remove(0);
  const got: number[] = [];
  t = t.withMutations((m) => {
    for (let i = 0; i < 6; i++) got.push(m.insert(BigInt(200 + i)));
  });
  assert.deepEqual(got, [0, 1, 3, 5, 6, 7]);
  assert.equal(t.size, 8);
  assert.throws(() => t.insert(9n), /full/);
  const refilled = t.remove(6).insert(9n);
  assert.equal(refilled.index, 6);
  t = refilled.tree;
  // Removed in a batch in decreasing order: refilled in increasing order.
  t = t.withMutations((m) => {
    for (const i of [7, 4, 2]) m.remove(i);
  });
  got.length = 0;
  for (let i = 0; i < 3; i++) {
    const r = t.insert(BigInt(300 + i));
    got.push(r.index);
    t = r.tree;
  }
  assert.deepEqual(got, [2, 4, 7]);
});

test('UtxoTree height 32: empty root, one leaf, a few leaves against direct computation', () => {
  const empty = UtxoTree.empty();
  assert.equal(empty.height, 32);
  assert.equal(empty.size, 0);
  assert.equal(empty.root(), Z[32]);
  assert.throws(() => empty.path(0), /no path/);
  assert.equal(empty.leaf(2 ** 32 - 1), undefined);
  assert.throws(() => empty.path(2 ** 32 - 1), /no path/);

  const a = 0x1234567890abcdefn;
  const one = empty.insert(a);
  assert.equal(one.index, 0);
  let expected = a;
  for (let i = 0; i < 32; i++) expected = hash2(expected, Z[i]!);
  assert.equal(one.tree.root(), expected);
  assert.equal(one.tree.root(), sparseRoot([a]));
  assert.deepEqual(one.tree.path(0), Z.slice(0, 32));

  const rand = prng(7);
  const ids = Array.from({ length: 5 }, () => randomFr(rand));
  let t = UtxoTree.empty();
  for (const id of ids) t = t.insert(id).tree;
  assert.equal(t.size, 5);
  assert.equal(t.root(), sparseRoot(ids));
  for (let i = 0; i < 5; i++) assert.equal(merkleRoot(ids[i]!, t.path(i), BigInt(i)), t.root());
  const removed = t.remove(1);
  assert.equal(removed.root(), sparseRoot([ids[0]!, 0n, ids[2]!, ids[3]!, ids[4]!]));
  assert.throws(() => removed.path(1), /no path/);
  assert.throws(() => removed.path(1000), /no path/);
  assert.equal(merkleRoot(ids[2]!, removed.path(2), 2n), removed.root());
  // Removing everything brings back the empty root.
  const drained = removed.withMutations((m) => {
    for (const i of [0, 2, 3, 4]) m.remove(i);
  });
  assert.equal(drained.size, 0);
  assert.equal(drained.root(), Z[32]);
  assert.equal(t.root(), sparseRoot(ids), 'the source version is unchanged');
});

test('UtxoTree persistence: every version of a random run keeps its root, leaves and paths', () => {
  const rand = prng(42);
  const model = new Model(10);
  let tree = utxoTesting.emptyOfHeight(10);
  const versions: { tree: UtxoTree; root: Fr; model: Model }[] = [];
  for (let step = 0; step < 140; step++) {
    const fillBias = step < 70 ? 0.8 : 0.4;
    // Sometimes fork from an older version, as the ledger does across forked blocks.
    if (versions.length > 5 && rand() < 0.2) {
      const v = versions[versions.length - 1 - randomInt(rand, 5)]!;
      tree = v.tree;
      const m = v.model.clone();
      tree = randomStep(rand, tree, m, fillBias);
      versions.push({ tree, root: m.root(), model: m });
      model.size = m.size;
      model.leaves.splice(0, model.leaves.length, ...m.leaves);
      continue;
    }
    tree = randomStep(rand, tree, model, fillBias);
    // Compute some roots as we go (caching into shared nodes), leave the others dirty.
    if (rand() < 0.3) assert.equal(tree.root(), model.root());
    versions.push({ tree, root: model.root(), model: model.clone() });
  }
  const order = versions.map((_, i) => i).sort(() => rand() - 0.5);
  for (const i of order) {
    const v = versions[i]!;
    assert.equal(v.tree.root(), v.root, `version ${i}`);
    assert.equal(v.tree.size, v.model.size);
  }
  for (const i of order.slice(0, 30)) {
    const v = versions[i]!;
    for (let k = 0; k < 3; k++) {
      const idx = randomInt(rand, 1024);
      assert.equal(v.tree.leaf(idx) ?? 0n, v.model.leaves[idx]);
      checkPath(v.tree, idx, v.model);
    }
  }
});

test('UtxoTree batches leave the source untouched; interleaved root() on sharing versions', () => {
  const rand = prng(9);
  const model = new Model(8);
  const ids = Array.from({ length: 120 }, () => randomFr(rand));
  const base = utxoTesting.emptyOfHeight(8).withMutations((m) => {
    for (const id of ids) assert.equal(m.insert(id), model.insert(id));
  });
  // `base` is dirty (no root computed). Two versions derived from it share its dirty subtrees.
  const baseRoot = model.root();
  const mB = model.clone();
  const b = base.withMutations((m) => {
    for (const i of [3, 70, 71, 119]) {
      m.remove(i);
      mB.remove(i);
    }
    const id = randomFr(rand);
    assert.equal(m.insert(id), mB.insert(id));
  });
  const mC = model.clone();
  const c = base.withMutations((m) => {
    for (let i = 0; i < 10; i++) {
      const id = randomFr(rand);
      assert.equal(m.insert(id), mC.insert(id));
    }
    m.remove(5);
    mC.remove(5);
  });
  assert.equal(base.size, 120);
  // Children first, then the parent, then a grandchild of the (now hashed) parent.
  assert.equal(c.root(), mC.root());
  assert.equal(b.root(), mB.root());
  assert.equal(base.root(), baseRoot);
  for (let i = 0; i < 256; i++) assert.equal(base.leaf(i) ?? 0n, model.leaves[i]);
  const victim = mB.live()[0]!;
  const mD = mB.clone();
  mD.remove(victim);
  const d = b.remove(victim);
  assert.equal(d.root(), mD.root());
  assert.equal(b.root(), mB.root());
  for (const i of [0, 3, 5, 70, 120, 200]) {
    checkPath(base, i, model);
    checkPath(b, i, mB);
    checkPath(c, i, mC);
  }

  // A batch that throws is discarded; the source stays usable and correct.
  assert.throws(
    () =>
      b.withMutations((m) => {
        m.insert(77n);
        m.remove(0);
        m.remove(0);
      }),
    /empty/,
  );
  assert.equal(b.size, mB.size);
  assert.equal(b.root(), mB.root());
  assert.equal(b.leaf(0) ?? 0n, mB.leaves[0]);

  // The batch handle is dead once withMutations returns.
  let escaped: UtxoTreeMutator | undefined;
  const e = b.withMutations((m) => {
    escaped = m;
    m.insert(88n);
  });
  assert.throws(() => escaped!.insert(99n), /after withMutations/);
  assert.throws(() => escaped!.remove(0), /after withMutations/);
  assert.equal(e.size, mB.size + 1);
  // An empty batch returns the same tree.
  assert.equal(
    b.withMutations(() => {}),
    b,
  );
});

test('UtxoTree errors: empty or out-of-range positions, non-canonical note ids', () => {
  const t = UtxoTree.empty().insert(10n).tree.insert(11n).tree.insert(12n).tree;
  assert.throws(
    () => t.remove(3),
    (e) => e instanceof MerkleTreeError && /position 3 is empty/.test(e.message),
  );
  const freed = t.remove(1);
  assert.throws(() => freed.remove(1), /position 1 is empty/);
  for (const bad of [-1, 2 ** 32, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
    assert.throws(
      () => t.remove(bad),
      (e) => e instanceof MerkleTreeError && /out of range/.test(e.message),
    );
    assert.throws(() => t.leaf(bad), /out of range/);
    assert.throws(() => t.path(bad), /out of range/);
  }
  assert.throws(() => utxoTesting.emptyOfHeight(8).leaf(256), /out of range/);
  for (const bad of [FR_MODULUS, FR_MODULUS + 5n, -1n, 2n ** 256n]) {
    assert.throws(() => t.insert(bad), FieldError);
  }
  // Deliberate cast: a number where a field element is due is refused.
  assert.throws(() => t.insert(1 as unknown as bigint), FieldError);
  assert.equal(t.size, 3);
  assert.equal(t.root(), sparseRoot([10n, 11n, 12n]));
  assert.throws(() => utxoTesting.emptyOfHeight(0), RangeError);
  assert.throws(() => utxoTesting.emptyOfHeight(33), RangeError);
});

test('UtxoTree: a note id 0 occupies its position (occupancy is structural, as in merkle/dynamic-merkle)', () => {
  const zero = UtxoTree.empty().insert(0n);
  assert.equal(zero.index, 0);
  assert.equal(zero.tree.size, 1);
  assert.equal(zero.tree.leaf(0), 0n);
  // It hashes like an empty position, but it is not reused and it has a path.
  assert.equal(zero.tree.root(), Z[32]);
  assert.deepEqual(zero.tree.path(0), Z.slice(0, 32));
  const next = zero.tree.insert(7n);
  assert.equal(next.index, 1);
  assert.equal(next.tree.root(), sparseRoot([0n, 7n]));
  const emptied = next.tree.remove(0);
  assert.equal(emptied.size, 1);
  assert.equal(emptied.leaf(0), undefined);
  assert.throws(() => emptied.path(0), /no path/);
  assert.equal(emptied.root(), next.tree.root());
  assert.equal(emptied.insert(5n).index, 0);
  assert.equal(UtxoTree.restore(next.tree.snapshot()).insert(1n).index, 2);
});

// ---------------------------------------------------------------------------------------------------
// VoucherTree

test('VoucherTree root equals the UtxoTree root of the same leaves at 0..k-1 (height 32)', () => {
  const rand = prng(5);
  let v = VoucherTree.empty();
  let u = UtxoTree.empty();
  const versions: { v: VoucherTree; root: Fr }[] = [];
  assert.equal(v.root(), Z[32]);
  const leaves: Fr[] = [];
  for (let k = 1; k <= 40; k++) {
    const leaf = randomFr(rand);
    leaves.push(leaf);
    v = v.append(leaf);
    const r = u.insert(leaf);
    assert.equal(r.index, k - 1);
    u = r.tree;
    assert.equal(v.count, k);
    versions.push({ v, root: u.root() });
    if (k % 2 === 0) assert.equal(v.root(), u.root(), `k = ${k}`);
  }
  // Roots computed late, in reverse, from the frontiers kept in each value.
  for (const { v: old, root } of versions.reverse()) assert.equal(old.root(), root);
  assert.equal(v.root(), sparseRoot(leaves));
  // Immutability and forks: appending to an old value does not change it.
  const old = versions[versions.length - 10]!;
  const forkA = old.v.append(1n);
  const forkB = old.v.append(2n);
  assert.equal(old.v.root(), old.root);
  assert.notEqual(forkA.root(), forkB.root());
  assert.equal(forkA.root(), sparseRoot([...leaves.slice(0, old.v.count), 1n]));
});

test('VoucherTree small heights: every count up to full against the dense model', () => {
  for (const h of [1, 2, 4]) {
    const model = new Model(h);
    let v = voucherTesting.emptyOfHeight(h);
    let u = utxoTesting.emptyOfHeight(h);
    assert.equal(v.root(), model.root());
    for (let k = 0; k < 2 ** h; k++) {
      const leaf = BigInt(1000 + k);
      v = v.append(leaf);
      model.insert(leaf);
      u = u.insert(leaf).tree;
      assert.equal(v.root(), model.root(), `h ${h} k ${k + 1}`);
      assert.equal(v.root(), u.root());
    }
    assert.throws(() => v.append(1n), /full/);
    const leaves = model.leaves.slice();
    for (let i = 0; i < leaves.length; i++) {
      assert.deepEqual(voucherTesting.voucherPathOfHeight(leaves, i, h), model.path(i));
    }
  }
});

test('voucherPath verifies with merkleRoot and matches UtxoTree.path', () => {
  const rand = prng(11);
  const leaves = Array.from({ length: 37 }, () => randomFr(rand));
  let v = VoucherTree.empty();
  let u = UtxoTree.empty();
  for (const leaf of leaves) {
    v = v.append(leaf);
    u = u.insert(leaf).tree;
  }
  for (let i = 0; i < leaves.length; i++) {
    const path = voucherPath(leaves, i);
    assert.equal(path.length, 32);
    assert.equal(merkleRoot(leaves[i]!, path, BigInt(i)), v.root());
    assert.deepEqual(path, u.path(i));
  }
  // A voucher 0 is a legitimate leaf of the append-only tree.
  assert.equal(merkleRoot(0n, voucherPath([0n], 0), 0n), VoucherTree.empty().append(0n).root());
});

test('VoucherTree and voucherPath errors', () => {
  const v = VoucherTree.empty();
  for (const bad of [FR_MODULUS, -1n]) assert.throws(() => v.append(bad), FieldError);
  assert.equal(v.count, 0);
  assert.throws(
    () => voucherPath([1n, 2n], 2),
    (e) => e instanceof MerkleTreeError && /out of range/.test(e.message),
  );
  assert.throws(() => voucherPath([1n, 2n], -1), /out of range/);
  assert.throws(() => voucherPath([1n, 2n], 0.5), /out of range/);
  assert.throws(() => voucherPath([], 0), /out of range/);
  assert.throws(() => voucherPath([1n, FR_MODULUS], 0), FieldError);
  assert.throws(() => voucherTesting.voucherPathOfHeight([1n, 2n, 3n], 0, 1), /more than/);
});
