/**
 * The leader-reward voucher tree: an append-only Poseidon2 Merkle tree of height 32 to which each
 * applied block header's `voucher_cm` is appended, at positions 0, 1, 2, ... in order. An epoch snapshot
 * records `{ root, count }`.
 *
 * Same hashing as the UTXO tree (zero-hashes.ts): node = compress(left, right), empty leaf 0, empty
 * subtree of height h = z_h, so the root of k appended leaves equals the root of a UtxoTree holding
 * those k leaves at positions 0..k-1.
 *
 * Representation: the classic incremental-Merkle-tree frontier. For every set bit i of `count`,
 * `frontier[i]` is the root of the complete subtree of 2^i leaves that precedes the newer leaves
 * (frontier[32] is the root of a full tree). `append` merges equal-size subtrees like a binary counter
 * increment: one compression per trailing 1 bit of `count` (amortized 1, at most 32). `root()` folds the
 * frontier with zero hashes (at most 32 compressions) and caches the result in the value.
 *
 * `voucherPath(leaves, index)` rebuilds the path of one leaf from all the leaves (a wallet proving its
 * voucher); it costs about `leaves.length` compressions.
 */
import { FieldError, FR_MODULUS, type Fr } from '../../crypto/field.ts';
import { compress } from '../../crypto/poseidon2/index.ts';
import { checkHeight, MerkleTreeError, TREE_HEIGHT, ZERO_HASHES } from './zero-hashes.ts';

function checkLeaf(leaf: Fr): void {
  if (typeof leaf !== 'bigint') throw new FieldError(`voucher must be a bigint, got ${typeof leaf}`);
  if (leaf < 0n || leaf >= FR_MODULUS) {
    throw new FieldError('voucher is not a canonical field element (must be 0 <= x < p)');
  }
}

/** Set by VoucherTree's static block (the constructor is private): an empty tree of any height. */
let emptyOfHeight: (height: number) => VoucherTree;

export class VoucherTree {
  /** Number of appended leaves. */
  readonly count: number;
  /** Tree height: 32 in production (smaller heights exist only for tests, see `__testing`). */
  readonly height: number;
  /** Length height + 1; entry i is meaningful only when bit i of `count` is set. */
  readonly #frontier: readonly Fr[];
  #root: Fr | null = null;

  private constructor(height: number, count: number, frontier: readonly Fr[]) {
    this.height = height;
    this.count = count;
    this.#frontier = frontier;
  }

  static #empty: VoucherTree | undefined;

  /** The empty tree of height 32 (root z_32). */
  static empty(): VoucherTree {
    VoucherTree.#empty ??= new VoucherTree(TREE_HEIGHT, 0, new Array<Fr>(TREE_HEIGHT + 1).fill(0n));
    return VoucherTree.#empty;
  }

  static {
    emptyOfHeight = (height) => {
      checkHeight(height);
      if (height === TREE_HEIGHT) return VoucherTree.empty();
      return new VoucherTree(height, 0, new Array<Fr>(height + 1).fill(0n));
    };
  }

  /** A new tree with `leaf` at position `count`; `this` is unchanged. */
  append(leaf: Fr): VoucherTree {
    checkLeaf(leaf);
    if (this.count >= 2 ** this.height) {
      throw new MerkleTreeError(`voucher tree is full (2^${this.height} leaves)`);
    }
    const frontier = this.#frontier.slice();
    let carry = leaf;
    let c = this.count;
    let i = 0;
    while (c % 2 === 1) {
      carry = compress(frontier[i]!, carry);
      frontier[i] = 0n;
      c = (c - 1) / 2;
      i++;
    }
    frontier[i] = carry;
    return new VoucherTree(this.height, this.count + 1, frontier);
  }

  /** The Merkle root (computed once per value, then cached). */
  root(): Fr {
    if (this.#root !== null) return this.#root;
    const h = this.height;
    let root: Fr;
    if (this.count === 2 ** h) {
      root = this.#frontier[h]!;
    } else {
      // `cur` is the hash of the level-i subtree holding the newest leaves; null while it is empty (z_i).
      let cur: Fr | null = null;
      let c = this.count;
      for (let i = 0; i < h; i++) {
        if (c % 2 === 1) cur = compress(this.#frontier[i]!, cur ?? ZERO_HASHES[i]!);
        else if (cur !== null) cur = compress(cur, ZERO_HASHES[i]!);
        c = Math.floor(c / 2);
      }
      root = cur ?? ZERO_HASHES[h]!;
    }
    this.#root = root;
    return root;
  }

  // snapshot support
  /** The internal state: the leaf count and the frontier (length height + 1, 0 where the bit of count is unset). */
  snapshot(): VoucherTreeSnapshot {
    return { height: this.height, count: this.count, frontier: this.#frontier.slice() };
  }

  // snapshot support
  /** Rebuilds the tree of a `snapshot()`, checking that the frontier is consistent with the count. */
  static restore(s: VoucherTreeSnapshot): VoucherTree {
    const height = s.height ?? TREE_HEIGHT;
    checkHeight(height);
    const { count, frontier } = s;
    if (!Number.isInteger(count) || count < 0 || count > 2 ** height) {
      throw new MerkleTreeError(`voucher count ${String(count)} is out of range [0, 2^${height}]`);
    }
    if (frontier.length !== height + 1) {
      throw new MerkleTreeError(`voucher frontier has ${frontier.length} entries, expected ${height + 1}`);
    }
    let c = count;
    for (let i = 0; i <= height; i++) {
      const f = frontier[i]!;
      checkLeaf(f);
      if (c % 2 === 0 && f !== 0n) {
        throw new MerkleTreeError(`voucher frontier entry ${i} is set but bit ${i} of the count is not`);
      }
      c = Math.floor(c / 2);
    }
    if (count === 0 && height === TREE_HEIGHT) return VoucherTree.empty();
    return new VoucherTree(height, count, frontier.slice());
  }
}

function pathOfHeight(leaves: readonly Fr[], index: number, height: number): Fr[] {
  if (leaves.length > 2 ** height) {
    throw new MerkleTreeError(`more than 2^${height} vouchers (${leaves.length})`);
  }
  if (!Number.isInteger(index) || index < 0 || index >= leaves.length) {
    throw new MerkleTreeError(`voucher index ${String(index)} is out of range [0, ${leaves.length})`);
  }
  for (const leaf of leaves) checkLeaf(leaf);
  const path: Fr[] = [];
  let layer: readonly Fr[] = leaves;
  let idx = index;
  for (let level = 0; level < height; level++) {
    const sibling = idx % 2 === 0 ? idx + 1 : idx - 1;
    path.push(sibling < layer.length ? layer[sibling]! : ZERO_HASHES[level]!);
    const next: Fr[] = [];
    for (let j = 0; j < layer.length; j += 2) {
      next.push(compress(layer[j]!, j + 1 < layer.length ? layer[j + 1]! : ZERO_HASHES[level]!));
    }
    layer = next;
    idx = Math.floor(idx / 2);
  }
  return path;
}

/**
 * The 32 siblings (leaf level first) of voucher `index` in the tree of all `leaves`, for
 * `merkleRoot(leaves[index], path, BigInt(index))`, which then equals the VoucherTree root.
 */
export function voucherPath(leaves: readonly Fr[], index: number): Fr[] {
  return pathOfHeight(leaves, index, TREE_HEIGHT);
}

// snapshot support
/** See `VoucherTree.snapshot()`. `height` defaults to 32. */
export interface VoucherTreeSnapshot {
  readonly height?: number;
  readonly count: number;
  readonly frontier: readonly Fr[];
}

/** Test access: trees and paths of a small height (1..32). Not for production. */
export const __testing = {
  emptyOfHeight: (height: number): VoucherTree => emptyOfHeight(height),
  voucherPathOfHeight: (leaves: readonly Fr[], index: number, height: number): Fr[] => {
    checkHeight(height);
    return pathOfHeight(leaves, index, height);
  },
};
