/**
 * The UTXO Merkle tree: every unspent note id (an Fr) at a leaf of a binary Poseidon2 Merkle tree of
 * height 32. Its root is a public input of the proof of leadership, whose prover shows a 32-level path
 * (`path(index)`, checkable with `merkleRoot(leaf, path, BigInt(index))`).
 *
 * Hashing (zero-hashes.ts): node = compress(left, right); an empty position hashes as 0 and an empty
 * subtree of height h as z_h. A leaf is the note id itself.
 *
 * Positions (deterministic, consensus-relevant; F: merkle/dynamic-merkle/src/lib.rs):
 * - `insert(noteId)` places the note at the smallest empty position (positions freed by removals and
 *   never-used ones alike), found by descending from the root into the left subtree whenever it is
 *   not full: every node keeps the number of live leaves below it, so this costs `height` steps,
 *   never a scan.
 * - `remove(index)` empties that position; the tree keeps its height (32) and never reorders or
 *   compacts the other leaves.
 * Occupancy is structural, as in F, not a leaf value: a position holding the note id 0 is live (it
 * hashes like an empty one but is not reused and has a path).
 * The tree is therefore a function of its live leaves alone: the same (index, note id) pairs give
 * the same tree, whatever the history that produced them.
 * Removing an empty or out-of-range position throws MerkleTreeError, and so does asking for the path
 * of an empty position (F returns no path there) or inserting into a full tree; inserting a
 * non-canonical Fr throws FieldError.
 *
 * Persistence: a UtxoTree is an immutable value; an update copies only the root-to-leaf path, so
 * hundreds of versions (one per block, across forks) share their untouched subtrees. `withMutations(fn)`
 * applies a batch transiently: nodes created by the batch carry its edit number and are updated in
 * place by later operations of the same batch; once the batch ends its number is never used again, so
 * every node reachable from a returned tree is frozen.
 *
 * Deferred hashing: updates never hash. A node created or changed by an update has no cached hash (it
 * is dirty); `root()` and `path()` compute the hash of each dirty node they reach once and cache it in
 * the node. A node's hash is a pure function of its (frozen) content, so caching it from any version
 * that shares the node is correct for all of them, and untouched shared subtrees are never rehashed.
 *
 * Layout: the bottom nodes (level 1) hold a pair of leaves; above them, internal nodes hold two child
 * references. An empty subtree is `null` (its hash is a zero hash) and a subtree whose leaves are all
 * removed becomes `null` again (F collapses empty siblings the same way), so memory follows the number
 * of live leaves, not 2^32.
 */
import { FieldError, FR_MODULUS, type Fr } from '../../crypto/field.ts';
import { compress } from '../../crypto/poseidon2/index.ts';
import { checkHeight, MerkleTreeError, TREE_HEIGHT, ZERO_HASHES } from './zero-hashes.ts';

/** A leaf position: a note id, or null when empty. */
type Slot = Fr | null;

/** Level-1 node: leaves 2k (l) and 2k + 1 (r); never both empty. */
class Pair {
  l: Slot;
  r: Slot;
  /** Number of live leaves among l and r. */
  count: number;
  /** compress(l, r) once computed (an empty leaf counts as 0); null while dirty. */
  hash: Fr | null = null;
  /** Number of the batch that created the node (mutable in place only within that batch). */
  edit: number;
  constructor(l: Slot, r: Slot, edit: number) {
    this.l = l;
    this.r = r;
    this.count = (l === null ? 0 : 1) + (r === null ? 0 : 1);
    this.edit = edit;
  }
}

/** Internal node at level >= 2; null children are empty subtrees (never both). */
class Inner {
  left: Node | null;
  right: Node | null;
  /** Number of live leaves below this node. */
  count: number;
  hash: Fr | null = null;
  edit: number;
  constructor(left: Node | null, right: Node | null, edit: number) {
    this.left = left;
    this.right = right;
    this.count = countOf(left) + countOf(right);
    this.edit = edit;
  }
}

type Node = Pair | Inner;

/** Live leaves of a subtree. */
function countOf(node: Node | null): number {
  return node === null ? 0 : node.count;
}

/** Set by UtxoTree's static block (the constructor is private): an empty tree of any height. */
let emptyOfHeight: (height: number) => UtxoTree;
/** Set by UtxoTree's static block: the root node of a tree (test access only). */
let rootNodeOf: (tree: UtxoTree) => Node | null;

/** Batch numbers; each withMutations batch takes a fresh one, never reused. 0 marks no batch. */
let lastEdit = 0;

/** Hash of a subtree at `level` (1 = pair of leaves), computing and caching dirty nodes. */
function hashOf(node: Node | null, level: number): Fr {
  if (node === null) return ZERO_HASHES[level]!;
  if (node.hash !== null) return node.hash;
  let h: Fr;
  if (level === 1) {
    const p = node as Pair;
    h = compress(p.l ?? 0n, p.r ?? 0n);
  } else {
    const n = node as Inner;
    h = compress(hashOf(n.left, level - 1), hashOf(n.right, level - 1));
  }
  node.hash = h;
  return h;
}

function leafAt(root: Node | null, height: number, index: number): Slot {
  let node = root;
  for (let level = height; level >= 2 && node !== null; level--) {
    const n = node as Inner;
    node = ((index >>> (level - 1)) & 1) === 1 ? n.right : n.left;
  }
  if (node === null) return null;
  const p = node as Pair;
  return (index & 1) === 1 ? p.r : p.l;
}

/** Returns the subtree with position `index` set to `value` (null = empty), copying nodes not owned by batch `edit`. */
function setLeaf(node: Node | null, level: number, index: number, value: Slot, edit: number): Node | null {
  if (level === 1) {
    const p = node as Pair | null;
    const isRight = (index & 1) === 1;
    const l = isRight ? (p === null ? null : p.l) : value;
    const r = isRight ? value : p === null ? null : p.r;
    if (l === null && r === null) return null;
    if (p !== null && p.edit === edit) {
      p.l = l;
      p.r = r;
      p.count = (l === null ? 0 : 1) + (r === null ? 0 : 1);
      p.hash = null;
      return p;
    }
    return new Pair(l, r, edit);
  }
  const n = node as Inner | null;
  const isRight = ((index >>> (level - 1)) & 1) === 1;
  let left = n === null ? null : n.left;
  let right = n === null ? null : n.right;
  if (isRight) right = setLeaf(right, level - 1, index, value, edit);
  else left = setLeaf(left, level - 1, index, value, edit);
  if (left === null && right === null) return null;
  if (n !== null && n.edit === edit) {
    n.left = left;
    n.right = right;
    n.count = countOf(left) + countOf(right);
    n.hash = null;
    return n;
  }
  return new Inner(left, right, edit);
}

/**
 * The smallest empty position of a tree of `height` that is not full: go left while the left
 * subtree has room (F: merkle/dynamic-merkle/src/lib.rs `first_empty_index`).
 */
function firstEmptyIndex(root: Node | null, height: number): number {
  let node = root;
  let at = 0;
  for (let level = height; level >= 2 && node !== null; level--) {
    const n = node as Inner;
    const half = 2 ** (level - 1);
    if (countOf(n.left) < half) node = n.left;
    else {
      node = n.right;
      at += half;
    }
  }
  if (node === null) return at;
  return (node as Pair).l === null ? at : at + 1;
}

function checkNoteId(noteId: Fr): void {
  if (typeof noteId !== 'bigint') throw new FieldError(`note id must be a bigint, got ${typeof noteId}`);
  if (noteId < 0n || noteId >= FR_MODULUS) {
    throw new FieldError('note id is not a canonical field element (must be 0 <= x < p)');
  }
}

function checkIndex(index: number, height: number): void {
  if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= 2 ** height) {
    throw new MerkleTreeError(`UTXO tree index ${String(index)} is out of range [0, 2^${height})`);
  }
}

/** The batch handle given to `withMutations`; valid only during the callback. */
export interface UtxoTreeMutator {
  /** Live leaves so far in the batch. */
  readonly size: number;
  /** Inserts a note at the smallest empty position and returns that position. */
  insert(noteId: Fr): number;
  /** Empties the position `index`. */
  remove(index: number): void;
  /** Current note id at `index` in the batch (undefined if the position is empty). */
  leaf(index: number): Fr | undefined;
}

class Batch implements UtxoTreeMutator {
  root: Node | null;
  size: number;
  changed = false;
  private open = true;
  private readonly edit: number;
  private readonly height: number;

  constructor(tree: UtxoTree, root: Node | null) {
    this.height = tree.height;
    this.root = root;
    this.size = tree.size;
    this.edit = ++lastEdit;
  }

  close(): void {
    this.open = false;
  }

  private checkOpen(): void {
    if (!this.open) throw new MerkleTreeError('UTXO tree batch used after withMutations returned');
  }

  insert(noteId: Fr): number {
    this.checkOpen();
    checkNoteId(noteId);
    if (this.size >= 2 ** this.height) {
      throw new MerkleTreeError(`UTXO tree is full (2^${this.height} leaves)`);
    }
    const index = firstEmptyIndex(this.root, this.height);
    this.root = setLeaf(this.root, this.height, index, noteId, this.edit);
    this.size++;
    this.changed = true;
    return index;
  }

  remove(index: number): void {
    this.checkOpen();
    checkIndex(index, this.height);
    if (leafAt(this.root, this.height, index) === null) {
      throw new MerkleTreeError(`UTXO tree position ${index} is empty`);
    }
    this.root = setLeaf(this.root, this.height, index, null, this.edit);
    this.size--;
    this.changed = true;
  }

  leaf(index: number): Fr | undefined {
    this.checkOpen();
    checkIndex(index, this.height);
    return leafAt(this.root, this.height, index) ?? undefined;
  }
}

export class UtxoTree {
  /** Number of live leaves. */
  readonly size: number;
  /** Tree height: 32 in production (smaller heights exist only for tests, see `__testing`). */
  readonly height: number;
  readonly #root: Node | null;

  private constructor(height: number, root: Node | null, size: number) {
    this.height = height;
    this.#root = root;
    this.size = size;
  }

  static #empty: UtxoTree | undefined;

  /** The empty tree of height 32 (root z_32). */
  static empty(): UtxoTree {
    UtxoTree.#empty ??= new UtxoTree(TREE_HEIGHT, null, 0);
    return UtxoTree.#empty;
  }

  static {
    emptyOfHeight = (height) => {
      checkHeight(height);
      return height === TREE_HEIGHT ? UtxoTree.empty() : new UtxoTree(height, null, 0);
    };
    rootNodeOf = (tree) => tree.#root;
  }

  /** Inserts a note id at the smallest empty position; returns the new tree and the position. */
  insert(noteId: Fr): { tree: UtxoTree; index: number } {
    let index = -1;
    const tree = this.withMutations((m) => {
      index = m.insert(noteId);
    });
    return { tree, index };
  }

  /** Empties the position `index`; throws if it is empty or out of range. */
  remove(index: number): UtxoTree {
    return this.withMutations((m) => m.remove(index));
  }

  /**
   * Applies a batch of inserts/removes transiently and returns the resulting tree; `this` is unchanged.
   * If `fn` throws, the batch is discarded and the error propagates.
   */
  withMutations(fn: (m: UtxoTreeMutator) => void): UtxoTree {
    const batch = new Batch(this, this.#root);
    try {
      fn(batch);
    } finally {
      batch.close();
    }
    if (!batch.changed) return this;
    return new UtxoTree(this.height, batch.root, batch.size);
  }

  /** The note id at `index`, or undefined if the position is empty. */
  leaf(index: number): Fr | undefined {
    checkIndex(index, this.height);
    return leafAt(this.#root, this.height, index) ?? undefined;
  }

  /** The Merkle root; hashes each dirty node once and caches it. */
  root(): Fr {
    return hashOf(this.#root, this.height);
  }

  // snapshot support
  /**
   * Everything that determines this tree's future behaviour: its live leaves (ascending index); the
   * empty positions are all the others. With `base`, `leaves` lists only the positions that are live
   * here and empty or different in `base`, and `removed` the positions live in `base` and empty here
   * (for `restore(s, base)`).
   */
  snapshot(base?: UtxoTree): UtxoTreeSnapshot {
    if (base !== undefined && base.height !== this.height) {
      throw new MerkleTreeError(`base tree height ${base.height} differs from ${this.height}`);
    }
    const leaves: [number, Fr][] = [];
    const removed: number[] = [];
    const slot = (at: number, mine: Slot, theirs: Slot): void => {
      if (mine === theirs) return;
      if (mine === null) removed.push(at);
      else leaves.push([at, mine]);
    };
    // Shared subtrees are skipped.
    const walk = (node: Node | null, other: Node | null, level: number, at: number): void => {
      if (node === other) return;
      if (level === 1) {
        const p = node as Pair | null;
        const q = other as Pair | null;
        slot(at, p === null ? null : p.l, q === null ? null : q.l);
        slot(at + 1, p === null ? null : p.r, q === null ? null : q.r);
        return;
      }
      const n = node as Inner | null;
      const o = other as Inner | null;
      walk(n === null ? null : n.left, o === null ? null : o.left, level - 1, at);
      walk(n === null ? null : n.right, o === null ? null : o.right, level - 1, at + 2 ** (level - 1));
    };
    walk(this.#root, base === undefined ? null : base.#root, this.height, 0);
    return base === undefined ? { height: this.height, leaves } : { height: this.height, leaves, removed };
  }

  // snapshot support
  /**
   * Rebuilds the tree of a `snapshot()`; indices must be strictly ascending in `leaves` and in
   * `removed`. Hashing is deferred as for any update. With `base` (a tree of the same height), the
   * result shares the subtrees the two trees have in common: `removed` positions (live in `base`) are
   * emptied and `leaves` set. Without a base, `removed` must be empty.
   */
  static restore(s: UtxoTreeSnapshot, base?: UtxoTree): UtxoTree {
    const height = s.height ?? TREE_HEIGHT;
    checkHeight(height);
    if (base !== undefined && base.height !== height) {
      throw new MerkleTreeError(`base tree height ${base.height} differs from ${height}`);
    }
    const edit = ++lastEdit;
    let root: Node | null = base === undefined ? null : base.#root;
    let size = base === undefined ? 0 : base.size;
    let prev = -1;
    for (const index of s.removed ?? []) {
      checkIndex(index, height);
      if (index <= prev) throw new MerkleTreeError(`removed index ${index} is not strictly ascending`);
      prev = index;
      if (leafAt(root, height, index) === null) {
        throw new MerkleTreeError(`removed position ${index} is not live in the base tree`);
      }
      root = setLeaf(root, height, index, null, edit);
      size--;
    }
    prev = -1;
    for (const [index, id] of s.leaves) {
      checkIndex(index, height);
      if (index <= prev) throw new MerkleTreeError(`leaf index ${index} is not strictly ascending`);
      prev = index;
      checkNoteId(id);
      const old = leafAt(root, height, index);
      if (old === id) continue;
      if (old === null) size++;
      root = setLeaf(root, height, index, id, edit);
    }
    if (size === 0 && height === TREE_HEIGHT) return UtxoTree.empty();
    return new UtxoTree(height, root, size);
  }

  /**
   * The `height` siblings of the live leaf `index`, from the leaf level up (for
   * `merkleRoot(leaf, path, BigInt(index))`). An empty position has no path (F:
   * merkle/dynamic-merkle/src/lib.rs `path` returns None): it throws MerkleTreeError.
   */
  path(index: number): Fr[] {
    checkIndex(index, this.height);
    if (leafAt(this.#root, this.height, index) === null) {
      throw new MerkleTreeError(`UTXO tree position ${index} is empty: it has no path`);
    }
    const path = new Array<Fr>(this.height);
    let node = this.#root;
    for (let level = this.height; level >= 2; level--) {
      const n = node as Inner;
      if (((index >>> (level - 1)) & 1) === 1) {
        path[level - 1] = hashOf(n.left, level - 1);
        node = n.right;
      } else {
        path[level - 1] = hashOf(n.right, level - 1);
        node = n.left;
      }
    }
    const p = node as Pair;
    path[0] = ((index & 1) === 1 ? p.l : p.r) ?? 0n;
    return path;
  }
}

// snapshot support
/** See `UtxoTree.snapshot()`. `height` defaults to 32. */
export interface UtxoTreeSnapshot {
  readonly height?: number;
  /** [index, note id], strictly ascending index (with a base tree: the positions set or changed). */
  readonly leaves: readonly (readonly [number, Fr])[];
  /** Only with a base tree: positions live in the base and empty here, strictly ascending. */
  readonly removed?: readonly number[];
}

/** Structural facts about a node tree, for tests (F: dynamic-merkle `assert_canonical`). */
function canonicalProblem(node: Node | null, level: number, at: number): string | null {
  if (node === null) return null;
  if (level === 1) {
    const p = node as Pair;
    if (!(p instanceof Pair)) return `level 1 at ${at} is not a pair`;
    if (p.l === null && p.r === null) return `empty pair at ${at} not collapsed`;
    if (p.count !== (p.l === null ? 0 : 1) + (p.r === null ? 0 : 1)) return `bad count at pair ${at}`;
    return null;
  }
  const n = node as Inner;
  if (!(n instanceof Inner)) return `level ${level} at ${at} is not an inner node`;
  if (n.left === null && n.right === null) return `empty subtree at level ${level}, ${at} not collapsed`;
  if (n.count !== countOf(n.left) + countOf(n.right)) return `bad count at level ${level}, ${at}`;
  return (
    canonicalProblem(n.left, level - 1, at) ?? canonicalProblem(n.right, level - 1, at + 2 ** (level - 1))
  );
}

/** Test access: small heights (1..32) and structure checks. Not for production. */
export const __testing = {
  emptyOfHeight: (height: number): UtxoTree => emptyOfHeight(height),
  /** null if every node is non-empty with exact live counts (empty subtrees are null), else what is wrong. */
  canonicalProblem: (tree: UtxoTree): string | null => canonicalProblem(rootNodeOf(tree), tree.height, 0),
  /** Whether the subtree of `height` (0 = a single position) that contains `index` is represented as empty. */
  isEmptySubtree: (tree: UtxoTree, index: number, height: number): boolean => {
    let node = rootNodeOf(tree);
    for (let level = tree.height; level > height && level >= 2 && node !== null; level--) {
      const n = node as Inner;
      node = ((index >>> (level - 1)) & 1) === 1 ? n.right : n.left;
    }
    if (node === null) return true;
    if (height === 0) return ((index & 1) === 1 ? (node as Pair).r : (node as Pair).l) === null;
    return false;
  },
};
