import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bigintKeys, type KeyKind, type MutablePMap, PMap, stringKeys } from '../../../src/util/pmap.ts';
import { prng } from '../../utils/prng.ts';

function randomHex(rand: () => number, chars: number): string {
  let out = '';
  while (out.length < chars)
    out += Math.floor(rand() * 0x100000000)
      .toString(16)
      .padStart(8, '0');
  return out.slice(0, chars);
}

/** A random 254-bit field-element-like bigint. */
function randomField(rand: () => number): bigint {
  return BigInt(`0x${randomHex(rand, 64)}`) >> 2n;
}

const mod4Keys: KeyKind<bigint> = { hash: (k) => Number(k % 4n), equals: (a, b) => a === b };
const constantKeys: KeyKind<bigint> = { hash: () => 7, equals: (a, b) => a === b };
/** Only 8 distinct hashes, all equal in their low 29 bits: long shared trie paths, then collisions. */
const coarseKeys: KeyKind<bigint> = { hash: (k) => Number(k % 8n) << 29, equals: (a, b) => a === b };
/** Hashes with 16 zero low bits (three shared trie levels), distinct for keys below 2^16. */
const deepKeys: KeyKind<bigint> = { hash: (k) => Number(k & 0xffffn) << 16, equals: (a, b) => a === b };

interface Case<K> {
  readonly name: string;
  readonly kind: KeyKind<K>;
  readonly universe: readonly K[];
}

function cases(): Case<unknown>[] {
  const rand = prng(12345);
  const small = Array.from({ length: 150 }, (_, i) => BigInt(i));
  const big = Array.from({ length: 150 }, () => randomField(rand));
  const strings = Array.from({ length: 300 }, () => randomHex(rand, 64));
  return [
    { name: 'bigintKeys', kind: bigintKeys, universe: [...small, ...big] },
    { name: 'stringKeys', kind: stringKeys, universe: strings },
    { name: 'k % 4 hash', kind: mod4Keys, universe: Array.from({ length: 200 }, (_, i) => BigInt(i)) },
    { name: 'constant hash', kind: constantKeys, universe: Array.from({ length: 60 }, (_, i) => BigInt(i)) },
    { name: 'coarse hash', kind: coarseKeys, universe: Array.from({ length: 200 }, (_, i) => BigInt(i * 3)) },
  ] as Case<unknown>[];
}

type Reader<K, V> = Pick<MutablePMap<K, V>, 'size' | 'get' | 'has'>;

/** size, get and has over the whole key universe agree with the model. */
function checkLookups<K, V>(m: Reader<K, V>, model: Map<K, V>, universe: readonly K[], where: string): void {
  assert.equal(m.size, model.size, `${where}: size`);
  for (const k of universe) {
    assert.equal(m.get(k), model.get(k), `${where}: get(${String(k)})`);
    assert.equal(m.has(k), model.has(k), `${where}: has(${String(k)})`);
  }
}

/** Lookups plus entries/keys/values as sets, each entry exactly once. */
function checkEqual<K, V>(m: PMap<K, V>, model: Map<K, V>, universe: readonly K[], where: string): void {
  checkLookups(m, model, universe, where);
  const seen = new Map<K, V>();
  for (const [k, v] of m.entries()) {
    assert.ok(!seen.has(k), `${where}: key ${String(k)} iterated twice`);
    assert.ok(model.has(k), `${where}: extra key ${String(k)}`);
    assert.equal(v, model.get(k), `${where}: value of ${String(k)}`);
    seen.set(k, v);
  }
  assert.equal(seen.size, model.size, `${where}: entry count`);
  const keys = [...m.keys()];
  const values = [...m.values()];
  assert.deepEqual(
    keys.map((k, i) => [k, values[i]]),
    [...m.entries()],
    `${where}: keys/values/entries agree`,
  );
  const each: [K, V][] = [];
  m.forEach((v, k) => {
    each.push([k, v]);
  });
  assert.deepEqual(each, [...m.entries()], `${where}: forEach order`);
}

type Op<K> = { set: K; value: number | undefined } | { del: K };

function randomOp<K>(rand: () => number, universe: readonly K[], model: Map<K, unknown>): Op<K> {
  const key = universe[Math.floor(rand() * universe.length)]!;
  const r = rand();
  if (r < 0.05 && model.has(key)) return { set: key, value: model.get(key) as number | undefined };
  if (r < 0.08) return { set: key, value: undefined };
  if (r < 0.6) return { set: key, value: Math.floor(rand() * 1000) };
  return { del: key };
}

function applyModel<K>(model: Map<K, unknown>, op: Op<K>): void {
  if ('del' in op) model.delete(op.del);
  else model.set(op.set, op.value);
}

function applyPersistent<K>(m: PMap<K, unknown>, op: Op<K>): PMap<K, unknown> {
  return 'del' in op ? m.delete(op.del) : m.set(op.set, op.value);
}

function applyMutable<K>(m: MutablePMap<K, unknown>, op: Op<K>): void {
  if ('del' in op) m.delete(op.del);
  else m.set(op.set, op.value);
}

for (const c of cases()) {
  test(`model test against a native Map, with persistence of every version (${c.name})`, () => {
    const rand = prng(c.name.length * 7919 + 17);
    const steps = 6000;
    let m = PMap.empty<unknown, unknown>(c.kind);
    const model = new Map<unknown, unknown>();
    const snapshots: { map: PMap<unknown, unknown>; copy: Map<unknown, unknown>; step: number }[] = [];
    for (let step = 0; step < steps; step++) {
      if (step % (steps / 50) === 0) snapshots.push({ map: m, copy: new Map(model), step });
      if (step % 500 === 250) {
        // A batch: checked against the model inside, and the source must be untouched afterwards.
        const source = m;
        const sourceCopy = new Map(model);
        const ops = Array.from({ length: 1 + Math.floor(rand() * 120) }, () =>
          randomOp(rand, c.universe, model),
        );
        m = m.withMutations((t) => {
          for (const [i, op] of ops.entries()) {
            applyMutable(t, op);
            applyModel(model, op);
            if (i % 20 === 0) checkLookups(t, model, c.universe, `${c.name} batch at ${step}/${i}`);
          }
        });
        checkEqual(source, sourceCopy, c.universe, `${c.name} batch source at ${step}`);
        checkEqual(m, model, c.universe, `${c.name} after batch at ${step}`);
        // The same operations applied persistently give the very same map, in the same order.
        let p = source;
        for (const op of ops) p = applyPersistent(p, op);
        assert.deepEqual([...p.entries()], [...m.entries()], `${c.name} batch vs persistent at ${step}`);
        continue;
      }
      if (step % 500 === 400) {
        // A batch that throws halfway leaves the source as it was.
        const source = m;
        const sourceCopy = new Map(model);
        const scratch = new Map(model);
        assert.throws(
          () =>
            m.withMutations((t) => {
              for (let i = 0; i < 60; i++) {
                const op = randomOp(rand, c.universe, scratch);
                applyMutable(t, op);
                applyModel(scratch, op);
              }
              throw new Error('abort batch');
            }),
          /abort batch/,
        );
        assert.equal(m, source);
        checkEqual(m, sourceCopy, c.universe, `${c.name} after aborted batch at ${step}`);
        continue;
      }
      const op = randomOp(rand, c.universe, model);
      const before = m;
      const unchanged =
        'del' in op ? !model.has(op.del) : model.has(op.set) && model.get(op.set) === op.value;
      m = applyPersistent(m, op);
      applyModel(model, op);
      if (unchanged) assert.equal(m, before, `${c.name}: no-op update at ${step} returns the same map`);
      else assert.notEqual(m, before, `${c.name}: update at ${step} returns a new map`);
      if (step % 40 === 0) checkEqual(m, model, c.universe, `${c.name} step ${step}`);
    }
    checkEqual(m, model, c.universe, `${c.name} final`);
    assert.equal(snapshots.length, 50);
    for (const s of snapshots) checkEqual(s.map, s.copy, c.universe, `${c.name} snapshot of step ${s.step}`);
    // Emptying the map entirely.
    for (const k of c.universe) m = m.delete(k);
    checkEqual(m, new Map(), c.universe, `${c.name} emptied`);
    assert.deepEqual(m.debugNodes().length, 1);
  });
}

test('forks of one map never affect each other', () => {
  const rand = prng(99);
  const keys = Array.from({ length: 3000 }, () => randomField(rand));
  const base = PMap.from(
    bigintKeys,
    keys.map((k, i) => [k, i] as const),
  );
  const baseCopy = new Map(keys.map((k, i) => [k, i] as const));
  const forks = Array.from({ length: 20 }, (_, f) => {
    const copy = new Map(baseCopy);
    let m = base;
    for (let i = 0; i < 200; i++) {
      const k = rand() < 0.5 ? keys[Math.floor(rand() * keys.length)]! : randomField(rand);
      if (rand() < 0.3) {
        m = m.delete(k);
        copy.delete(k);
      } else {
        m = m.set(k, f * 10000 + i);
        copy.set(k, f * 10000 + i);
      }
    }
    // Half of the forks continue with a batch on top.
    if (f % 2 === 0) {
      m = m.withMutations((t) => {
        for (let i = 0; i < 300; i++) {
          const k = keys[Math.floor(rand() * keys.length)]!;
          t.set(k, -i);
          copy.set(k, -i);
        }
      });
    }
    return { m, copy };
  });
  checkEqual(base, baseCopy, keys, 'base');
  for (const [f, { m, copy }] of forks.entries()) checkEqual(m, copy, [...copy.keys(), ...keys], `fork ${f}`);
});

test('withMutations equals the same operations applied persistently', () => {
  const rand = prng(4242);
  const universe = Array.from({ length: 5000 }, (_, i) => (i % 2 === 0 ? BigInt(i) : randomField(rand)));
  const start = PMap.from<bigint, unknown>(
    bigintKeys,
    universe.slice(0, 2000).map((k, i) => [k, i] as const),
  );
  const ops = Array.from({ length: 4000 }, () => randomOp(rand, universe, new Map<bigint, unknown>()));
  let persistent = start;
  for (const op of ops) persistent = applyPersistent(persistent, op);
  const batched = start.withMutations((t) => {
    for (const op of ops) applyMutable(t, op);
  });
  assert.equal(batched.size, persistent.size);
  assert.deepEqual([...batched.entries()], [...persistent.entries()]);
  assert.equal(batched.debugNodes().length, persistent.debugNodes().length);
  // A batch that changes nothing returns the map itself.
  assert.equal(
    start.withMutations((t) => {
      t.get(universe[0]!);
    }),
    start,
  );
  const k0 = universe[0]!;
  assert.equal(
    start.withMutations((t) => t.set(k0, start.get(k0)!)),
    start,
  );
});

test('a MutablePMap used after its batch ended throws', () => {
  const m = PMap.from(bigintKeys, [
    [1n, 'a'],
    [2n, 'b'],
  ]);
  let escaped: MutablePMap<bigint, string> | undefined;
  const next = m.withMutations((t) => {
    t.set(3n, 'c');
    escaped = t;
  });
  assert.ok(escaped);
  const t = escaped;
  assert.throws(() => t.set(4n, 'd'), /after its withMutations batch ended/);
  assert.throws(() => t.delete(1n), /after its withMutations batch ended/);
  assert.throws(() => t.get(1n), /after its withMutations batch ended/);
  assert.throws(() => t.has(1n), /after its withMutations batch ended/);
  assert.throws(() => t.size, /after its withMutations batch ended/);
  assert.deepEqual(new Map(next.entries()), new Map([...m.entries(), [3n, 'c']]));
  assert.equal(m.size, 2);
  // Also after a batch that threw.
  assert.throws(
    () =>
      m.withMutations((t2) => {
        escaped = t2;
        throw new Error('x');
      }),
    { message: 'x' },
  );
  assert.throws(() => escaped!.set(5n, 'e'), /after its withMutations batch ended/);
});

test('a batch never writes into nodes of another batch result or of its source', () => {
  const rand = prng(7);
  const keys = Array.from({ length: 2000 }, () => randomField(rand));
  const a = PMap.from<bigint, number>(
    bigintKeys,
    keys.map((k) => [k, 1] as const),
  );
  const aEntries = [...a.entries()];
  const b = a.withMutations((t) => {
    for (const k of keys.slice(0, 500)) t.set(k, 2);
  });
  const bEntries = [...b.entries()];
  const c = b.withMutations((t) => {
    for (const k of keys.slice(0, 1000)) t.set(k, 3);
    for (const k of keys.slice(1500)) t.delete(k);
  });
  const d = b.set(keys[0]!, 4).delete(keys[1]!);
  assert.deepEqual([...a.entries()], aEntries);
  assert.deepEqual([...b.entries()], bEntries);
  assert.equal(c.size, 1500);
  assert.equal(c.get(keys[999]!), 3);
  assert.equal(c.get(keys[1000]!), 1);
  assert.equal(d.get(keys[0]!), 4);
  assert.equal(d.has(keys[1]!), false);
  assert.equal(d.get(keys[2]!), 2);
});

test('a batch updates the nodes it created in place', () => {
  const rand = prng(8);
  const keys = Array.from({ length: 20_000 }, () => randomField(rand));
  const m = PMap.from(
    bigintKeys,
    keys.map((k, i) => [k, i] as const),
  );
  // Deliberate cast: `debugNodes` is on the batch's implementation, kept off the `MutablePMap` interface.
  const nodesOf = (t: MutablePMap<bigint, number>) =>
    (t as unknown as { debugNodes(): object[] }).debugNodes();
  const touched = keys.slice(0, 300);
  let freshAfterFirstPass = 0;
  let freshAfterSecondPass = -1;
  const next = m.withMutations((t) => {
    const source = new Set(m.debugNodes());
    for (const k of touched) t.set(k, -1);
    const afterFirst = nodesOf(t);
    freshAfterFirstPass = afterFirst.filter((n) => !source.has(n)).length;
    const seen = new Set(afterFirst);
    for (const k of touched) t.set(k, -2);
    for (const k of touched.slice(0, 100)) t.delete(k);
    freshAfterSecondPass = nodesOf(t).filter((n) => !seen.has(n)).length;
  });
  assert.ok(freshAfterFirstPass > 300, `the first pass copies the touched paths (${freshAfterFirstPass})`);
  assert.equal(freshAfterSecondPass, 0, 'later updates of the same paths allocate no node');
  assert.equal(next.size, keys.length - 100);
  assert.equal(next.get(touched[200]!), -2);
  assert.equal(m.get(touched[200]!), 200);
});

function shuffle<T>(xs: readonly T[], rand: () => number): T[] {
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

test('iteration order is a function of the contents only', () => {
  const rand = prng(2024);
  const bigs = [
    ...Array.from({ length: 3000 }, () => randomField(rand)),
    ...Array.from({ length: 500 }, (_, i) => BigInt(i)),
  ];
  const strs = Array.from({ length: 3000 }, () => randomHex(rand, 64));
  const check = <K>(kind: KeyKind<K>, keys: readonly K[], name: string) => {
    const keep = keys.slice(0, keys.length / 2);
    const extra = keys.slice(keys.length / 2);
    const orders: [K, number][][] = [];
    const value = (k: K) => keys.indexOf(k);
    for (let round = 0; round < 4; round++) {
      let m = PMap.empty<K, number>(kind);
      if (round === 0) {
        // Only the kept keys, in their given order.
        for (const k of keep) m = m.set(k, value(k));
      } else if (round < 3) {
        // Everything in a random order, then the extra half deleted in another random order, so
        // that the shapes reached by deletion are compared with those reached by insertion.
        for (const k of shuffle(keys, rand)) m = m.set(k, -1);
        for (const k of shuffle(extra, rand)) m = m.delete(k);
        for (const k of keep) m = m.set(k, value(k));
      } else {
        // The same in one batch, interleaving inserts and deletes.
        m = m.withMutations((t) => {
          for (const k of shuffle(keys, rand)) {
            t.set(k, value(k));
            if (rand() < 0.3) t.delete(k);
          }
          for (const k of shuffle(extra, rand)) t.delete(k);
          for (const k of keep) t.set(k, value(k));
        });
      }
      assert.equal(m.size, keep.length);
      orders.push([...m.entries()]);
    }
    for (const o of orders.slice(1)) assert.deepEqual(o, orders[0], name);
    // Not simply insertion order.
    assert.notDeepEqual(
      orders[0]!.map(([k]) => k),
      keep,
    );
  };
  check(bigintKeys, bigs, 'bigintKeys');
  check(stringKeys, strs, 'stringKeys');
  check(
    deepKeys,
    shuffle(
      Array.from({ length: 3000 }, (_, i) => BigInt(i * 7)),
      rand,
    ),
    'deep hash prefixes',
  );
});

test('collision buckets iterate in insertion order of their present keys', () => {
  let m = PMap.empty<bigint, string>(mod4Keys);
  for (const k of [8n, 1n, 4n, 0n, 5n, 12n]) m = m.set(k, `v${k}`);
  const bucket0 = [...m.keys()].filter((k) => k % 4n === 0n);
  assert.deepEqual(bucket0, [8n, 4n, 0n, 12n]);
  // Overwriting keeps the position, deleting and re-adding moves a key to the end.
  m = m.set(4n, 'w').delete(8n).set(8n, 'v8');
  assert.deepEqual(
    [...m.keys()].filter((k) => k % 4n === 0n),
    [4n, 0n, 12n, 8n],
  );
  assert.equal(m.get(4n), 'w');
  // A bucket shrinking to one key goes back to a plain entry; sizes stay right throughout.
  m = m.delete(4n).delete(0n).delete(12n);
  assert.deepEqual(
    new Map(m.entries()),
    new Map(Object.entries({ 8: 'v8', 1: 'v1', 5: 'v5' }).map(([k, v]) => [BigInt(k), v])),
  );
  assert.equal(m.size, 3);
});

test('identical set and absent delete return the same instance', () => {
  const rand = prng(5);
  const keys = Array.from({ length: 5000 }, () => randomField(rand));
  const value = { amount: 1n };
  let m = PMap.empty<bigint, object>(bigintKeys);
  for (const k of keys) m = m.set(k, value);
  for (const k of keys.slice(0, 200)) assert.equal(m.set(k, value), m);
  assert.notEqual(m.set(keys[0]!, { amount: 1n }), m);
  for (let i = 0; i < 200; i++) assert.equal(m.delete(randomField(rand)), m);
  // Also for colliding keys and for the empty map.
  let c = PMap.empty<bigint, number>(constantKeys);
  for (let i = 0n; i < 10n; i++) c = c.set(i, Number(i));
  assert.equal(c.set(3n, 3), c);
  assert.equal(c.delete(10n), c);
  const e = PMap.empty<string, number>(stringKeys);
  assert.equal(e.delete('x'), e);
  assert.equal(e.size, 0);
  assert.deepEqual([...e.entries()], []);
});

test('undefined values are present keys', () => {
  const m = PMap.empty<string, undefined | number>(stringKeys).set('a', undefined).set('b', 2);
  assert.equal(m.size, 2);
  assert.equal(m.has('a'), true);
  assert.equal(m.get('a'), undefined);
  assert.equal(m.has('c'), false);
  assert.equal(m.set('a', undefined), m);
  assert.equal(m.delete('a').size, 1);
});

test('bigint keys of any size and sign hash and compare by value', () => {
  const rand = prng(31);
  const keys = [
    0n,
    1n,
    -1n,
    2n ** 32n,
    2n ** 32n + 1n,
    2n ** 254n - 1n,
    -(2n ** 200n),
    ...Array.from({ length: 2000 }, () => randomField(rand)),
  ];
  let m = PMap.empty<bigint, number>(bigintKeys);
  keys.forEach((k, i) => {
    m = m.set(k, i);
  });
  assert.equal(m.size, keys.length);
  keys.forEach((k, i) => {
    // A separately computed bigint with the same value.
    assert.equal(m.get(BigInt(k.toString())), i);
  });
  for (const k of keys)
    assert.equal(Number.isInteger(bigintKeys.hash(k)) && bigintKeys.hash(k) | 0, bigintKeys.hash(k));
});

test('sortedEntries sorts by the comparator', () => {
  const m = PMap.from(stringKeys, [
    ['c', 3],
    ['a', 1],
    ['b', 2],
  ]);
  assert.deepEqual(
    m.sortedEntries((x, y) => (x < y ? -1 : x > y ? 1 : 0)),
    [
      ['a', 1],
      ['b', 2],
      ['c', 3],
    ],
  );
});

test('an update of a 100k-entry map shares all but the path of nodes', () => {
  const rand = prng(100);
  const keys = Array.from({ length: 100_000 }, () => randomField(rand));
  const m = PMap.from(
    bigintKeys,
    keys.map((k, i) => [k, i] as const),
  );
  const nodes = m.debugNodes();
  assert.ok(nodes.length > 3000, `a 100k map has many nodes (${nodes.length})`);
  const old = new Set(nodes);
  const fresh = (next: PMap<bigint, number>) => next.debugNodes().filter((n) => !old.has(n)).length;
  // The trie is about 4 levels deep here; the path of an update is at most 8 nodes.
  for (let i = 0; i < 50; i++) {
    const k = keys[Math.floor(rand() * keys.length)]!;
    assert.ok(fresh(m.set(k, -1)) <= 6, 'overwrite');
    assert.ok(fresh(m.set(randomField(rand), -1)) <= 7, 'insert');
    assert.ok(fresh(m.delete(k)) <= 6, 'delete');
  }
  const batch = m.withMutations((t) => {
    for (let i = 0; i < 100; i++) t.set(keys[i]!, -i);
  });
  assert.ok(fresh(batch) <= 100 * 5, 'batch');
  assert.equal(new Set(m.debugNodes()).size, nodes.length, 'source unchanged');
  assert.equal(m.get(keys[0]!), 0);
});
