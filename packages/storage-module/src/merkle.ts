/**
 * The dataset Merkle tree of a manifest's `treeCid` (logos-storage-nim `codex/merkletree/merkletree.nim`
 * `merkleTreeWorker` and `codex/merkletree/codex/codex.nim` `compress`, operator.md §3.1): the leaves
 * are the sha2-256 digests of the blocks; a parent is `sha256(left ‖ right ‖ key)` where the key byte
 * says 1 on the bottom layer, 2 for an odd last node paired with 32 zero bytes, 3 for both, 0 else.
 * The bottom layer is always compressed (a one-block dataset's root is `sha256(leaf ‖ 0³² ‖ 3)`); the
 * tree stops at the first upper layer of one node. The root's CID has the `codex-root` codec.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { StorageModuleError } from './errors.ts';

const KEY_NONE = 0;
const KEY_BOTTOM = 1;
const KEY_ODD = 2;
const KEY_ODD_BOTTOM = 3;
const ZERO = new Uint8Array(32);

function compress(x: Uint8Array, y: Uint8Array, key: number): Uint8Array {
  const input = new Uint8Array(65);
  input.set(x, 0);
  input.set(y, 32);
  input[64] = key;
  return sha256(input);
}

/** The root digest of the tree over `leaves` (32-byte digests, at least one). */
export function treeRoot(leaves: readonly Uint8Array[]): Uint8Array {
  if (leaves.length === 0) throw new StorageModuleError('STORAGE_MODULE_EMPTY_DATASET', 'Empty leaves');
  let layer = leaves;
  let bottom = true;
  for (;;) {
    if (!bottom && layer.length === 1) return layer[0]!;
    const half = Math.floor(layer.length / 2);
    const next: Uint8Array[] = [];
    for (let i = 0; i < half; i++)
      next.push(compress(layer[2 * i]!, layer[2 * i + 1]!, bottom ? KEY_BOTTOM : KEY_NONE));
    if (layer.length % 2 === 1)
      next.push(compress(layer[2 * half]!, ZERO, bottom ? KEY_ODD_BOTTOM : KEY_ODD));
    layer = next;
    bottom = false;
  }
}
