/**
 * The generated field arithmetic against bigint arithmetic: Fq and Fr products, squares, sums,
 * differences, inverses and conversions, on random values across the whole stored range [0, 2p)
 * and on the edges (0, 1, p − 1, p, 2p − 1); results stay below 2p.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { engine, FQ_MODULUS, FR_MODULUS, mont, R, random, unmont } from '../helpers.ts';

const { heap, e } = engine();
const A = heap.alloc(64);
const B = heap.alloc(64);
const O = heap.alloc(64);

for (const [name, p] of [
  ['fq', FQ_MODULUS],
  ['fr', FR_MODULUS],
] as const) {
  describe(`${name}: Montgomery arithmetic with 29-bit limbs`, () => {
    const rnd = random(name === 'fq' ? 1 : 2);
    const edges = [0n, 1n, p - 1n, p, 2n * p - 1n];
    const values = [...edges, ...Array.from({ length: 300 }, () => rnd(2n * p))];
    const Rinv = unmont(1n, p);
    const got = () => {
      const v = e.readLimbs(O);
      assert.ok(v < 2n * p, `${v} is below 2p`);
      return v % p;
    };
    test('mul and square: a·b/R', () => {
      for (const [i, a] of values.entries()) {
        const b = values[(i * 7 + 3) % values.length]!;
        e.writeLimbs(A, a);
        e.writeLimbs(B, b);
        e.call(`${name}_mul`, O, A, B);
        assert.equal(got(), (a * b * Rinv) % p);
        e.call(`${name}_square`, O, A);
        assert.equal(got(), (a * a * Rinv) % p);
      }
    });
    test('add, sub, neg, double', () => {
      for (const [i, a] of values.entries()) {
        const b = values[(i * 5 + 1) % values.length]!;
        e.writeLimbs(A, a);
        e.writeLimbs(B, b);
        e.call(`${name}_add`, O, A, B);
        assert.equal(got(), (a + b) % p);
        e.call(`${name}_sub`, O, A, B);
        assert.equal(got(), (((a - b) % p) + p) % p);
        e.call(`${name}_neg`, O, A);
        assert.equal(got(), (p - (a % p)) % p);
        e.call(`${name}_double`, O, A);
        assert.equal(got(), (2n * a) % p);
      }
    });
    test('inv (0 for 0), reduce, isZero, eq', () => {
      for (const a of values.slice(0, 60)) {
        e.writeLimbs(A, a);
        e.call(`${name}_inv`, O, A);
        const x = unmont(a % p, p);
        const want = x === 0n ? 0n : mont(modInv(x, p), p);
        assert.equal(got(), want);
        e.call(`${name}_reduce`, O, A);
        assert.equal(e.readLimbs(O), a % p);
        assert.equal(e.call(`${name}_isZero`, A), a % p === 0n ? 1 : 0);
        e.writeLimbs(B, (a % p) + p < 2n * p ? (a % p) + p : a % p);
        assert.equal(e.call(`${name}_eq`, A, B), 1);
      }
    });
    test('to and from Montgomery form; from ffjavascript’s (x·2^256)', () => {
      for (const a of values.slice(5, 40)) {
        const x = a % p;
        e.writeLimbs(A, x);
        e.call(`${name}_toMont`, O, A);
        assert.equal(got(), (x * R) % p);
        e.writeLimbs(A, (x * R) % p);
        e.call(`${name}_fromMont`, O, A);
        assert.equal(e.readLimbs(O), x);
        e.writeLimbs(A, (x << 256n) % p);
        e.call(`${name}_batchFromFfjs`, A, 1);
        assert.equal(e.readLimbs(A) % p, (x * R) % p);
      }
    });
  });
}

function modInv(x: bigint, p: bigint): bigint {
  let r = 1n;
  let b = x % p;
  for (let k = p - 2n; k > 0n; k >>= 1n) {
    if (k & 1n) r = (r * b) % p;
    b = (b * b) % p;
  }
  return r;
}

describe('fq2: Fq[u]/(u² + 1)', () => {
  const rnd = random(3);
  const p = FQ_MODULUS;
  const Rinv = unmont(1n, p);
  // Elements as (c0, c1) in the engine's stored form (below 2p), their products as bigints.
  const values = [
    [0n, 0n],
    [1n, 0n],
    [0n, 1n],
    [p - 1n, p - 1n],
    [2n * p - 1n, 2n * p - 1n],
    [p, 2n * p - 1n],
    ...Array.from({ length: 200 }, () => [rnd(2n * p), rnd(2n * p)]),
  ] as [bigint, bigint][];
  const put = (at: number, [c0, c1]: [bigint, bigint]) => {
    e.writeLimbs(at, c0);
    e.writeLimbs(at + 36, c1);
  };
  const get = (at: number): [bigint, bigint] => {
    const c0 = e.readLimbs(at);
    const c1 = e.readLimbs(at + 36);
    assert.ok(c0 < 2n * p && c1 < 2n * p, 'coordinates below 2p');
    return [c0 % p, c1 % p];
  };
  const A2 = heap.alloc(128);
  const B2 = heap.alloc(128);
  const O2 = heap.alloc(128);
  test('mul (Karatsuba, one reduction per coordinate) and square: (a·b)/R per coordinate', () => {
    for (const [i, a] of values.entries()) {
      const b = values[(i * 7 + 5) % values.length]!;
      put(A2, a);
      put(B2, b);
      e.call('fq2_mul', O2, A2, B2);
      const want0 = ((((a[0] * b[0] - a[1] * b[1]) % p) + p) * Rinv) % p;
      const want1 = ((a[0] * b[1] + a[1] * b[0]) * Rinv) % p;
      assert.deepEqual(get(O2), [want0, want1]);
      e.call('fq2_square', O2, A2);
      const sq0 = ((((a[0] * a[0] - a[1] * a[1]) % p) + p) * Rinv) % p;
      const sq1 = (2n * a[0] * a[1] * Rinv) % p;
      assert.deepEqual(get(O2), [sq0, sq1]);
    }
  });
  test('mul with out the same as an input', () => {
    const a = values[9]!;
    const b = values[10]!;
    put(A2, a);
    put(B2, b);
    e.call('fq2_mul', O2, A2, B2);
    const want = get(O2);
    e.call('fq2_mul', A2, A2, B2);
    assert.deepEqual(get(A2), want);
    put(A2, a);
    e.call('fq2_mul', B2, A2, B2);
    assert.deepEqual(get(B2), want);
  });
});
