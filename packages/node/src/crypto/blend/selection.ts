/**
 * Blend primitives the ledger needs to judge activity proofs: the proof of selection's designated
 * index and key nullifier (F: blend/proofs/src/selection/mod.rs), and the sized Blake2b and Hamming
 * distance of blending-token evaluation (F: blend/message/src/reward/token.rs).
 */
import { blake2b } from '@noble/hashes/blake2.js';
import { type Fr, frFromAscii, frToBytes, leBytesToBigint } from '../field.ts';
import { compress } from '../poseidon2/index.ts';
import { pseudoRandomBytes } from './blake-rng.ts';

/** Blake2b with an `outLen`-byte digest (at most 64; 0 gives no bytes). */
export function blake2bSized(input: Uint8Array, outLen: number): Uint8Array {
  const n = Math.min(outLen, 64);
  if (n === 0) return new Uint8Array(0);
  return blake2b(input, { dkLen: n });
}

/** Differing bits of two byte strings over their common length. */
export function hammingDistance(a: Uint8Array, b: Uint8Array): bigint {
  let d = 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a[i]! ^ b[i]!;
    while (x !== 0) {
      d += x & 1;
      x >>>= 1;
    }
  }
  return BigInt(d);
}

const BLEND_NODE = new TextEncoder().encode('BlendNode');
/** F: blend/proofs/src/selection/mod.rs, "KEY_NULLIFIER_V1" as a little-endian field element. */
export const KEY_NULLIFIER_V1 = frFromAscii('KEY_NULLIFIER_V1');

/**
 * The membership index a proof of selection designates: the first 8 bytes of the BlakeRng stream
 * seeded with `Blake2b-512("BlendNode" ‖ selection_randomness)`, as a LE u64, modulo the membership
 * size (F: blend/crypto/src/lib.rs `pseudo_random_sized_bytes`, utils/src/blake_rng.rs).
 */
export function selectionIndex(selectionRandomness: Fr, membershipSize: bigint): bigint {
  if (membershipSize === 0n) throw new RangeError('empty membership');
  const bytes = pseudoRandomBytes(BLEND_NODE, frToBytes(selectionRandomness), 8);
  return leBytesToBigint(bytes) % membershipSize;
}

/** The key nullifier a secret selection randomness commits to: `compress(KEY_NULLIFIER_V1, r)`. */
export function keyNullifierOf(selectionRandomness: Fr): Fr {
  return compress(KEY_NULLIFIER_V1, selectionRandomness);
}
