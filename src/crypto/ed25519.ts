/**
 * Ed25519 on raw 32-byte keys and 64-byte signatures.
 *
 * Signing and verification go through node:crypto (OpenSSL), about 14x faster than pure JS.
 * Point checks (decompression, small order), which OpenSSL does not expose, use @noble/curves.
 *
 * Verification semantics follow ed25519-dalek's `verify` as closely as OpenSSL allows: cofactorless,
 * canonical S required, R compared by encoding. Small-order public keys verify like any other;
 * types that must refuse them call `assertValidPublicKey`.
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

/** True if the 32 bytes decode to a curve point (the `UnverifiedEd25519PublicKey` check). */
export function isEd25519Point(publicKey: Uint8Array): boolean {
  if (publicKey.length !== ED25519_PUBLIC_KEY_BYTES) return false;
  try {
    ed25519.Point.fromBytes(publicKey);
    return true;
  } catch {
    return false;
  }
}

/**
 * The `Ed25519PublicKey` check: the bytes decode to a point that is not of small order
 * (order dividing 8, which includes the identity and the all-zero encoding's point).
 */
export function isValidEd25519PublicKey(publicKey: Uint8Array): boolean {
  if (publicKey.length !== ED25519_PUBLIC_KEY_BYTES) return false;
  try {
    return !ed25519.Point.fromBytes(publicKey).isSmallOrder();
  } catch {
    return false;
  }
}

export function assertValidPublicKey(publicKey: Uint8Array): void {
  if (!isValidEd25519PublicKey(publicKey)) {
    throw new Ed25519KeyError('not a valid Ed25519 public key (must decode to a point not of small order)');
  }
}
