/**
 * Ed25519 signature verification with the rules of ed25519-dalek 2.2 `VerifyingKey::verify`
 * (F: kms/keys/src/keys/ed25519/public.rs `PublicKey::verify`; ed25519-dalek 2.2.0
 * src/verifying.rs `raw_verify`, `RCompute`; curve25519-dalek 4.1 `CompressedEdwardsY::decompress`),
 * the same on every Node version:
 *
 * - S must be canonical (S < L), else the signature is refused before any curve arithmetic;
 * - A is decompressed leniently: y is read mod p from the low 255 bits and x = 0 takes either
 *   sign bit, so small-order points and non-canonical encodings are keys like any other;
 * - k = SHA-512(R ‖ A as given ‖ M) mod L, R' = [S]B - [k]A (cofactorless), and the signature
 *   holds exactly when the canonical encoding of R' equals the 32 bytes of R. A non-canonical R
 *   therefore never verifies, a small-order R does when the equation holds.
 *
 * Two implementations, chosen per signature:
 *
 * - node:crypto (OpenSSL, about 10x faster) for ordinary inputs: A and R canonical and neither of
 *   small order. On these every OpenSSL from 3.0 to 3.5 computes the same cofactorless equation
 *   (crypto/ec/curve25519.c `ossl_ed25519_verify`). Outside them Node versions differ: Node 24
 *   refuses a small-order A or R before OpenSSL sees it (nodejs/node "reject small-order EdDSA
 *   points during verify"), which dalek accepts. Before its first use, node:crypto must agree on
 *   pinned vectors that tell the cofactorless rule from the cofactored one ({@link NODE_CRYPTO_PROBES});
 *   if it does not, every signature takes the portable path.
 * - {@link ed25519VerifyPortable}: the rules above written out on @noble/curves' point arithmetic,
 *   for small-order and non-canonical A, small-order R, and as the fallback.
 *
 * There is no batch verification: every signature is checked on its own.
 */
import { createHash, createPublicKey, verify } from 'node:crypto';
import { ed25519 } from '@noble/curves/ed25519.js';
import { leBytesToBigint } from './field.ts';

/** Bytes of a hex constant (codec/ is a layer above crypto/). */
const hexToBytes = (h: string): Uint8Array => new Uint8Array(Buffer.from(h, 'hex'));

const PUBLIC_KEY_BYTES = 32;
const SIGNATURE_BYTES = 64;

/** The prime order of the base point, L = 2^252 + 27742317777372353535851937790883648493. */
const L = 2n ** 252n + 27742317777372353535851937790883648493n;

/** L in little-endian bytes, for the S < L check without a bigint. */
const L_BYTES = hexToBytes('edd3f55c1a631258d69cf7a2def9de1400000000000000000000000000000010');

/**
 * Every 32-byte encoding of a point of small order (order 1, 2, 4 or 8), as dalek decodes them:
 * the 8 torsion points' canonical encodings, the identity and the order-2 point with the sign bit
 * set (x = 0), and y = p and y = p + 1 (the order-4 points and the identity written as y + p).
 */
export const SMALL_ORDER_ENCODINGS: readonly Uint8Array[] = [
  '0100000000000000000000000000000000000000000000000000000000000000', // identity
  '0100000000000000000000000000000000000000000000000000000000000080', // identity, sign bit set
  'eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f', // identity as y = p + 1
  'eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff', // the same, sign bit set
  'ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f', // order 2, y = -1
  'ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff', // order 2, sign bit set
  '0000000000000000000000000000000000000000000000000000000000000000', // order 4, y = 0
  '0000000000000000000000000000000000000000000000000000000000000080', // order 4, y = 0, other x
  'edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f', // order 4 as y = p
  'edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff', // the same, other x
  'c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a', // order 8
  'c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa', // order 8
  '26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05', // order 8
  '26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85', // order 8
].map((h) => hexToBytes(h));

/** True if the 32 bytes at `offset` are one of {@link SMALL_ORDER_ENCODINGS}. */
export function isSmallOrderEncoding(bytes: Uint8Array, offset = 0): boolean {
  outer: for (const e of SMALL_ORDER_ENCODINGS) {
    for (let i = 0; i < 32; i++) if (bytes[offset + i] !== e[i]) continue outer;
    return true;
  }
  return false;
}

/** True if the y of the encoding at `offset` (its low 255 bits) is below p = 2^255 - 19. */
export function isCanonicalY(bytes: Uint8Array, offset = 0): boolean {
  if ((bytes[offset + 31]! & 0x7f) !== 0x7f) return true;
  for (let i = 30; i >= 1; i--) if (bytes[offset + i] !== 0xff) return true;
  return bytes[offset]! < 0xed;
}

/** True if the scalar S (the signature's last 32 bytes) is below L. */
export function isCanonicalS(signature: Uint8Array): boolean {
  for (let i = 31; i >= 0; i--) {
    const s = signature[32 + i]!;
    if (s !== L_BYTES[i]) return s < L_BYTES[i]!;
  }
  return false;
}

/**
 * dalek's `verify`, written out on @noble/curves' Edwards arithmetic: independent of OpenSSL and
 * of the Node version. Lengths are the caller's to check.
 */
export function ed25519VerifyPortable(
  publicKey: Uint8Array,
  message: Uint8Array,
  signature: Uint8Array,
): boolean {
  if (!isCanonicalS(signature)) return false;
  let a: InstanceType<typeof ed25519.Point>;
  try {
    // zip215 = true is the lenient decoding: y may be >= p, x = 0 may carry the sign bit.
    a = ed25519.Point.fromBytes(publicKey, true);
  } catch {
    return false;
  }
  const r = signature.subarray(0, 32);
  const k = leBytesToBigint(createHash('sha512').update(r).update(publicKey).update(message).digest()) % L;
  const s = leBytesToBigint(signature.subarray(32, 64));
  const expected = ed25519.Point.BASE.multiplyUnsafe(s).subtract(a.multiplyUnsafe(k)).toBytes();
  for (let i = 0; i < 32; i++) if (expected[i] !== r[i]) return false;
  return true;
}

function nodeCryptoVerify(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  try {
    const key = createPublicKey({
      key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(publicKey).toString('base64url') },
      format: 'jwk',
    });
    return verify(null, message, key, signature);
  } catch {
    return false;
  }
}

const MIXED_KEY = '10eb7c3acfb2bed3e0d6ab89bf5a3d6afddd1176ce4812e38d9fd485058fdb1f';

/**
 * Ordinary inputs on which node:crypto must give dalek's answer before it is used: RFC 8032 test 1
 * and that signature tampered, and C2SP CCTV ed25519vectors 6, 7, 28, 29 (a key with a torsion
 * component; in 6 and 28 only a cofactored check accepts, in 7 and 29 the cofactorless one does).
 */
export const NODE_CRYPTO_PROBES: readonly (readonly [string, string, string, boolean])[] = [
  [
    'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a',
    '',
    'e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b',
    true,
  ],
  [
    'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a',
    '',
    'e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100c',
    false,
  ],
  [
    MIXED_KEY,
    'ed25519vectors 10',
    '36684ea91032ba5b1dbab2d02f4debc74c3327f2b3802e2e4d371aa42b12b56bc02e2b9e63e385c058bf62b14b3a2b29ccefe8e38ddb536bc3f9865320a3d801',
    false,
  ],
  [
    MIXED_KEY,
    'ed25519vectors',
    '36684ea91032ba5b1dbab2d02f4debc74c3327f2b3802e2e4d371aa42b12b56bbbfd00bd9c259d8d222d15e67a3d8228585050dbb9b9585be20d8fadc721da03',
    true,
  ],
  [
    MIXED_KEY,
    'ed25519vectors 9',
    'b797b156efcd45a4e2454d2fd0b21438b3ccd80d4c7fd1d1b2c8e55bd4ed4a94639734cf989e314e9e049fc01a3864d191fed8f231b12fee6fa50aaadba44b0e',
    false,
  ],
  [
    MIXED_KEY,
    'ed25519vectors 2',
    'b797b156efcd45a4e2454d2fd0b21438b3ccd80d4c7fd1d1b2c8e55bd4ed4a94732d9e0279fe001d90327efa319816e3e4506b78432b8b4e1f2fdc4b960d700f',
    true,
  ],
];

/** True if node:crypto gives the expected answer on every probe. */
export function nodeCryptoPassesProbes(): boolean {
  return NODE_CRYPTO_PROBES.every(
    ([pk, msg, sig, expected]) =>
      nodeCryptoVerify(hexToBytes(pk), new TextEncoder().encode(msg), hexToBytes(sig)) === expected,
  );
}

let useNodeCrypto: boolean | undefined;

/** Which implementation verifies ordinary signatures in this process. */
export function ed25519VerifyBackend(): 'node:crypto' | 'portable' {
  useNodeCrypto ??= nodeCryptoPassesProbes();
  return useNodeCrypto ? 'node:crypto' : 'portable';
}

/** Verifies a signature. Malformed keys or signatures verify as false; it never throws on bad input. */
export function ed25519Verify(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  if (publicKey.length !== PUBLIC_KEY_BYTES || signature.length !== SIGNATURE_BYTES) return false;
  if (!isCanonicalS(signature)) return false;
  // R' is always encoded canonically, so an R with y >= p can never equal it.
  if (!isCanonicalY(signature)) return false;
  if (
    !isCanonicalY(publicKey) ||
    isSmallOrderEncoding(publicKey) ||
    isSmallOrderEncoding(signature) ||
    ed25519VerifyBackend() === 'portable'
  ) {
    return ed25519VerifyPortable(publicKey, message, signature);
  }
  // inferred: on ordinary inputs node:crypto gives dalek's verdict; shown by OpenSSL's source, the
  // probes and the CCTV vectors, not by a reference source (docs/design/fidelity.md)
  return nodeCryptoVerify(publicKey, message, signature);
}
