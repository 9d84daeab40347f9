/**
 * Ed25519 on raw 32-byte keys and 64-byte signatures, with the semantics of ed25519-dalek 2.2
 * (the reference's `VerifyingKey::from_bytes` and `Verifier::verify`, not `verify_strict`;
 * F: kms/keys/src/keys/ed25519/public.rs, Cargo.lock):
 *
 * - a public key is any 32 bytes that decompress to a curve point: small-order points and
 *   non-canonical encodings (y >= p, x = 0 with the sign bit set) are keys like any other;
 * - verification rejects S >= L, hashes R, the key bytes as given and the message, computes
 *   R' = [S]B - [k]A (cofactorless) and compares its canonical encoding with R byte for byte,
 *   so a non-canonical R never verifies.
 *
 * Signing and verification go through node:crypto (OpenSSL), about 14x faster than pure JS.
 * OpenSSL's Ed25519 verify follows the same rules (checked against a dalek-rule model on small-order,
 * mixed-order and non-canonical keys and signatures in test/crypto/ed25519.test.ts). Point
 * decompression, which OpenSSL does not expose, uses @noble/curves in its ZIP-215 decoding mode,
 * the one that decodes as dalek does.
 */
import { createPrivateKey, createPublicKey, type KeyObject, randomBytes, sign, verify } from 'node:crypto';
import { ed25519 } from '@noble/curves/ed25519.js';
import { LogosError } from '../errors/base.ts';

export const ED25519_PUBLIC_KEY_BYTES = 32;
export const ED25519_SECRET_KEY_BYTES = 32;
export const ED25519_SIGNATURE_BYTES = 64;

export class Ed25519KeyError extends LogosError {
  constructor(message: string) {
    super('INVALID_ED25519_KEY', message);
  }
}

const PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

function publicKeyObject(publicKey: Uint8Array): KeyObject {
  return createPublicKey({
    key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(publicKey).toString('base64url') },
    format: 'jwk',
  });
}

function privateKeyObject(secretKey: Uint8Array): KeyObject {
  if (secretKey.length !== ED25519_SECRET_KEY_BYTES) {
    throw new Ed25519KeyError(`secret key must be ${ED25519_SECRET_KEY_BYTES} bytes`);
  }
  return createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, secretKey]), format: 'der', type: 'pkcs8' });
}

/** The public key of a 32-byte secret seed. */
export function ed25519PublicKey(secretKey: Uint8Array): Uint8Array {
  const jwk = createPublicKey(privateKeyObject(secretKey)).export({ format: 'jwk' });
  return new Uint8Array(Buffer.from(jwk.x!, 'base64url'));
}

export function ed25519GenerateSecretKey(): Uint8Array {
  return new Uint8Array(randomBytes(ED25519_SECRET_KEY_BYTES));
}

export function ed25519Sign(secretKey: Uint8Array, message: Uint8Array): Uint8Array {
  return new Uint8Array(sign(null, message, privateKeyObject(secretKey)));
}

/**
 * A signing key kept imported, for signing many messages (block production, the wallet).
 * The secret never leaves the KeyObject.
 */
export class Ed25519Signer {
  readonly publicKey: Uint8Array;
  private readonly key: KeyObject;

  constructor(secretKey: Uint8Array) {
    this.key = privateKeyObject(secretKey);
    const jwk = createPublicKey(this.key).export({ format: 'jwk' });
    this.publicKey = new Uint8Array(Buffer.from(jwk.x!, 'base64url'));
  }

  sign(message: Uint8Array): Uint8Array {
    return new Uint8Array(sign(null, message, this.key));
  }

  toJSON(): string {
    return '[Ed25519Signer]';
  }
}

/** Verifies a signature. Malformed keys or signatures verify as false; it never throws on bad input. */
export function ed25519Verify(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  if (publicKey.length !== ED25519_PUBLIC_KEY_BYTES || signature.length !== ED25519_SIGNATURE_BYTES)
    return false;
  try {
    return verify(null, message, publicKeyObject(publicKey), signature);
  } catch {
    return false;
  }
}

/**
 * True if the 32 bytes decompress to a curve point (`VerifyingKey::from_bytes`): y is read mod p
 * from the low 255 bits, and x = 0 takes either sign bit.
 */
export function isEd25519Point(publicKey: Uint8Array): boolean {
  if (publicKey.length !== ED25519_PUBLIC_KEY_BYTES) return false;
  try {
    ed25519.Point.fromBytes(publicKey, true);
    return true;
  } catch {
    return false;
  }
}
