/**
 * The generated G1 and G2 arithmetic against @noble/curves: Jacobian doubling and additions with
 * their exceptional cases (infinity, P + P, P − P), conversions, and the batch-affine kernel over
 * pairs that fill empty buckets, add, double and cancel, with negated points.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { POINT_BYTES } from '../../src/msm.ts';
import { engine, FR_MODULUS, G1, G2, random, readG1, readG2, writeG1, writeG2 } from '../helpers.ts';

const { heap, e } = engine();
/** A point of G1 or G2 (noble types them apart). */
interface Pt {
  add(p: Pt): Pt;
  double(): Pt;
  multiply(k: bigint): Pt;
  negate(): Pt;
  equals(p: Pt): boolean;
}
/** Point equality across G1 and G2. */
const same = (a: unknown, b: unknown): boolean => (a as { equals(x: unknown): boolean }).equals(b);

for (const curve of ['g1', 'g2'] as const) {
  const G = (curve === 'g1' ? G1 : G2) as unknown as { BASE: Pt; ZERO: Pt };
  const write = (at: number, p: Pt) =>
    curve === 'g1' ? writeG1(e, at, p as never) : writeG2(e, at, p as never);
  const read = (at: number) => (curve === 'g1' ? readG1(e, at) : readG2(e, at));
  const b = POINT_BYTES[curve];
  const rnd = random(curve === 'g1' ? 11 : 12);
  const point = () => G.BASE.multiply(rnd(FR_MODULUS - 1n) + 1n);

  describe(`${curve}: point arithmetic`, () => {
    const aff = heap.alloc(b.affine);
    const aff2 = heap.alloc(b.affine);
    const jac = heap.alloc(b.jacobian);
    const jac2 = heap.alloc(b.jacobian);
    const out = heap.alloc(b.affine);
    const toAffine = (j: number) => {
      e.call(`${curve}_toAffine`, out, j);
      return read(out);
    };

    test('double, add an affine point, add a Jacobian one', () => {
      for (let k = 0; k < 10; k++) {
        const P = point();
        const Q = point();
        write(aff, P);
        write(aff2, Q);
        e.call(`${curve}_fromAffine`, jac, aff);
        e.call(`${curve}_jacDouble`, jac, jac);
        assert.ok(same(toAffine(jac), P.double()));
        e.call(`${curve}_jacAddAffine`, jac, jac, aff2);
        assert.ok(same(toAffine(jac), P.double().add(Q)));
        e.call(`${curve}_fromAffine`, jac2, aff2);
        e.call(`${curve}_jacDouble`, jac2, jac2);
        e.call(`${curve}_jacAdd`, jac, jac, jac2);
        assert.ok(same(toAffine(jac), P.double().add(Q.multiply(3n))));
      }
    });

    test('exceptional cases: infinity on either side, P + P, P + (−P)', () => {
      const P = point();
      write(aff, P);
      e.u8.fill(0, aff2, aff2 + b.affine);
      assert.equal(e.call(`${curve}_affineIsInfinity`, aff2), 1);
      e.call(`${curve}_fromAffine`, jac, aff2);
      assert.ok(same(toAffine(jac), G.ZERO), 'infinity stays infinity');
      e.call(`${curve}_jacAddAffine`, jac, jac, aff);
      assert.ok(same(toAffine(jac), P), '∞ + P');
      e.call(`${curve}_jacAddAffine`, jac, jac, aff2);
      assert.ok(same(toAffine(jac), P), 'P + ∞');
      e.call(`${curve}_jacAddAffine`, jac, jac, aff);
      assert.ok(same(toAffine(jac), P.double()), 'P + P (mixed)');
      e.call(`${curve}_fromAffine`, jac, aff);
      e.call(`${curve}_fromAffine`, jac2, aff);
      e.call(`${curve}_jacAdd`, jac, jac, jac2);
      assert.ok(same(toAffine(jac), P.double()), 'P + P');
      write(aff2, P.negate());
      e.call(`${curve}_fromAffine`, jac, aff);
      e.call(`${curve}_jacAddAffine`, jac, jac, aff2);
      assert.ok(same(toAffine(jac), G.ZERO), 'P − P (mixed)');
      e.call(`${curve}_fromAffine`, jac2, aff2);
      e.call(`${curve}_fromAffine`, jac, aff);
      e.call(`${curve}_jacAdd`, jac, jac, jac2);
      assert.ok(same(toAffine(jac), G.ZERO), 'P − P');
    });

    test('batch-affine kernel: fills, additions, doublings and cancellations, signs', () => {
      const nb = 16;
      const np = 48;
      const buckets = heap.alloc(nb * b.affine);
      const flags = heap.alloc(nb);
      const pts = heap.alloc(np * b.affine);
      const pairs = heap.alloc(np * 8);
      const tmp = heap.alloc(np * (2 * b.field + 1));
      const P = Array.from({ length: np }, (_, i) => (i < 8 ? point() : undefined));
      // Points 8.. repeat earlier ones so that x coordinates meet: doublings and cancellations.
      for (let i = 8; i < np; i++) P[i] = P[i % 8]!;
      P.forEach((p, i) => {
        write(pts + i * b.affine, p!);
      });
      e.u8.fill(0, flags, flags + nb);
      const want = Array.from({ length: nb }, () => G.ZERO);
      let batch: [number, number][] = [];
      const flush = () => {
        batch.forEach(([bk, ref], j) => {
          e.i32[(pairs >>> 2) + j * 2] = bk;
          e.i32[(pairs >>> 2) + j * 2 + 1] = ref;
        });
        e.call(`${curve}_batchAdd`, buckets, flags, pts, pairs, batch.length, tmp);
        batch = [];
      };
      for (let i = 0; i < np; i++) {
        const bucket = i % nb;
        const negative = i % 3 === 1 ? 1 : 0;
        if (batch.some(([bk]) => bk === bucket)) flush();
        batch.push([bucket, i * 2 + negative]);
        want[bucket] = want[bucket]!.add(negative ? P[i]!.negate() : P[i]!);
      }
      flush();
      for (let k = 0; k < nb; k++) {
        const empty = want[k]!.equals(G.ZERO);
        assert.equal(e.u8[flags + k], empty ? 0 : 1, `bucket ${k} flag`);
        if (!empty) assert.ok(same(read(buckets + k * b.affine), want[k]!), `bucket ${k}`);
      }
    });
  });
}
