/**
 * A proving key placed in the engine's shared memory, once, in the form the engine computes with:
 * coordinates and coefficients converted to its Montgomery form, the points at infinity of each
 * section left out (B1 and B2 hold a third of them in circom keys) with the signal index of every
 * point kept beside, the FFT's roots of unity for the key's domain, and the buffers a proof of this
 * key fills. Every later proof reads it in place.
 */
import { FR_MODULUS } from './engine/code.ts';
import { type EngineInstance, type SharedHeap, unpackLe256 } from './engine/instance.ts';
import type { Zkey } from './files.ts';
import { type CurveName, POINT_BYTES, shiftedWindowBits, windowBits, windowsOf } from './msm.ts';
import { COEF_BYTES } from './wasm/fft-code.ts';
import { ELEMENT_BYTES, modPow, R_BITS } from './wasm/field-code.ts';

/** The points of one section that are not at infinity, and the signal each one multiplies. */
export interface PointSet {
  readonly curve: CurveName;
  readonly points: number;
  readonly count: number;
  /** Address of `count` i32 signal indices. */
  readonly indices: number;
  /** The window width its MSM uses and where that MSM's window sums go. */
  readonly c: number;
  readonly sums: number;
  /** A copy of the points per window follows the first (`shiftPoints`). */
  readonly shifted: boolean;
}

export interface LoadedKey {
  readonly nVars: number;
  readonly nPublic: number;
  readonly domainSize: number;
  readonly logDomain: number;
  readonly a: PointSet;
  readonly b1: PointSet;
  readonly b2: PointSet;
  readonly c: PointSet;
  readonly h: PointSet;
  /** Affine points in engine form. */
  readonly alpha1: number;
  readonly beta1: number;
  readonly delta1: number;
  readonly beta2: number;
  readonly delta2: number;
  readonly coefficients: number;
  readonly nCoefficients: number;
  /** ω^0..ω^(n/2−1), ω^−0..ω^−(n/2−1), the coset shift (a primitive 2n-th root) and 1/n, Montgomery. */
  readonly roots: number;
  readonly rootsInv: number;
  readonly shift: number;
  readonly nInv: number;
  /** Per proof: the witness in normal form and in Montgomery form, the QAP evaluations A, B, C. */
  readonly witness: number;
  readonly witnessMont: number;
  readonly evalA: number;
  readonly evalB: number;
  readonly evalC: number;
  /** Bytes of shared memory the key takes. */
  readonly bytes: number;
}

/**
 * The roots of unity of Fr as ffjavascript chooses them (the proving key's H points are evaluations
 * over its domain): the smallest quadratic non-residue g from 2 up, w_28 = g^t with r − 1 = 2^28·t,
 * w_k = w_(k+1)²; the coset of a domain of 2^k is shifted by w_(k+1) (by g² for 2^28).
 */
function rootsOfUnity(): { w: bigint[]; nqr: bigint } {
  const r = FR_MODULUS;
  let nqr = 2n;
  while (modPow(nqr, (r - 1n) >> 1n, r) !== r - 1n) nqr++;
  let s = 0;
  let t = r - 1n;
  while ((t & 1n) === 0n) {
    t >>= 1n;
    s++;
  }
  const w: bigint[] = [];
  w[s] = modPow(nqr, t, r);
  for (let i = s - 1; i >= 0; i--) w[i] = (w[i + 1]! * w[i + 1]!) % r;
  if (w[0] !== 1n) throw new Error('no roots of unity');
  return { w, nqr };
}

const R = 1n << R_BITS;
const mont = (v: bigint, m: bigint) => (v * R) % m;

/**
 * Places `count` affine points as snarkjs files hold them (ffjavascript's Montgomery form, 64 or 128
 * bytes; all zero at infinity) in the engine's memory: those at infinity left out, the others in the
 * engine's form with the signal index (i + `signalOffset`) of each beside them.
 */
export function placePoints(
  heap: SharedHeap,
  e: EngineInstance,
  curve: CurveName,
  raw: Uint8Array,
  count: number,
  signalOffset: number,
): PointSet {
  const size = curve === 'g1' ? 64 : 128;
  const coords = size / 32;
  const keep: number[] = [];
  for (let i = 0; i < count; i++) {
    const p = raw.subarray(i * size, (i + 1) * size);
    if (p.some((x) => x !== 0)) keep.push(i);
  }
  const b = POINT_BYTES[curve];
  const at = heap.alloc(keep.length * b.affine);
  const indices = heap.alloc(keep.length * 4);
  const u32 = e.u32;
  const i32 = e.i32;
  keep.forEach((i, k) => {
    unpackLe256(raw.subarray(i * size, (i + 1) * size), coords, u32, at + k * b.affine);
    i32[(indices >>> 2) + k] = i + signalOffset;
  });
  e.call('fq_batchFromFfjs', at, keep.length * coords);
  const c = windowBits(keep.length);
  const sums = heap.alloc(windowsOf(c).count * b.jacobian);
  return { curve, points: at, count: keep.length, indices, c, sums, shifted: false };
}

/**
 * The points with a copy per window, 2^(c·w)·P (fixed bases: made once, by batch doublings), so that
 * an MSM's windows share their buckets (msm.ts `shifted`); the window width chosen for that. Costs
 * `windows` times the points' memory.
 */
export function shiftPoints(heap: SharedHeap, e: EngineInstance, set: PointSet, tasks: number): PointSet {
  const b = POINT_BYTES[set.curve];
  const c = shiftedWindowBits(set.count, tasks);
  const win = windowsOf(c);
  const n = set.count;
  const at = heap.alloc(win.count * n * b.affine);
  e.u8.copyWithin(at, set.points, set.points + n * b.affine);
  const tmp = heap.alloc(2 * n * b.field);
  for (let w = 1; w < win.count; w++) {
    const copy = at + w * n * b.affine;
    e.u8.copyWithin(copy, copy - n * b.affine, copy);
    for (let k = 0; k < c; k++) e.call(`${set.curve}_batchDouble`, copy, n, tmp);
  }
  const sums = heap.alloc((win.count + 2) * b.jacobian);
  return { ...set, points: at, c, sums, shifted: true };
}

/** Places a parsed key in the engine's memory (`e` is the coordinating thread's instance). */
export function loadKey(heap: SharedHeap, e: EngineInstance, z: Zkey, tasksPerMsm: number): LoadedKey {
  const start = heap.used;
  const points = (curve: CurveName, raw: Uint8Array, count: number, signalOffset: number) =>
    placePoints(heap, e, curve, raw, count, signalOffset);
  const a = points('g1', z.a, z.nVars, 0);
  const b1 = points('g1', z.b1, z.nVars, 0);
  // G2 points cost three times G1's: shifted once, their MSM fills one set of buckets per task.
  const b2 = shiftPoints(heap, e, points('g2', z.b2, z.nVars, 0), tasksPerMsm);
  const c = points('g1', z.c, z.nVars - z.nPublic - 1, z.nPublic + 1);
  const h = points('g1', z.h, z.domainSize, 0);
  const single = (curve: CurveName, raw: Uint8Array) => {
    const b = POINT_BYTES[curve];
    const at = heap.alloc(b.affine);
    unpackLe256(raw, b.affine / ELEMENT_BYTES, e.u32, at);
    e.call('fq_batchFromFfjs', at, b.affine / ELEMENT_BYTES);
    return at;
  };
  // Coefficients: u32 matrix, constraint, signal, then the value (stored as value·2^512) → value·2^261.
  const coefficients = heap.alloc(z.nCoefficients * COEF_BYTES);
  {
    const src = z.coefficients;
    const dv = new DataView(src.buffer, src.byteOffset, src.byteLength);
    const u32 = e.u32;
    for (let i = 0; i < z.nCoefficients; i++) {
      const o = (coefficients >>> 2) + (i * COEF_BYTES) / 4;
      u32[o] = dv.getUint32(i * 44, true);
      u32[o + 1] = dv.getUint32(i * 44 + 4, true);
      u32[o + 2] = dv.getUint32(i * 44 + 8, true);
      unpackLe256(src.subarray(i * 44 + 12, i * 44 + 44), 1, u32, coefficients + i * COEF_BYTES + 12);
    }
    // value·2^512 · 2^10 / 2^261 = value·2^261
    const k = heap.alloc(ELEMENT_BYTES);
    e.writeLimbs(k, 1n << 10n);
    for (let i = 0; i < z.nCoefficients; i++) {
      const v = coefficients + i * COEF_BYTES + 12;
      e.call('fr_mul', v, v, k);
    }
  }
  // The domain.
  const n = z.domainSize;
  const logDomain = Math.log2(n);
  const { w, nqr } = rootsOfUnity();
  const r = FR_MODULUS;
  const omega = w[logDomain]!;
  const omegaInv = modPow(omega, r - 2n, r);
  const table = (x: bigint) => {
    const at = heap.alloc((n / 2) * ELEMENT_BYTES);
    const step = heap.alloc(ELEMENT_BYTES);
    e.writeLimbs(step, mont(x, r));
    e.writeLimbs(at, mont(1n, r));
    for (let i = 1; i < n / 2; i++)
      e.call('fr_mul', at + i * ELEMENT_BYTES, at + (i - 1) * ELEMENT_BYTES, step);
    return at;
  };
  const roots = table(omega);
  const rootsInv = table(omegaInv);
  const shift = heap.alloc(ELEMENT_BYTES);
  e.writeLimbs(shift, mont(logDomain === 28 ? (nqr * nqr) % r : w[logDomain + 1]!, r));
  const nInv = heap.alloc(ELEMENT_BYTES);
  e.writeLimbs(nInv, mont(modPow(BigInt(n), r - 2n, r), r));
  const witness = heap.alloc(z.nVars * ELEMENT_BYTES);
  const witnessMont = heap.alloc(z.nVars * ELEMENT_BYTES);
  const evalA = heap.alloc(n * ELEMENT_BYTES);
  const evalB = heap.alloc(n * ELEMENT_BYTES);
  const evalC = heap.alloc(n * ELEMENT_BYTES);
  return {
    nVars: z.nVars,
    nPublic: z.nPublic,
    domainSize: n,
    logDomain,
    a,
    b1,
    b2,
    c,
    h,
    alpha1: single('g1', z.alpha1),
    beta1: single('g1', z.beta1),
    delta1: single('g1', z.delta1),
    beta2: single('g2', z.beta2),
    delta2: single('g2', z.delta2),
    coefficients,
    nCoefficients: z.nCoefficients,
    roots,
    rootsInv,
    shift,
    nInv,
    witness,
    witnessMont,
    evalA,
    evalB,
    evalC,
    bytes: heap.used - start,
  };
}
