/**
 * The core tree of Blend: a fixed-height (20) Poseidon2 Merkle tree over the zk public keys of the
 * epoch's core nodes, sorted by value, whose root is a public input of the proof of quota and whose
 * paths are a core node's witness (F: blend/crypto/src/merkle.rs, the rs-merkle-tree crate it wraps).
 *
 * Leaves are the keys themselves (not hashed); a node is compress(left, right); the leaves past the
 * last key are 0 and every missing subtree is the tree of zeros of its height.
 *
 * A path is kept as the node keeps its other trees: the siblings leaf level first and the leaf index,
 * whose bit i says whether the level-i node is a right child. The reference hands the circuit the
 * same siblings with the selectors root level first (`referencePathAndSelectors` converts).
 */
import { LogosError } from '@logos-ts/shared/errors';
import type { Fr } from '../field.ts';
import { compress, merkleRoot } from '../poseidon2/index.ts';

/** F: zk/proofs/poq/src/blend_inputs.rs CORE_MERKLE_TREE_HEIGHT. */
export const CORE_MERKLE_TREE_HEIGHT = 20;
/** The most keys the tree holds. */
export const CORE_TREE_MAX_KEYS = 1 << CORE_MERKLE_TREE_HEIGHT;

export class CoreTreeError extends LogosError {
  constructor(
    readonly reason: 'empty' | 'too_many' | 'duplicate',
    message: string,
  ) {
    super('BLEND_CORE_TREE_ERROR', message);
  }
}

/** A path in the core tree: siblings leaf level first, and the leaf index. */
export interface CoreTreePath {
  readonly siblings: readonly Fr[];
  readonly index: number;
}

/** zeros[h] = the root of a subtree of height h whose leaves are all 0. */
const ZEROS: readonly Fr[] = (() => {
  const z: Fr[] = [0n];
  for (let h = 1; h <= CORE_MERKLE_TREE_HEIGHT; h++) z.push(compress(z[h - 1]!, z[h - 1]!));
  return z;
})();

export class CoreTree {
  /** levels[0] = the sorted keys; levels[h] = the non-empty nodes at height h (a prefix). */
  private readonly levels: readonly (readonly Fr[])[];
  private readonly indexOf: ReadonlyMap<Fr, number>;

  /** The tree over `keys` (any order; they are sorted by value). */
  constructor(keys: readonly Fr[]) {
    if (keys.length === 0) throw new CoreTreeError('empty', 'the core tree needs at least one key');
    if (keys.length > CORE_TREE_MAX_KEYS)
      throw new CoreTreeError('too_many', `the core tree holds at most ${CORE_TREE_MAX_KEYS} keys`);
    const sorted = [...keys].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const indexOf = new Map<Fr, number>();
    for (let i = 0; i < sorted.length; i++) indexOf.set(sorted[i]!, i);
    if (indexOf.size !== sorted.length)
      throw new CoreTreeError('duplicate', 'the core tree keys must be distinct');
    const levels: Fr[][] = [sorted];
    for (let h = 0; h < CORE_MERKLE_TREE_HEIGHT; h++) {
      const below = levels[h]!;
      const up: Fr[] = [];
      for (let i = 0; i < below.length; i += 2) up.push(compress(below[i]!, below[i + 1] ?? ZEROS[h]!));
      levels.push(up);
    }
    this.levels = levels;
    this.indexOf = indexOf;
  }

  get size(): number {
    return this.levels[0]!.length;
  }

  get root(): Fr {
    return this.levels[CORE_MERKLE_TREE_HEIGHT]![0]!;
  }

  /** The position of `key` among the sorted keys, or undefined when it is not a leaf. */
  indexOfKey(key: Fr): number | undefined {
    return this.indexOf.get(key);
  }

  /** The path of `key`, or undefined when it is not a leaf. */
  pathOf(key: Fr): CoreTreePath | undefined {
    const index = this.indexOf.get(key);
    if (index === undefined) return undefined;
    const siblings: Fr[] = [];
    let i = index;
    for (let h = 0; h < CORE_MERKLE_TREE_HEIGHT; h++) {
      siblings.push(this.levels[h]![i ^ 1] ?? ZEROS[h]!);
      i >>>= 1;
    }
    return { siblings, index };
  }
}

/** The root a leaf reaches through a core tree path. */
export function coreTreeRootOf(leaf: Fr, path: CoreTreePath): Fr {
  return merkleRoot(leaf, path.siblings, BigInt(path.index));
}

/**
 * The path as the reference's circuit input pairs: (sibling, selector) where the siblings are leaf
 * level first and the selectors root level first (selector true: that level's node is a right child)
 * (F: blend/crypto/src/merkle.rs get_proof_for_key, compute_selectors).
 */
export function referencePathAndSelectors(path: CoreTreePath): [Fr, boolean][] {
  const n = path.siblings.length;
  return path.siblings.map((s, i) => [s, ((path.index >>> (n - 1 - i)) & 1) === 1]);
}

/** The inverse of `referencePathAndSelectors`. */
export function pathFromReference(pairs: readonly (readonly [Fr, boolean])[]): CoreTreePath {
  const n = pairs.length;
  let index = 0;
  for (let i = 0; i < n; i++) if (pairs[i]![1]) index |= 1 << (n - 1 - i);
  return { siblings: pairs.map(([s]) => s), index: index >>> 0 };
}
