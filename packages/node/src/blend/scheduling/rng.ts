/**
 * The random draws of Blend scheduling and membership, as the reference makes them with `rand` 0.8.6
 * (the version in F's Cargo.lock; `rand` is a library F uses, so these follow its source): given the
 * same stream of `next_u32`/`next_u64` words, every draw here returns what the reference's draw
 * returns and consumes the same words.
 *
 * - `genBool(p)`: `Rng::gen_bool` (a Bernoulli with `p_int = (p · 2^64) as u64`, always true at
 *   p = 1 without drawing, else one u64 `v` and `v < p_int`);
 * - `genRangeU64Inclusive(lo, hi)`: `Rng::gen_range(lo..=hi)` on u64 (widening multiply with the
 *   `(range << leading_zeros) − 1` rejection zone);
 * - `genIndex(n)`: `seq::gen_index`, `gen_range(0..n)` on u32 for n ≤ u32::MAX;
 * - `genRangeF64Inclusive(lo, hi)`: `Rng::gen_range(lo..=hi)` on f64 (`UniformFloat::new_inclusive`
 *   then one sample: 52 random bits as a value in [0, 1), times a scale lowered until
 *   `scale · max_rand + lo ≤ hi`);
 * - `chooseMultiple(items, amount)`: `IteratorRandom::choose_multiple` (reservoir sampling, without
 *   repetition, in reservoir order).
 *
 * Pure: no I/O. The generator is passed in (the reference's `BlakeRng`, or a scripted one in tests).
 */

/** A source of random words (F: `rand::RngCore`). */
export interface RngCore {
  /** The next 32-bit word, 0 ≤ w < 2^32. */
  nextU32(): number;
  /** The next 64-bit word, 0 ≤ w < 2^64. */
  nextU64(): bigint;
}

/**
 * A generator that can be copied with its position (F: `Rng + Clone`): the copy and the original
 * then produce the same words.
 */
export interface CloneableRng extends RngCore {
  clone(): CloneableRng;
}

const U64_MAX = (1n << 64n) - 1n;
const U32_MAX = 0xffff_ffff;
const TWO_POW_64 = 2 ** 64;

/** `Rng::gen_bool(p)`, 0 ≤ p ≤ 1. */
export function genBool(rng: RngCore, p: number): boolean {
  if (!(p >= 0 && p <= 1)) throw new RangeError(`probability ${p} is not in [0, 1]`);
  if (p === 1) return true;
  // `(p * SCALE) as u64`: the product is exact (a power-of-two scaling) and truncated.
  const pInt = BigInt(Math.trunc(p * TWO_POW_64));
  return rng.nextU64() < pInt;
}

function leadingZeros64(x: bigint): bigint {
  return 64n - BigInt(x.toString(2).length);
}

/** `Rng::gen_range(lo..=hi)` on u64 (`UniformInt::<u64>::sample_single_inclusive`). */
export function genRangeU64Inclusive(rng: RngCore, lo: bigint, hi: bigint): bigint {
  if (lo < 0n || hi > U64_MAX || lo > hi) throw new RangeError(`invalid u64 range ${lo}..=${hi}`);
  const range = (hi - lo + 1n) & U64_MAX;
  if (range === 0n) return rng.nextU64();
  const zone = (((range << leadingZeros64(range)) & U64_MAX) - 1n) & U64_MAX;
  for (;;) {
    const product = rng.nextU64() * range;
    if ((product & U64_MAX) <= zone) return lo + (product >> 64n);
  }
}

/** `Rng::gen_range(lo..hi)` on u32 (`sample_single` is `sample_single_inclusive(lo, hi − 1)`). */
function genRangeU32(rng: RngCore, lo: number, hi: number): number {
  const range = hi - 1 - lo + 1; // 1..=2^32 − 1, never the full range here
  const zone = ((range * 2 ** Math.clz32(range)) % 2 ** 32) - 1;
  for (;;) {
    const product = BigInt(rng.nextU32()) * BigInt(range);
    if (Number(product & 0xffff_ffffn) <= zone) return lo + Number(product >> 32n);
  }
}

/** `rand::seq::gen_index(rng, ubound)`: uniform in `0..ubound`, for 1 ≤ ubound ≤ u32::MAX. */
export function genIndex(rng: RngCore, ubound: number): number {
  if (!Number.isSafeInteger(ubound) || ubound < 1 || ubound > U32_MAX) {
    throw new RangeError(`index bound ${ubound} is not in 1..=${U32_MAX}`);
  }
  return genRangeU32(rng, 0, ubound);
}

const F64 = new DataView(new ArrayBuffer(8));

/** The next f64 below a positive finite x (`decrease_masked`: the bits as an integer, minus one). */
function nextDown(x: number): number {
  F64.setFloat64(0, x);
  F64.setBigUint64(0, F64.getBigUint64(0) - 1n);
  return F64.getFloat64(0);
}

/** `(u64::MAX >> 12).into_float_with_exponent(0) − 1.0` = 1 − 2^-52. */
const MAX_RAND = 1 - 2 ** -52;

/** `Rng::gen_range(lo..=hi)` on f64 (`UniformFloat::new_inclusive(lo, hi).sample(rng)`). */
export function genRangeF64Inclusive(rng: RngCore, lo: number, hi: number): number {
  if (!(Number.isFinite(lo) && Number.isFinite(hi) && lo <= hi)) {
    throw new RangeError(`invalid f64 range ${lo}..=${hi}`);
  }
  let scale = (hi - lo) / MAX_RAND;
  if (!Number.isFinite(scale)) throw new RangeError(`f64 range ${lo}..=${hi} overflows`);
  while (scale * MAX_RAND + lo > hi) scale = nextDown(scale);
  // 52 random bits as the mantissa of a value in [1, 2), minus one: exactly bits · 2^-52.
  const value0to1 = Number(rng.nextU64() >> 12n) * 2 ** -52;
  return value0to1 * scale + lo;
}

/**
 * `IteratorRandom::choose_multiple(items, rng, amount)`: `amount` distinct items (all of them, in
 * order and without drawing, when there are no more than `amount`).
 */
export function chooseMultiple<T>(rng: RngCore, items: readonly T[], amount: number): T[] {
  if (!Number.isSafeInteger(amount) || amount < 0) throw new RangeError(`invalid amount ${amount}`);
  const reservoir = items.slice(0, amount);
  if (reservoir.length < amount) return reservoir;
  for (let i = amount; i < items.length; i++) {
    const k = genIndex(rng, i + 1);
    if (k < amount) reservoir[k] = items[i]!;
  }
  return reservoir;
}
