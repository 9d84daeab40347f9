/**
 * X25519 from Ed25519 keys, as the reference derives Blend's encryption keys from signing keys
 * (F: kms/keys/src/keys/ed25519/{private,public,x25519}.rs; ed25519-dalek 2 and x25519-dalek 2):
 *
 * - secret: `SigningKey::to_scalar_bytes`, the first 32 bytes of SHA-512(seed), unclamped (X25519
 *   clamps when it multiplies);
 * - public: `VerifyingKey::to_montgomery`, u = (1 + y) / (1 - y) of the decompressed point, with y read
 *   mod p from the low 255 bits and 1/0 taken as 0 (so the identity maps to u = 0);
 * - shared key: X25519(secret, u), refused when it is all zero (`was_contributory`), which is what any
 *   small-order u gives.
 *
 * The multiplication is libsodium's `crypto_scalarmult` (it clamps the scalar and fails on an all-zero
 * result, the same refusal).
 */
import { createHash } from 'node:crypto';
import { LogosError } from '@logos-ts/shared/errors';
import { invert } from '@noble/curves/abstract/modular.js';
import sodium from 'sodium-native';
import { ED25519_PUBLIC_KEY_BYTES, ED25519_SECRET_KEY_BYTES, isEd25519Point } from '../ed25519.ts';
import { frToBytes } from '../field.ts';

export const X25519_KEY_BYTES = 32;

export class X25519KeyError extends LogosError {
  constructor(message: string) {
    super('X25519_INVALID_KEY', message);
  }
}

const P = 2n ** 255n - 19n;

/** The X25519 secret of an Ed25519 secret seed (unclamped scalar bytes). */
export function x25519SecretFromEd25519(secretSeed: Uint8Array): Uint8Array {
  if (secretSeed.length !== ED25519_SECRET_KEY_BYTES) {
    throw new X25519KeyError(`an Ed25519 secret key is ${ED25519_SECRET_KEY_BYTES} bytes`);
  }
  return new Uint8Array(createHash('sha512').update(secretSeed).digest().subarray(0, X25519_KEY_BYTES));
}

/** The X25519 public key (Montgomery u) of an Ed25519 public key; throws when it is not a curve point. */
export function x25519PublicFromEd25519(publicKey: Uint8Array): Uint8Array {
  if (publicKey.length !== ED25519_PUBLIC_KEY_BYTES || !isEd25519Point(publicKey)) {
    throw new X25519KeyError('not an Ed25519 public key');
  }
  let y = BigInt(publicKey[31]! & 0x7f);
  for (let i = 30; i >= 0; i--) y = (y << 8n) | BigInt(publicKey[i]!);
  y %= P;
  const den = (1n - y + P) % P;
  // inferred: y = 1 (the identity) gives u = 0, as curve25519-dalek's `to_montgomery` inverts 0 to 0
  // (a library behaviour, not F's code); the exchange with u = 0 is then refused as non-contributory.
  const u = den === 0n ? 0n : ((1n + y) * invert(den, P)) % P;
  return frToBytes(u); // 32 bytes little-endian (any integer below 2^256)
}

/** X25519(secret, public), or undefined when the result is all zero (a non-contributory exchange). */
export function x25519SharedKey(secret: Uint8Array, publicKey: Uint8Array): Uint8Array | undefined {
  if (secret.length !== X25519_KEY_BYTES || publicKey.length !== X25519_KEY_BYTES) {
    throw new X25519KeyError(`X25519 keys are ${X25519_KEY_BYTES} bytes`);
  }
  const out = Buffer.alloc(X25519_KEY_BYTES);
  // inferred: libsodium's refusals (a small-order u, an all-zero result) are exactly x25519-dalek's
  // `was_contributory` (an all-zero result): a small-order u always gives zero once the scalar is clamped.
  try {
    sodium.crypto_scalarmult(out, secret as Buffer, publicKey as Buffer);
  } catch {
    return undefined;
  }
  return out.every((b) => b === 0) ? undefined : new Uint8Array(out.buffer, out.byteOffset, X25519_KEY_BYTES);
}

/**
 * The shared key of an X25519 secret and an Ed25519 public key (F: `derive_shared_key(&pk.derive_x25519())`),
 * or undefined when the exchange is non-contributory. Throws when the public key is not a curve point.
 */
export function sharedKeyWithEd25519(
  x25519Secret: Uint8Array,
  ed25519Public: Uint8Array,
): Uint8Array | undefined {
  return x25519SharedKey(x25519Secret, x25519PublicFromEd25519(ed25519Public));
}
