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
  // Key comparisons counted: a walk of every entry would compare each of the 200,000 keys.
  let looks = 0;
  const counting: KeyKind<bigint> = {
    hash: (k) => {
      looks++;
      return bigintKeys.hash(k);
    },
    equals: (a, b) => {
      looks++;
      return a === b;
    },
  };
  const big = PMap.from<bigint, number>(
    counting,
    Array.from({ length: 200_000 }, (_, i) => [BigInt(i) * 7919n, i] as const),
  );
  const next = big.set(5n, 1).delete(7919n);
  looks = 0;
  const changes: Change[] = [];
  big.diff(next, (k, before, after) => changes.push([k, before, after]));
  assert.deepEqual(sorted(changes), [
    [5n, undefined, 1],
    [7919n, 1, undefined],
  ]);
  // Only the entries beside the two changed paths are compared (a few per trie level), not the map.
  assert.ok(looks <= 2 * 7 * 32, `${looks} key comparisons for a two-entry difference`);
  assert.ok(looks > 0);
});
