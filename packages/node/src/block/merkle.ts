/**
 * The transaction Merkle tree of a block body: leaves are tx hashes, padded with zero leaves to the
 * next power of two (at least one leaf); nodes are Blake2b256(left ‖ right) with no domain tag.
 * No transactions gives 32 zero bytes.
 */
import { blake2b256 } from '../crypto/blake2b.ts';

const ZERO = new Uint8Array(32);

export function txMerkleRoot(leaves: readonly Uint8Array[]): Uint8Array {
  if (leaves.length === 0) return ZERO.slice();
  let size = 1;
  while (size < leaves.length) size *= 2;
  let level: Uint8Array[] = [];
  for (let i = 0; i < size; i++) level.push(leaves[i] ?? ZERO);
  while (level.length > 1) {
    const next: Uint8Array[] = [];
    for (let i = 0; i < level.length; i += 2) next.push(blake2b256(level[i]!, level[i + 1]!));
    level = next;
  }
  return level[0]!.slice();
}
