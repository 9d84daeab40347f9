/**
 * The `rand` 0.8.6 draws of Blend scheduling: `rand`'s own value-stability vectors (drawn from its
 * PCG32 test generator), and the words each draw consumes.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  chooseMultiple,
  genBool,
  genIndex,
  genRangeF64Inclusive,
  genRangeU64Inclusive,
} from '../../../../src/blend/scheduling/rng.ts';
import { Pcg32, ScriptedRng } from '../pcg32.ts';

const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);

test('gen_range on u32 matches rand value_stability (distributions/uniform.rs, 11u32..219)', () => {
  const rng = Pcg32.randTest(897n);
  // `sample_single(11, 219)` is `gen_range(11..219)`; genIndex draws `0..n`, so shift by 11.
  const got = [0, 1, 2].map(() => 11 + genIndex(rng, 219 - 11));
  assert.deepEqual(got, [17, 66, 214]);
});

test('gen_bool matches rand value_stability (distributions/bernoulli.rs, p = 0.4532)', () => {
  const rng = Pcg32.randTest(3n);
  const got = range(10).map(() => genBool(rng, 0.4532));
  assert.deepEqual(got, [true, false, false, true, false, false, true, true, true, true]);
});

test('choose_multiple matches rand value_stability_choose_multiple (seq/mod.rs)', () => {
  for (const [n, expected] of [
    [4, [0, 1, 2, 3]],
    [8, [0, 1, 2, 3, 4, 5, 6, 7]],
    [100, [58, 78, 80, 92, 43, 8, 96, 7]],
  ] as const) {
    const rng = Pcg32.randTest(412n);
    assert.deepEqual(chooseMultiple(rng, range(n), expected.length), expected);
  }
});

test('gen_bool: p = 1 draws nothing, p = 0 draws one word and is false, p_int truncates p · 2^64', () => {
  const none = new ScriptedRng();
  assert.equal(genBool(none, 1), true);
  const zero = new ScriptedRng([0n]);
  assert.equal(genBool(zero, 0), false);
  assert.equal(zero.leftU64, 0);
  // p = 1/2: p_int = 2^63; v < 2^63 is true.
  assert.equal(genBool(new ScriptedRng([(1n << 63n) - 1n]), 0.5), true);
  assert.equal(genBool(new ScriptedRng([1n << 63n]), 0.5), false);
  assert.throws(() => genBool(new ScriptedRng(), 1.5), RangeError);
  assert.throws(() => genBool(new ScriptedRng(), Number.NaN), RangeError);
});

test('gen_range on u64 inclusive: widening multiply, rejection above (range << lz) − 1', () => {
  // 1..=3: range 3, zone = (3 << 62) − 1; v = 2^63 gives hi = 1 (so 2), lo = 2^63 ≤ zone.
  assert.equal(genRangeU64Inclusive(new ScriptedRng([1n << 63n]), 1n, 3n), 2n);
  // v = 2^64 − 1: lo = 2^64 − 3 > zone, rejected; the next word 0 gives the lowest value.
  const rng = new ScriptedRng([(1n << 64n) - 1n, 0n]);
  assert.equal(genRangeU64Inclusive(rng, 1n, 3n), 1n);
  assert.equal(rng.leftU64, 0);
  // A single value still draws one word.
  const one = new ScriptedRng([12345n]);
  assert.equal(genRangeU64Inclusive(one, 7n, 7n), 7n);
  assert.equal(one.leftU64, 0);
  // The full range returns the word.
  assert.equal(genRangeU64Inclusive(new ScriptedRng([99n]), 0n, (1n << 64n) - 1n), 99n);
});

test('gen_range(0.0..=1.0) on f64: 52 random bits scaled to reach 1.0 exactly', () => {
  assert.equal(genRangeF64Inclusive(new ScriptedRng([0n]), 0, 1), 0);
  assert.equal(genRangeF64Inclusive(new ScriptedRng([(1n << 64n) - 1n]), 0, 1), 1);
  // The low 12 bits are discarded.
  assert.equal(genRangeF64Inclusive(new ScriptedRng([0xfffn]), 0, 1), 0);
  const half = genRangeF64Inclusive(new ScriptedRng([1n << 63n]), 0, 1);
  assert.equal(half, 0.5 * (1 + 2 ** -52));
});

test('choose_multiple: fewer items than asked returns them all without drawing; zero still draws', () => {
  assert.deepEqual(chooseMultiple(new ScriptedRng(), [1, 2], 5), [1, 2]);
  const rng = new ScriptedRng([], [0, 0]);
  assert.deepEqual(chooseMultiple(rng, [1, 2], 0), []);
  assert.equal(rng.leftU32, 0);
});
