/**
 * Poseidon2 over BN254 with t = 3 (jf-poseidon2 `Poseidon2ParamsBn3`, reference/crypto.md §4): the
 * node's `ZkHasher`. Backed by WebAssembly generated at import (wasm.ts), all synchronous.
 *
 * Every input must be a canonical field element (bigint, 0 <= x < p); anything else throws FieldError.
 *
 * - `permute(state)`: the permutation.
 * - `digest(inputs)`: the sponge hash ("hash" in the reference): absorb each input into lane 0 and
 *   permute, then absorb the padding 1 and permute; the result is lane 0.
 * - `compress(left, right)`: perm([left, right, 0])[0]; Merkle nodes and `pk = compress(KDF, sk)`.
 * - `merkleRoot(leaf, siblings, index)`: the root of a Merkle path, bit i of `index` telling whether
 *   the level-i node is a left (0) or right (1) child.
 *
 * The plain bigint implementation (the test oracle) is in reference.ts.
 */
export { compress, digest, merkleRoot, permute } from './wasm.ts';
