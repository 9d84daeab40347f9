/** PMap.diff against a naive diff of the two maps' entries, on random maps, derived maps and collisions. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bigintKeys, type KeyKind, PMap } from '../../../src/util/pmap.ts';
import { prng } from '../../utils/prng.ts';

type Change = [bigint, number | undefined, number | undefined];

function naive(a: PMap<bigint, number>, b: PMap<bigint, number>): Change[] {
  const out: Change[] = [];
  for (const [k, v] of a) {
    const w = b.get(k);
    if (!b.has(k)) out.push([k, v, undefined]);
    else if (w !== v) out.push([k, v, w]);
  }
  for (const [k, w] of b) if (!a.has(k)) out.push([k, undefined, w]);
  return sorted(out);
}

function viaDiff(a: PMap<bigint, number>, b: PMap<bigint, number>): Change[] {
  const out: Change[] = [];
  a.diff(b, (k, before, after) => out.push([k, before, after]));
  return sorted(out);
}

const sorted = (c: Change[]) => c.sort((x, y) => (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0));

const smallHash: KeyKind<bigint> = { hash: (k) => Number(k % 7n), equals: (a, b) => a === b };

for (const [name, kind] of [
  ['bigint keys', bigintKeys],
  ['colliding keys (7 hashes)', smallHash],
] as const) {
  test(`diff equals the naive diff on random and derived maps (${name})`, () => {
    const rand = prng(name.length);
    for (let round = 0; round < 60; round++) {
      const n = Math.floor(rand() * 400);
      const base = PMap.from<bigint, number>(
        kind,
        Array.from({ length: n }, () => [BigInt(Math.floor(rand() * 1000)), Math.floor(rand() * 5)] as const),
      );
      // A map derived by a few updates (shares structure) and an unrelated one.
      let derived = base;
      const changes = Math.floor(rand() * 20);
      for (let i = 0; i < changes; i++) {
        const k = BigInt(Math.floor(rand() * 1000));
        const r = rand();
        derived = r < 0.4 ? derived.delete(k) : derived.set(k, Math.floor(rand() * 5));
      }
      const other = PMap.from<bigint, number>(
        kind,
        Array.from(
          { length: Math.floor(rand() * 50) },
          () => [BigInt(Math.floor(rand() * 1000)), 1] as const,
        ),
      );
      for (const [a, b] of [
        [base, derived],
        [derived, base],
        [base, other],
        [other, base],
        [PMap.empty<bigint, number>(kind), base],
        [base, PMap.empty<bigint, number>(kind)],
        [base, base],
      ] as const) {
        assert.deepEqual(viaDiff(a, b), naive(a, b));
      }
    }
  });
}

test('diff of a large map and a derived one visits only the changed paths', () => {
  const big = PMap.from<bigint, number>(
    bigintKeys,
    Array.from({ length: 200_000 }, (_, i) => [BigInt(i) * 7919n, i] as const),
  );
  const next = big.set(5n, 1).delete(7919n);
  const t0 = performance.now();
  let calls = 0;
  for (let i = 0; i < 1000; i++) big.diff(next, () => calls++);
  assert.equal(calls, 2000);
  // 1,000 diffs of a 200,000-entry map in well under a second: no full walk.
  assert.ok(performance.now() - t0 < 1000);
});
