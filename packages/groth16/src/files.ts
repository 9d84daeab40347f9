/**
 * The files a Groth16 proof is made from, as circom and snarkjs write them (ffjavascript
 * `binfileutils`: a 4-byte magic, u32 version, u32 section count, then sections of u32 type, u64 size
 * and the bytes, little-endian):
 * - a proving key (`.zkey`, snarkjs `zkey_utils.js`): 1 the protocol (1 = Groth16); 2 the field
 *   sizes and primes, nVars, nPublic, the domain size, then α1, β1, β2, γ2, δ1, δ2; 3 the IC points;
 *   4 the QAP coefficients (u32 count, then u32 matrix, u32 constraint, u32 signal and the value as
 *   32 bytes, standard form of value·2^512); 5 A, 6 B1 (G1), 7 B2 (G2), 8 C (G1, the private signals),
 *   9 H (G1, the domain size). Points are affine, coordinates in Montgomery form (x·2^256 mod q), 32
 *   bytes each; the point at infinity is all zero.
 * - a witness (`.wtns`): 1 the element size, the prime and the count; 2 the values in standard form.
 * Every size is checked against what the header declares before a byte is used, so a truncated,
 * padded or foreign file is refused with a message naming what is wrong.
 */
import { LogosError } from '@logos-ts/shared/errors';
import { FQ_MODULUS, FR_MODULUS } from './engine/code.ts';

export class Groth16FileError extends LogosError {
  constructor(message: string) {
    super('GROTH16_FILE_INVALID', message);
  }
}

function fail(what: string, msg: string): never {
  throw new Groth16FileError(`${what}: ${msg}`);
}

/** The sections of a file of magic `magic`, by type (a type twice is refused). */
function sections(bytes: Uint8Array, magic: string, what: string): Map<number, Uint8Array> {
  if (bytes.length < 12) fail(what, `${bytes.length} bytes is not a ${magic} file`);
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const got = new TextDecoder().decode(bytes.subarray(0, 4));
  if (got !== magic) fail(what, `not a ${magic} file (magic ${JSON.stringify(got)})`);
  const count = dv.getUint32(8, true);
  if (count > 64) fail(what, `${count} sections`);
  const out = new Map<number, Uint8Array>();
  let at = 12;
  for (let i = 0; i < count; i++) {
    if (at + 12 > bytes.length) fail(what, `section ${i} header past the end of the file`);
    const type = dv.getUint32(at, true);
    const size = dv.getBigUint64(at + 4, true);
    at += 12;
    if (size > BigInt(bytes.length - at))
      fail(what, `section ${type} of ${size} bytes past the end of the file`);
    if (out.has(type)) fail(what, `section ${type} twice`);
    out.set(type, bytes.subarray(at, at + Number(size)));
    at += Number(size);
  }
  if (at !== bytes.length) fail(what, `${bytes.length - at} bytes after the last section`);
  return out;
}

function need(s: Map<number, Uint8Array>, type: number, what: string, name: string): Uint8Array {
  const b = s.get(type);
  if (!b) fail(what, `no section ${type} (${name})`);
  return b;
}

function leUint(b: Uint8Array): bigint {
  let v = 0n;
  for (let i = b.length - 1; i >= 0; i--) v = (v << 8n) | BigInt(b[i]!);
  return v;
}

export interface Zkey {
  readonly nVars: number;
  readonly nPublic: number;
  readonly domainSize: number;
  /** α1, β1, δ1 (64 bytes each), β2, δ2 (128 bytes each), as the file holds them. */
  readonly alpha1: Uint8Array;
  readonly beta1: Uint8Array;
  readonly beta2: Uint8Array;
  readonly delta1: Uint8Array;
  readonly delta2: Uint8Array;
  /** Section 4 after its count: 44 bytes a coefficient. */
  readonly coefficients: Uint8Array;
  readonly nCoefficients: number;
  readonly a: Uint8Array;
  readonly b1: Uint8Array;
  readonly b2: Uint8Array;
  readonly c: Uint8Array;
  readonly h: Uint8Array;
}

const G1 = 64;
const G2 = 128;
const COEF = 44;
/** The largest domain BN254's scalar field has roots of unity for. */
const MAX_DOMAIN = 2 ** 28;

export function parseZkey(bytes: Uint8Array, what = 'proving key'): Zkey {
  const s = sections(bytes, 'zkey', what);
  const h1 = need(s, 1, what, 'header');
  if (h1.length !== 4) fail(what, `header of ${h1.length} bytes`);
  const protocol = new DataView(h1.buffer, h1.byteOffset, 4).getUint32(0, true);
  if (protocol !== 1) fail(what, `protocol ${protocol}, not Groth16 (1)`);
  const h2 = need(s, 2, what, 'Groth16 header');
  const expected = 4 + 32 + 4 + 32 + 12 + 3 * G1 + 3 * G2;
  if (h2.length !== expected) fail(what, `Groth16 header of ${h2.length} bytes, not ${expected}`);
  const dv = new DataView(h2.buffer, h2.byteOffset, h2.byteLength);
  if (dv.getUint32(0, true) !== 32 || leUint(h2.subarray(4, 36)) !== FQ_MODULUS)
    fail(what, 'the base field is not BN254');
  if (dv.getUint32(36, true) !== 32 || leUint(h2.subarray(40, 72)) !== FR_MODULUS)
    fail(what, 'the scalar field is not BN254');
  const nVars = dv.getUint32(72, true);
  const nPublic = dv.getUint32(76, true);
  const domainSize = dv.getUint32(80, true);
  if (nVars < 1 || nPublic + 1 > nVars) fail(what, `${nPublic} public signals among ${nVars}`);
  if (domainSize < 2 || domainSize > MAX_DOMAIN || (domainSize & (domainSize - 1)) !== 0)
    fail(what, `domain size ${domainSize} is not a power of two up to 2^28`);
  let at = 84;
  const take = (n: number) => {
    const b = h2.subarray(at, at + n);
    at += n;
    return b;
  };
  const alpha1 = take(G1);
  const beta1 = take(G1);
  const beta2 = take(G2);
  take(G2); // γ2: the verifier's
  const delta1 = take(G1);
  const delta2 = take(G2);
  const coefs = need(s, 4, what, 'coefficients');
  if (coefs.length < 4) fail(what, 'coefficients section without its count');
  const nCoefficients = new DataView(coefs.buffer, coefs.byteOffset, 4).getUint32(0, true);
  if (coefs.length !== 4 + nCoefficients * COEF)
    fail(what, `${nCoefficients} coefficients in ${coefs.length - 4} bytes`);
  const coefficients = coefs.subarray(4);
  const cv = new DataView(coefficients.buffer, coefficients.byteOffset, coefficients.byteLength);
  for (let i = 0; i < nCoefficients; i++) {
    const m = cv.getUint32(i * COEF, true);
    const c = cv.getUint32(i * COEF + 4, true);
    const sig = cv.getUint32(i * COEF + 8, true);
    if (m > 1 || c >= domainSize || sig >= nVars)
      fail(what, `coefficient ${i} (matrix ${m}, constraint ${c}, signal ${sig}) out of range`);
  }
  const points = (type: number, name: string, count: number, size: number) => {
    const b = need(s, type, what, name);
    if (b.length !== count * size) fail(what, `${name}: ${b.length} bytes, not ${count} points of ${size}`);
    return b;
  };
  return {
    nVars,
    nPublic,
    domainSize,
    alpha1,
    beta1,
    beta2,
    delta1,
    delta2,
    coefficients,
    nCoefficients,
    a: points(5, 'A points', nVars, G1),
    b1: points(6, 'B1 points', nVars, G1),
    b2: points(7, 'B2 points', nVars, G2),
    c: points(8, 'C points', nVars - nPublic - 1, G1),
    h: points(9, 'H points', domainSize, G1),
  };
}

export interface Wtns {
  readonly count: number;
  /** The values, 32 bytes each, standard form. */
  readonly values: Uint8Array;
}

export function parseWtns(bytes: Uint8Array, what = 'witness'): Wtns {
  const s = sections(bytes, 'wtns', what);
  const h = need(s, 1, what, 'header');
  if (h.length !== 40) fail(what, `header of ${h.length} bytes`);
  const dv = new DataView(h.buffer, h.byteOffset, h.byteLength);
  if (dv.getUint32(0, true) !== 32 || leUint(h.subarray(4, 36)) !== FR_MODULUS)
    fail(what, 'the field is not the BN254 scalar field');
  const count = dv.getUint32(36, true);
  const values = need(s, 2, what, 'values');
  if (values.length !== count * 32) fail(what, `${count} values in ${values.length} bytes`);
  return { count, values };
}
