/**
 * What the ledger's two Poseidon2 Merkle trees (utxo-tree.ts, voucher-tree.ts) share: the height, the
 * "zero hashes" of empty subtrees, and the error class.
 *
 * A node is compress(left, right) (Poseidon2 t = 3, `perm([left, right, 0])[0]`). An empty leaf is 0 and
 * an empty subtree of height h hashes to z_h: z_0 = 0, z_{h+1} = compress(z_h, z_h). Both trees represent
 * empty subtrees implicitly by these constants.
 */

import { LogosError } from '@logos-ts/shared/errors';
import type { Fr } from '../../crypto/field.ts';
import { compress } from '../../crypto/poseidon2/index.ts';

/** Height of the UTXO tree and of the voucher tree: 2^32 leaves, 32-sibling paths. */
export const TREE_HEIGHT = 32;

function zeroHashes(height: number): readonly Fr[] {
  const z: Fr[] = [0n];
  for (let h = 0; h < height; h++) z.push(compress(z[h]!, z[h]!));
  return Object.freeze(z);
}

/** ZERO_HASHES[h] = z_h for 0 <= h <= 32 (33 entries). */
export const ZERO_HASHES: readonly Fr[] = zeroHashes(TREE_HEIGHT);

/** Misuse of a ledger Merkle tree: bad or empty position, full tree, reserved note id. */
export class MerkleTreeError extends LogosError {
  constructor(message: string) {
    super('MERKLE_TREE', message);
  }
}

/** Checks a tree height (internal: production trees use TREE_HEIGHT, tests smaller ones). */
export function checkHeight(height: number): void {
  if (!Number.isInteger(height) || height < 1 || height > TREE_HEIGHT) {
    throw new RangeError(`Merkle tree height must be an integer in [1, ${TREE_HEIGHT}], got ${height}`);
  }
}
