/**
 * Groth16 proofs in their three forms:
 * - snarkjs JSON: `{pi_a:[x,y,"1"], pi_b:[[x.c0,x.c1],[y.c0,y.c1],["1","0"]], pi_c:[x,y,"1"], protocol, curve}`,
 *   decimal strings, projective with z = 1 (the point at infinity has z = 0: `["0","1","0"]`);
 *   snarkjs writes Fp2 elements as [c0, c1].
 * - the 128-byte compressed wire form: pi_a (G1, 32 B) ‖ pi_b (G2, 64 B) ‖ pi_c (G1, 32 B), each point
 *   arkworks-compressed (see points.ts);
 * - `ProofParts` `{pi_a, pi_b, pi_c}`: the same three slices (the shape of mantle's `ZkSignature`,
 *   declared here so that this primitive depends on no transaction format).

Names: `compressProof`/`decompressProof` go between snarkjs JSON and bytes, `encodeProof`/`decodeProof`
between decoded points and bytes, `proofFromSnarkjs`/`proofToSnarkjs` between JSON and points.
 */
import { LogosError } from '@logos-ts/shared/errors';
import {
  compressG1,
  compressG2,
  decompressG1,
  decompressG2,
  FP_MODULUS,
  type Fp2,
  G1,
  G1_COMPRESSED_BYTES,
  type G1Point,
  G2,
  G2_COMPRESSED_BYTES,
  type G2Point,
} from './points.ts';

export const PROOF_BYTES = G1_COMPRESSED_BYTES + G2_COMPRESSED_BYTES + G1_COMPRESSED_BYTES; // 128

/** A malformed snarkjs JSON proof or verification key, or a misuse of the Groth16 API. */
export class Groth16Error extends LogosError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('GROTH16_MALFORMED', message, options);
  }
}

/** The three compressed points of a proof as separate slices: pi_a (32 B), pi_b (64 B), pi_c (32 B). */
export interface ProofParts {
  readonly pi_a: Uint8Array;
  readonly pi_b: Uint8Array;
  readonly pi_c: Uint8Array;
}

/** A decoded proof: points already checked to be in their groups. */
export interface Groth16Proof {
  readonly a: G1Point;
  readonly b: G2Point;
  readonly c: G1Point;
}

export type SnarkjsG1 = [string, string, string];
export type SnarkjsG2 = [[string, string], [string, string], [string, string]];

export interface SnarkjsProof {
  pi_a: SnarkjsG1;
  pi_b: SnarkjsG2;
  pi_c: SnarkjsG1;
  protocol?: string;
  curve?: string;
}

// ---------- snarkjs JSON ----------

const DECIMAL = /^[0-9]{1,80}$/;

/** A canonical base-field element from a snarkjs decimal string. */
export function parseFp(v: unknown, what: string): bigint {
  if (typeof v !== 'string' || !DECIMAL.test(v)) throw new Groth16Error(`${what}: expected a decimal string`);
  const x = BigInt(v);
  if (x >= FP_MODULUS) throw new Groth16Error(`${what}: not below the base field modulus`);
  return x;
}

function parseFp2(v: unknown, what: string): Fp2 {
  if (!Array.isArray(v) || v.length !== 2) throw new Groth16Error(`${what}: expected [c0, c1]`);
  return { c0: parseFp(v[0], `${what}[0]`), c1: parseFp(v[1], `${what}[1]`) };
}

function checked<P extends { assertValidity(): void }>(p: P, what: string): P {
  try {
    p.assertValidity();
  } catch (e) {
    throw new Groth16Error(`${what}: not a point of the group`, { cause: e });
  }
  return p;
}

/** A G1 point from snarkjs `[x, y, z]` with z = 1 (or the point at infinity, z = 0). */
export function g1FromSnarkjs(v: unknown, what: string): G1Point {
  if (!Array.isArray(v) || (v.length !== 3 && v.length !== 2))
    throw new Groth16Error(`${what}: expected [x, y, z]`);
  const x = parseFp(v[0], `${what}[0]`);
  const y = parseFp(v[1], `${what}[1]`);
  const z = v.length === 3 ? parseFp(v[2], `${what}[2]`) : 1n;
  if (z === 0n) return G1.ZERO;
  if (z !== 1n) throw new Groth16Error(`${what}: expected affine coordinates (z = 1)`);
  return checked(G1.fromAffine({ x, y }), what);
}

/** A G2 point from snarkjs `[[x0, x1], [y0, y1], [z0, z1]]` with z = 1 (or the point at infinity). */
export function g2FromSnarkjs(v: unknown, what: string): G2Point {
  if (!Array.isArray(v) || (v.length !== 3 && v.length !== 2)) {
    throw new Groth16Error(`${what}: expected [[x0, x1], [y0, y1], [z0, z1]]`);
  }
  const x = parseFp2(v[0], `${what}[0]`);
  const y = parseFp2(v[1], `${what}[1]`);
  const z = v.length === 3 ? parseFp2(v[2], `${what}[2]`) : { c0: 1n, c1: 0n };
  if (z.c0 === 0n && z.c1 === 0n) return G2.ZERO;
  if (z.c0 !== 1n || z.c1 !== 0n) throw new Groth16Error(`${what}: expected affine coordinates (z = 1)`);
  return checked(G2.fromAffine({ x, y }), what);
}

export function g1ToSnarkjs(p: G1Point): SnarkjsG1 {
  if (p.is0()) return ['0', '1', '0'];
  const { x, y } = p.toAffine();
  return [x.toString(), y.toString(), '1'];
}

export function g2ToSnarkjs(p: G2Point): SnarkjsG2 {
  if (p.is0()) {
    return [
      ['0', '0'],
      ['1', '0'],
      ['0', '0'],
    ];
  }
  const { x, y } = p.toAffine();
  return [
    [x.c0.toString(), x.c1.toString()],
    [y.c0.toString(), y.c1.toString()],
    ['1', '0'],
  ];
}

/** Parses a snarkjs proof JSON (already `JSON.parse`d). Throws {@link Groth16Error}. */
export function proofFromSnarkjs(json: unknown): Groth16Proof {
  if (typeof json !== 'object' || json === null) throw new Groth16Error('proof: expected an object');
  const o = json as Record<string, unknown>;
  if (o.protocol !== undefined && o.protocol !== 'groth16')
    throw new Groth16Error('proof: protocol is not groth16');
  if (o.curve !== undefined && o.curve !== 'bn128') throw new Groth16Error('proof: curve is not bn128');
  return {
    a: g1FromSnarkjs(o.pi_a, 'pi_a'),
    b: g2FromSnarkjs(o.pi_b, 'pi_b'),
    c: g1FromSnarkjs(o.pi_c, 'pi_c'),
  };
}

export function proofToSnarkjs(p: Groth16Proof): SnarkjsProof {
  return {
    pi_a: g1ToSnarkjs(p.a),
    pi_b: g2ToSnarkjs(p.b),
    pi_c: g1ToSnarkjs(p.c),
    protocol: 'groth16',
    curve: 'bn128',
  };
}

// ---------- 128-byte compressed form ----------

/** The 128-byte compressed form of decoded proof points. */
export function encodeProof(p: Groth16Proof): Uint8Array {
  const out = new Uint8Array(PROOF_BYTES);
  out.set(compressG1(p.a), 0);
  out.set(compressG2(p.b), G1_COMPRESSED_BYTES);
  out.set(compressG1(p.c), G1_COMPRESSED_BYTES + G2_COMPRESSED_BYTES);
  return out;
}

/** The three slices of a 128-byte proof (copies). Throws {@link Groth16Error} on a wrong length. */
export function zkSignatureFromBytes(bytes: Uint8Array): ProofParts {
  if (!(bytes instanceof Uint8Array) || bytes.length !== PROOF_BYTES) {
    throw new Groth16Error(`proof: expected ${PROOF_BYTES} bytes, got ${describe(bytes)}`);
  }
  return {
    pi_a: bytes.slice(0, G1_COMPRESSED_BYTES),
    pi_b: bytes.slice(G1_COMPRESSED_BYTES, G1_COMPRESSED_BYTES + G2_COMPRESSED_BYTES),
    pi_c: bytes.slice(G1_COMPRESSED_BYTES + G2_COMPRESSED_BYTES),
  };
}

/** The 128-byte proof of a `ZkSignature` (any {@link ProofParts}): pi_a ‖ pi_b ‖ pi_c (lengths checked, points not decoded). */
export function zkSignatureToBytes(sig: ProofParts): Uint8Array {
  if (
    sig.pi_a.length !== G1_COMPRESSED_BYTES ||
    sig.pi_b.length !== G2_COMPRESSED_BYTES ||
    sig.pi_c.length !== G1_COMPRESSED_BYTES
  ) {
    throw new Groth16Error('ZkSignature: pi_a, pi_b and pi_c must be 32, 64 and 32 bytes');
  }
  const out = new Uint8Array(PROOF_BYTES);
  out.set(sig.pi_a, 0);
  out.set(sig.pi_b, G1_COMPRESSED_BYTES);
  out.set(sig.pi_c, G1_COMPRESSED_BYTES + G2_COMPRESSED_BYTES);
  return out;
}

function describe(bytes: unknown): string {
  return bytes instanceof Uint8Array ? `${bytes.length}` : typeof bytes;
}

/**
 * Decodes a 128-byte compressed proof into checked points (G2 subgroup included). Throws
 * `PointEncodingError` (points.ts) for an invalid point, {@link Groth16Error} for a wrong length.
 */
export function decodeProof(bytes: Uint8Array): Groth16Proof {
  const s = zkSignatureFromBytes(bytes);
  return { a: decompressG1(s.pi_a), b: decompressG2(s.pi_b), c: decompressG1(s.pi_c) };
}

/** snarkjs proof JSON → 128-byte compressed proof. Throws {@link Groth16Error} on a malformed proof. */
export function compressProof(json: unknown): Uint8Array {
  return encodeProof(proofFromSnarkjs(json));
}

/** 128-byte compressed proof → snarkjs proof JSON (affine, z = 1). */
export function decompressProof(bytes: Uint8Array): SnarkjsProof {
  return proofToSnarkjs(decodeProof(bytes));
}
