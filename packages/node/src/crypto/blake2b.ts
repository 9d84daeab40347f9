/**
 * Blake2b with a 32-byte digest (the digest length is part of Blake2b's parameter block, so this is
 * not truncated Blake2b-512). The reference's `Hasher`. Backed by libsodium through sodium-native.
 */
import sodium from 'sodium-native';

export const BLAKE2B_256_BYTES = 32;

/** Blake2b-256 of the concatenation of `parts` (no copy of the parts is made). */
export function blake2b256(...parts: readonly Uint8Array[]): Uint8Array {
  // sodium-native takes any Uint8Array as input (its typings say Buffer). Writing into a reused
  // Buffer and copying out is faster than handing it a fresh Uint8Array.
  if (parts.length === 1) sodium.crypto_generichash(scratch, parts[0] as Buffer);
  else sodium.crypto_generichash_batch(scratch, parts as Buffer[]);
  return new Uint8Array(scratch);
}

const scratch = Buffer.alloc(BLAKE2B_256_BYTES);

/** ASCII bytes of a domain-separation tag such as "MANTLE_TXHASH_V1". */
export function tag(ascii: string): Uint8Array {
  return new TextEncoder().encode(ascii);
}
