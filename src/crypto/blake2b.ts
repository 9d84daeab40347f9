/**
 * Blake2b with a 32-byte digest (the digest length is part of Blake2b's parameter block, so this is
 * not truncated Blake2b-512). The reference's `Hasher`. Backed by libsodium through sodium-native.
 */
import sodium from 'sodium-native';

export const BLAKE2B_256_BYTES = 32;

/** Blake2b-256 of the concatenation of `parts` (no copy of the parts is made). */
export function blake2b256(...parts: readonly Uint8Array[]): Uint8Array {
  const out = Buffer.allocUnsafe(BLAKE2B_256_BYTES);
  if (parts.length === 1) sodium.crypto_generichash(out, toBuffer(parts[0]!));
  else sodium.crypto_generichash_batch(out, parts.map(toBuffer));
  return new Uint8Array(out.buffer, out.byteOffset, BLAKE2B_256_BYTES);
}

function toBuffer(b: Uint8Array): Buffer {
  return Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength);
}

/** ASCII bytes of a domain-separation tag such as "MANTLE_TXHASH_V1". */
export function tag(ascii: string): Uint8Array {
  return new TextEncoder().encode(ascii);
}
