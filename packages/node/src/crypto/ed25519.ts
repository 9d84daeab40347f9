/**
 * Ed25519 on raw 32-byte keys and 64-byte signatures, with the semantics of ed25519-dalek 2.2
 * (the reference's `VerifyingKey::from_bytes`, `SigningKey` and `Verifier::verify`, not
 * `verify_strict`; F: kms/keys/src/keys/ed25519/public.rs, private.rs, Cargo.lock):
 *
 * - a public key is any 32 bytes that decompress to a curve point: small-order points and
 *   non-canonical encodings (y >= p, x = 0 with the sign bit set) are keys like any other
 *   (`isEd25519Point`);
 * - signing is RFC 8032 Ed25519 (deterministic, so every implementation gives the same bytes),
 *   done by node:crypto;
 * - verification (dalek's rules, cofactorless, R compared as bytes, S < L) is in ed25519-verify.ts,
 *   which keeps them identical on every Node version.
 */
import { createPrivateKey, createPublicKey, type KeyObject, randomBytes, sign } from 'node:crypto';
import { LogosError } from '@logos-ts/shared/errors';

export { ed25519Verify } from './ed25519-verify.ts';

export const ED25519_PUBLIC_KEY_BYTES = 32;
export const ED25519_SECRET_KEY_BYTES = 32;
export const ED25519_SIGNATURE_BYTES = 64;

export class Ed25519KeyError extends LogosError {
  constructor(message: string) {
    super('ED25519_INVALID_KEY', message);
  }
}

const PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

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

const P = 2n ** 255n - 19n;
/** The Edwards curve constant d = -121665/121666 mod p. */
const D = 37095705934669439343138083508754565189542113879843219016388785533085940283555n;

/** The Jacobi symbol (a/n) for odd n > 0: 1, -1 or 0. */
function jacobi(a: bigint, n: bigint): number {
  let x = a % n;
  let m = n;
  let t = 1;
  while (x !== 0n) {
    while ((x & 1n) === 0n) {
      x >>= 1n;
      const r = m & 7n;
      if (r === 3n || r === 5n) t = -t;
    }
    const swap = x;
    x = m;
    m = swap;
    if ((x & 3n) === 3n && (m & 3n) === 3n) t = -t;
    x %= m;
  }
  return m === 1n ? t : 0;
}

/**
 * True if the 32 bytes decompress to a curve point (`VerifyingKey::from_bytes`): y is read mod p
 * from the low 255 bits, and x = 0 takes either sign bit, so the bytes are a point exactly when
 * x^2 = (y^2 - 1) / (d y^2 + 1) has a root, i.e. (y^2 - 1)(d y^2 + 1) is a square or zero mod p
 * (d y^2 + 1 is never zero). A Jacobi symbol decides it about 3x faster than decompressing.
 */
export function isEd25519Point(publicKey: Uint8Array): boolean {
  if (publicKey.length !== ED25519_PUBLIC_KEY_BYTES) return false;
  let y = BigInt(publicKey[31]! & 0x7f);
  for (let i = 30; i >= 0; i--) y = (y << 8n) | BigInt(publicKey[i]!);
  const y2 = (y * y) % P;
  const u = (y2 + P - 1n) % P;
  const v = (D * y2 + 1n) % P;
  return jacobi((u * v) % P, P) !== -1;
}
