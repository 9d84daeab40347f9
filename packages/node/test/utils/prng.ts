/** Seeded pseudo-random numbers for tests and benchmarks, so that every run and every failure reproduces. */

/** xorshift32: uint32 values. */
export function xorshift32(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return s >>> 0;
  };
}

/** xorshift32 as floats in [0, 1). */
export function prng(seed: number): () => number {
  const next = xorshift32(seed);
  return () => next() / 0x100000000;
}
