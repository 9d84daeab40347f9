/**
 * MSMs against a sum of scalar multiplications by @noble/curves, on G1 and G2: random scalars and
 * the ones that stress the bucket method — 0, 1, r − 1, many equal scalars (every pair of a batch
 * meets the same bucket), scalars sharing their high windows — for sizes from 1 point to a few
 * hundred, window widths chosen as the prover does and forced small, with the windows split between
 * tasks as threads split them.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  combineWindows,
  msmWindows,
  POINT_BYTES,
  taskHeapBytes,
  windowBits,
  windowsOf,
} from '../../src/msm.ts';
import { engine, FR_MODULUS, G1, G2, random, readG1, readG2, writeG1, writeG2 } from '../helpers.ts';

const { heap, e } = engine();

/** A point of G1 or G2 (noble types them apart). */
interface Pt {
  add(p: Pt): Pt;
  multiply(k: bigint): Pt;
  equals(p: Pt): boolean;
}

for (const curve of ['g1', 'g2'] as const) {
  const G = (curve === 'g1' ? G1 : G2) as unknown as { BASE: Pt; ZERO: Pt };
  const b = POINT_BYTES[curve];
  const rnd = random(curve === 'g1' ? 21 : 22);
  describe(`${curve} MSM`, () => {
    const cases: { name: string; n: number; scalar: (i: number) => bigint; c?: number }[] = [
      { name: 'one point', n: 1, scalar: () => rnd(FR_MODULUS) },
      { name: 'random scalars', n: 150, scalar: () => rnd(FR_MODULUS) },
      {
        name: '0, 1, r − 1 and small ones',
        n: 40,
        scalar: (i) => [0n, 1n, FR_MODULUS - 1n, BigInt(i), FR_MODULUS - BigInt(i)][i % 5]!,
      },
      { name: 'all equal (one bucket a window)', n: 300, scalar: () => 123456789n << 100n },
      { name: 'shared high windows (r − small)', n: 300, scalar: (i) => FR_MODULUS - 1n - BigInt(i % 17) },
      { name: 'window of 3 bits', n: 60, scalar: () => rnd(FR_MODULUS), c: 3 },
    ];
    for (const k of cases) {
      test(k.name, () => {
        const base = Array.from({ length: 8 }, () => G.BASE.multiply(rnd(FR_MODULUS - 1n) + 1n));
        const P = Array.from({ length: k.n }, (_, i) => base[i % 8]!.multiply(BigInt(i + 1)));
        const S = Array.from({ length: k.n }, (_, i) => k.scalar(i));
        const pts = heap.alloc(k.n * b.affine);
        const sc = heap.alloc(k.n * 36);
        P.forEach((p, i) => {
          if (curve === 'g1') writeG1(e, pts + i * b.affine, p as never);
          else writeG2(e, pts + i * b.affine, p as never);
          e.writeLimbs(sc + i * 36, S[i]!);
        });
        const c = k.c ?? windowBits(k.n);
        const win = windowsOf(c);
        const mid = Math.floor(win.count / 2);
        const sums = heap.alloc(win.count * b.jacobian);
        const input = { curve, points: pts, count: k.n, scalars: sc, indices: 0, c };
        for (const [w0, w1] of [
          [0, mid],
          [mid, win.count],
        ] as const) {
          const h = heap.alloc(taskHeapBytes(curve, c, w0, w1));
          assert.ok(msmWindows(e, input, w0, w1, h, sums + w0 * b.jacobian));
        }
        const out = heap.alloc(b.jacobian);
        const aff = heap.alloc(b.affine);
        combineWindows(e, curve, c, sums, win.count, out);
        e.call(`${curve}_toAffine`, aff, out);
        let want = G.ZERO;
        P.forEach((p, i) => {
          if (S[i]! % FR_MODULUS !== 0n) want = want.add(p.multiply(S[i]! % FR_MODULUS));
        });
        const got = curve === 'g1' ? readG1(e, aff) : readG2(e, aff);
        assert.ok((got as unknown as Pt).equals(want));
      });
    }
  });
}

test('window layout: the top window takes the bits left and merges when fewer than 3', () => {
  assert.deepEqual(windowsOf(11), { c: 11, count: 23, topBits: 12 });
  assert.deepEqual(windowsOf(10), { c: 10, count: 26, topBits: 4 });
  assert.deepEqual(windowsOf(16), { c: 16, count: 16, topBits: 14 });
  for (let c = 2; c <= 16; c++) {
    const w = windowsOf(c);
    assert.equal((w.count - 1) * c + w.topBits, 254);
    assert.ok(w.topBits >= 3 || w.count === 1);
  }
});

describe('shifted bases: a copy per window, shared buckets', () => {
  for (const curve of ['g1', 'g2'] as const) {
    test(`${curve}: copies made by batch doubling; the MSM split in tasks equals noble's`, () => {
      const G = (curve === 'g1' ? G1 : G2) as unknown as { BASE: Pt; ZERO: Pt };
      const b = POINT_BYTES[curve];
      const rnd = random(curve === 'g1' ? 31 : 32);
      const n = 40;
      const c = 5;
      const win = windowsOf(c);
      const P = Array.from({ length: n }, () => G.BASE.multiply(rnd(FR_MODULUS - 1n) + 1n));
      const S = Array.from({ length: n }, (_, i) =>
        i === 3 ? 0n : i === 4 ? FR_MODULUS - 1n : rnd(FR_MODULUS),
      );
      const pts = heap.alloc(win.count * n * b.affine);
      P.forEach((p, i) => {
        if (curve === 'g1') writeG1(e, pts + i * b.affine, p as never);
        else writeG2(e, pts + i * b.affine, p as never);
      });
      const tmp = heap.alloc(2 * n * b.field);
      for (let w = 1; w < win.count; w++) {
        const at = pts + w * n * b.affine;
        e.u8.copyWithin(at, at - n * b.affine, at);
        for (let k = 0; k < c; k++) e.call(`${curve}_batchDouble`, at, n, tmp);
      }
      const last = (curve === 'g1' ? readG1 : readG2)(e, pts + ((win.count - 1) * n + 7) * b.affine);
      assert.ok((last as unknown as Pt).equals(P[7]!.multiply(2n ** BigInt(c * (win.count - 1)))));
      const sc = heap.alloc(n * 36);
      S.forEach((k, i) => {
        e.writeLimbs(sc + i * 36, k);
      });
      const input = { curve, points: pts, count: n, scalars: sc, indices: 0, c, shifted: true };
      const out = heap.alloc(4 * b.jacobian);
      const mid = Math.floor(win.count / 2);
      for (const [w0, w1, slot] of [
        [0, mid, 0],
        [mid, win.count, 2],
      ] as const) {
        const h = heap.alloc(taskHeapBytes(curve, c, w0, w1, true));
        assert.ok(msmWindows(e, input, w0, w1, h, out + slot * b.jacobian));
      }
      const acc = heap.alloc(b.jacobian);
      e.u8.copyWithin(acc, out, out + b.jacobian);
      for (let k = 1; k < 4; k++) e.call(`${curve}_jacAdd`, acc, acc, out + k * b.jacobian);
      const aff = heap.alloc(b.affine);
      e.call(`${curve}_toAffine`, aff, acc);
      let want = G.ZERO;
      P.forEach((p, i) => {
        if (S[i]! !== 0n) want = want.add(p.multiply(S[i]!));
      });
      const got = curve === 'g1' ? readG1(e, aff) : readG2(e, aff);
      assert.ok((got as unknown as Pt).equals(want));
    });
  }
});
