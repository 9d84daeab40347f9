/**
 * BN254 points in arkworks' compressed encoding (`CanonicalSerialize::serialize_compressed`), the
 * encoding of the node's Groth16 proofs.
 *
 * - G1: 32 bytes, the affine x (an Fp element) little-endian.
 * - G2: 64 bytes, x = c0 + c1·u as x.c0 (32 B LE) then x.c1 (32 B LE).
 * - The two top bits of the LAST byte are arkworks' `SWFlags` (x < p < 2^254 leaves them free):
 *   bit 7 (0x80) `YIsNegative`, bit 6 (0x40) `PointAtInfinity`; both set is invalid.
 *   The point at infinity is written as x = 0 with only bit 6 set.
 *
 * Which root is "negative" (arkworks `SWFlags::from_y_coordinate`: `if y <= -y { YIsPositive } else
 * { YIsNegative }`, and `get_ys_from_x_unchecked` returns (smaller, larger) with `greatest` picking the
 * larger):
 * - Fp is ordered as canonical integers in [0, p), so y is "negative" iff y > p − y, i.e. y > (p−1)/2.
 * - Fp2 (`QuadExtField`'s `Ord`) compares c1 first and c0 only when the c1 are equal. Since −y =
 *   (p−c0) + (p−c1)·u, y is "negative" iff c1 > (p−1)/2, or c1 = 0 and c0 > (p−1)/2.
 * wasmcurves (ffjavascript) uses the same rule for its own big-endian compressed form
 * (`f2m_sign` looks at c1, then c0), which the tests use as an independent cross-check.
 *
 * Decoding is stricter than arkworks in one respect: arkworks ignores the x bits of an encoding whose
 * infinity flag is set (it only checks x < p); here every other bit must be zero.
 */

import { LogosError } from '@logos-ts/shared/errors';
import type { AffinePoint, WeierstrassPoint } from '@noble/curves/abstract/weierstrass.js';
import { bn254 } from '@noble/curves/bn254.js';

/** An element c0 + c1·u of Fp2 = Fp[u]/(u² + 1) (noble's representation). */
export interface Fp2 {
  readonly c0: bigint;
  readonly c1: bigint;
}

export type G1Point = WeierstrassPoint<bigint>;
export type G2Point = WeierstrassPoint<Fp2>;

export const G1 = bn254.G1.Point;
export const G2 = bn254.G2.Point;
const Fp = bn254.fields.Fp;
const Fp2 = bn254.fields.Fp2;

/** The base field modulus q of BN254 (coordinates of G1 and G2). */
export const FP_MODULUS: bigint = Fp.ORDER;
/** The scalar field modulus r (the group order; public inputs must be below it). */
export const FR_ORDER: bigint = bn254.fields.Fr.ORDER;

export const G1_COMPRESSED_BYTES = 32;
export const G2_COMPRESSED_BYTES = 64;

/** arkworks `SWFlags::YIsNegative`: y is the larger of the two roots. */
export const FLAG_Y_NEGATIVE = 0x80;
/** arkworks `SWFlags::PointAtInfinity`. */
export const FLAG_INFINITY = 0x40;
const FLAG_MASK = FLAG_Y_NEGATIVE | FLAG_INFINITY;

const HALF_P = (FP_MODULUS - 1n) / 2n;
const G1_B = 3n;
const G2_B: Fp2 = G2.CURVE().b;

/** A malformed or invalid compressed point. `reason` tells which check failed. */
export class PointEncodingError extends LogosError {
  readonly reason: PointEncodingReason;

  constructor(reason: PointEncodingReason, message: string) {
    super('GROTH16_POINT_ENCODING', message);
    this.reason = reason;
  }
}

export type PointEncodingReason =
  | 'length'
  | 'non-canonical'
  | 'both-flags'
  | 'bad-infinity'
  | 'not-on-curve'
  | 'not-in-subgroup';

// ---------- sign rule ----------

/** arkworks: y > −y for y in Fp (canonical integer order). */
export function fpIsLarger(y: bigint): boolean {
  return y > HALF_P;
}

/** arkworks: y > −y for y in Fp2 (c1 compared first, then c0). */
export function fp2IsLarger(y: Fp2): boolean {
  return y.c1 !== 0n ? y.c1 > HALF_P : y.c0 > HALF_P;
}

// ---------- byte helpers ----------

function writeLe(out: Uint8Array, offset: number, v: bigint): void {
  let x = v;
  for (let i = 0; i < 32; i++) {
    out[offset + i] = Number(x & 0xffn);
    x >>= 8n;
  }
}

function readLe(bytes: Uint8Array, offset: number, clearFlags: boolean): bigint {
  let v = 0n;
  for (let i = 31; i >= 0; i--) {
    let b = bytes[offset + i]!;
    if (clearFlags && i === 31) b &= ~FLAG_MASK & 0xff;
    v = (v << 8n) | BigInt(b);
  }
  return v;
}

interface Header {
  infinity: boolean;
  negative: boolean;
}

function readFlags(bytes: Uint8Array, expected: number, what: string): Header {
  if (!(bytes instanceof Uint8Array) || bytes.length !== expected) {
    throw new PointEncodingError(
      'length',
      `${what}: expected ${expected} bytes, got ${describeLength(bytes)}`,
    );
  }
  const last = bytes[expected - 1]!;
  const negative = (last & FLAG_Y_NEGATIVE) !== 0;
  const infinity = (last & FLAG_INFINITY) !== 0;
  if (negative && infinity) {
    throw new PointEncodingError('both-flags', `${what}: both the y-negative and the infinity flags are set`);
  }
  return { infinity, negative };
}

function describeLength(bytes: unknown): string {
  return bytes instanceof Uint8Array ? String(bytes.length) : typeof bytes;
}

function canonical(v: bigint, what: string): bigint {
  if (v >= FP_MODULUS) throw new PointEncodingError('non-canonical', `${what}: x coordinate is not below p`);
  return v;
}

// ---------- G1 ----------

/** arkworks `serialize_compressed` of a G1 point (32 bytes). */
export function compressG1(point: G1Point): Uint8Array {
  const out = new Uint8Array(G1_COMPRESSED_BYTES);
  if (point.is0()) {
    out[31] = FLAG_INFINITY;
    return out;
  }
  const { x, y } = point.toAffine();
  writeLe(out, 0, x);
  if (fpIsLarger(y)) out[31]! |= FLAG_Y_NEGATIVE;
  return out;
}

/** Affine y of a G1 x, picking the root by the flag; throws if x³ + 3 has no square root. */
function g1Y(x: bigint, negative: boolean): bigint {
  const rhs = Fp.add(Fp.mul(Fp.sqr(x), x), G1_B);
  let y: bigint;
  try {
    y = Fp.sqrt(rhs);
  } catch {
    throw new PointEncodingError('not-on-curve', 'G1: x is not the x coordinate of a curve point');
  }
  if (!Fp.eql(Fp.sqr(y), rhs)) {
    throw new PointEncodingError('not-on-curve', 'G1: x is not the x coordinate of a curve point');
  }
  return fpIsLarger(y) === negative ? y : Fp.neg(y);
}

/** Inverse of {@link compressG1}. G1 has cofactor 1, so every curve point is in the group. */
export function decompressG1(bytes: Uint8Array): G1Point {
  const h = readFlags(bytes, G1_COMPRESSED_BYTES, 'G1');
  const x = canonical(readLe(bytes, 0, true), 'G1');
  if (h.infinity) {
    if (x !== 0n) throw new PointEncodingError('bad-infinity', 'G1: point at infinity with non-zero bits');
    return G1.ZERO;
  }
  return G1.fromAffine({ x, y: g1Y(x, h.negative) });
}

// ---------- G2 ----------

/** arkworks `serialize_compressed` of a G2 point (64 bytes: x.c0 ‖ x.c1, flags in the last byte). */
export function compressG2(point: G2Point): Uint8Array {
  const out = new Uint8Array(G2_COMPRESSED_BYTES);
  if (point.is0()) {
    out[63] = FLAG_INFINITY;
    return out;
  }
  const { x, y } = point.toAffine();
  writeLe(out, 0, x.c0);
  writeLe(out, 32, x.c1);
  if (fp2IsLarger(y)) out[63]! |= FLAG_Y_NEGATIVE;
  return out;
}

/**
 * Decodes a compressed G2 point to affine coordinates and checks it is on the twist curve, WITHOUT the
 * subgroup check. `null` is the point at infinity. For verifiers that check the subgroup themselves
 * (the WebAssembly verifier does it in WebAssembly); everyone else uses {@link decompressG2}.
 */
export function decompressG2Affine(bytes: Uint8Array): AffinePoint<Fp2> | null {
  const h = readFlags(bytes, G2_COMPRESSED_BYTES, 'G2');
  const c0 = canonical(readLe(bytes, 0, false), 'G2 (x.c0)');
  const c1 = canonical(readLe(bytes, 32, true), 'G2 (x.c1)');
  if (h.infinity) {
    if (c0 !== 0n || c1 !== 0n) {
      throw new PointEncodingError('bad-infinity', 'G2: point at infinity with non-zero bits');
    }
    return null;
  }
  const x: Fp2 = { c0, c1 };
  const rhs = Fp2.add(Fp2.mul(Fp2.sqr(x), x), G2_B);
  let y: Fp2;
  try {
    y = Fp2.sqrt(rhs);
  } catch {
    throw new PointEncodingError('not-on-curve', 'G2: x is not the x coordinate of a curve point');
  }
  if (!Fp2.eql(Fp2.sqr(y), rhs)) {
    throw new PointEncodingError('not-on-curve', 'G2: x is not the x coordinate of a curve point');
  }
  return { x, y: fp2IsLarger(y) === h.negative ? y : Fp2.neg(y) };
}

/** Inverse of {@link compressG2}; rejects points outside the prime-order subgroup (noble's check). */
export function decompressG2(bytes: Uint8Array): G2Point {
  const a = decompressG2Affine(bytes);
  if (a === null) return G2.ZERO;
  const p = G2.fromAffine(a);
  if (!p.isTorsionFree()) {
    throw new PointEncodingError('not-in-subgroup', 'G2: point is not in the prime-order subgroup');
  }
  return p;
}
