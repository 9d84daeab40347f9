/**
 * Test helpers: one engine instance on a fresh shared memory, values in and out of its Montgomery
 * form, points to and from @noble/curves' BN254 (the reference the engine's arithmetic is checked
 * against), and a seeded random source so that a failure repeats.
 */
import { bn254 } from '@noble/curves/bn254.js';
import { FQ_MODULUS, FR_MODULUS } from '../src/engine/code.ts';
import { EngineInstance, SharedHeap } from '../src/engine/instance.ts';

export { FQ_MODULUS, FR_MODULUS };
export const R = 1n << 261n;

export function engine(): { heap: SharedHeap; e: EngineInstance } {
  const heap = new SharedHeap(1);
  const e = new EngineInstance(heap.memory, new WebAssembly.Module(heap.code.bytes), heap.scratchOf(0));
  return { heap, e };
}

/** xorshift128+ over bigints: 256-bit values from a seed. */
export function random(seed: number): (m?: bigint) => bigint {
  let s0 = BigInt(seed) * 0x9e3779b97f4a7c15n + 1n;
  let s1 = BigInt(seed) ^ 0xdeadbeefcafebaben;
  const next64 = () => {
    let x = s0;
    const y = s1;
    s0 = y;
    x ^= (x << 23n) & 0xffffffffffffffffn;
    s1 = x ^ y ^ (x >> 17n) ^ (y >> 26n);
    return (s1 + y) & 0xffffffffffffffffn;
  };
  return (m?: bigint) => {
    let v = 0n;
    for (let i = 0; i < 4; i++) v = (v << 64n) | next64();
    return m === undefined ? v : v % m;
  };
}

export const mont = (v: bigint, m: bigint) => ((((v % m) + m) % m) * R) % m;
export function unmont(v: bigint, m: bigint): bigint {
  let inv = 1n;
  let b = R % m;
  for (let e = m - 2n; e > 0n; e >>= 1n) {
    if (e & 1n) inv = (inv * b) % m;
    b = (b * b) % m;
  }
  return (v * inv) % m;
}

type G1 = InstanceType<typeof bn254.G1.Point>;
type G2 = InstanceType<typeof bn254.G2.Point>;
export const G1 = bn254.G1.Point;
export const G2 = bn254.G2.Point;

export function writeG1(e: EngineInstance, at: number, p: G1): void {
  if (p.equals(G1.ZERO)) {
    e.u8.fill(0, at, at + 72);
    return;
  }
  const a = p.toAffine();
  e.writeLimbs(at, mont(a.x, FQ_MODULUS));
  e.writeLimbs(at + 36, mont(a.y, FQ_MODULUS));
}

export function writeG2(e: EngineInstance, at: number, p: G2): void {
  if (p.equals(G2.ZERO)) {
    e.u8.fill(0, at, at + 144);
    return;
  }
  const a = p.toAffine();
  [a.x.c0, a.x.c1, a.y.c0, a.y.c1].forEach((c, i) => {
    e.writeLimbs(at + i * 36, mont(c, FQ_MODULUS));
  });
}

/** An affine point the engine wrote (all zero: infinity), as a noble point. */
export function readG1(e: EngineInstance, at: number): G1 {
  const x = unmont(e.readLimbs(at), FQ_MODULUS);
  const y = unmont(e.readLimbs(at + 36), FQ_MODULUS);
  if (x === 0n && y === 0n) return G1.ZERO;
  return G1.fromAffine({ x, y });
}

export function readG2(e: EngineInstance, at: number): G2 {
  const c = [0, 1, 2, 3].map((i) => unmont(e.readLimbs(at + i * 36), FQ_MODULUS));
  if (c.every((x) => x === 0n)) return G2.ZERO;
  const Fp2 = bn254.fields.Fp2;
  return G2.fromAffine({ x: Fp2.create({ c0: c[0]!, c1: c[1]! }), y: Fp2.create({ c0: c[2]!, c1: c[3]! }) });
}
