import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { type KvRange, type KvStore, LmdbKv, MemoryKv, readU64Key, u64Key } from '../../../src/storage/kv.ts';
import { hex, prng, randInt, tempDir } from '../../utils/storage.ts';

const b = (...bytes: number[]) => Uint8Array.from(bytes);
const keysOf = (it: Iterable<[Uint8Array, Uint8Array]>) => [...it].map(([k]) => hex(k));

const impls: { name: string; make(t: { after(fn: () => void): void }): KvStore }[] = [
  { name: 'MemoryKv', make: () => new MemoryKv() },
  {
    name: 'LmdbKv',
    make: (t) => {
      const kv = LmdbKv.open(join(tempDir(t), 'kv.mdb'));
      t.after(() => kv.close());
      return kv;
    },
  },
];

for (const impl of impls) {
  describe(`KvStore: ${impl.name}`, () => {
    test('put, get, has, del', async (t) => {
      const kv = impl.make(t);
      assert.equal(kv.get(1, b(1, 2)), undefined);
      assert.equal(kv.has(1, b(1, 2)), false);
      await kv.transaction((tx) => {
        tx.put(1, b(1, 2), b(9, 9));
        tx.put(2, b(1, 2), b(7));
        tx.put(1, b(), b(5)); // empty key within a bucket
        tx.put(1, b(3), b()); // empty value
      });
      assert.deepEqual(kv.get(1, b(1, 2)), b(9, 9));
      assert.deepEqual(kv.get(2, b(1, 2)), b(7));
      assert.deepEqual(kv.get(1, b()), b(5));
      assert.deepEqual(kv.get(1, b(3)), b());
      assert.equal(kv.has(1, b(3)), true);
      assert.equal(kv.get(3, b(1, 2)), undefined);
      await kv.transaction((tx) => {
        tx.del(1, b(1, 2));
        tx.del(1, b(4, 4)); // absent: no-op
        tx.put(2, b(1, 2), b(8));
      });
      assert.equal(kv.get(1, b(1, 2)), undefined);
      assert.equal(kv.has(1, b(1, 2)), false);
      assert.deepEqual(kv.get(2, b(1, 2)), b(8));
      // Later writes of one transaction win.
      await kv.transaction((tx) => {
        tx.put(5, b(1), b(1));
        tx.del(5, b(1));
        tx.put(5, b(2), b(1));
        tx.put(5, b(2), b(2));
      });
      assert.equal(kv.get(5, b(1)), undefined);
      assert.deepEqual(kv.get(5, b(2)), b(2));
    });

    test('returned values are independent copies of plain bytes', async (t) => {
      const kv = impl.make(t);
      const value = b(1, 2, 3);
      await kv.transaction((tx) => tx.put(1, b(1), value));
      value[0] = 99; // the caller's buffer is not aliased
      const got = kv.get(1, b(1))!;
      assert.deepEqual(got, b(1, 2, 3));
      assert.equal(Object.getPrototypeOf(got), Uint8Array.prototype);
      got[0] = 42;
      assert.deepEqual(kv.get(1, b(1)), b(1, 2, 3));
    });

    test('range stays within its bucket, in key order, with bounds, reverse and limit', async (t) => {
      const kv = impl.make(t);
      await kv.transaction((tx) => {
        for (const bucket of [2, 3, 4]) {
          tx.put(bucket, b(), b(bucket));
          for (let i = 0; i < 10; i++) tx.put(bucket, b(i * 2), b(bucket, i));
          tx.put(bucket, b(0xff, 0xff), b(bucket));
          tx.put(bucket, b(4, 0), b(bucket));
        }
      });
      const all = ['', '00', '02', '04', '0400', '06', '08', '0a', '0c', '0e', '10', '12', 'ffff'];
      assert.deepEqual(keysOf(kv.range(3)), all);
      assert.deepEqual(keysOf(kv.range(3, { reverse: true })), [...all].reverse());
      assert.deepEqual(keysOf(kv.range(3, { gte: b(4), lt: b(10) })), ['04', '0400', '06', '08']);
      assert.deepEqual(keysOf(kv.range(3, { gte: b(3), lt: b(9) })), ['04', '0400', '06', '08']);
      assert.deepEqual(keysOf(kv.range(3, { gte: b(4), lt: b(10), reverse: true })), [
        '08',
        '06',
        '0400',
        '04',
      ]);
      assert.deepEqual(keysOf(kv.range(3, { gte: b(3), lt: b(9), reverse: true })), [
        '08',
        '06',
        '0400',
        '04',
      ]);
      assert.deepEqual(keysOf(kv.range(3, { gte: b(4), limit: 3 })), ['04', '0400', '06']);
      assert.deepEqual(keysOf(kv.range(3, { lt: b(6), reverse: true, limit: 2 })), ['0400', '04']);
      assert.deepEqual(keysOf(kv.range(3, { gte: b(0x20) })), ['ffff']);
      assert.deepEqual(keysOf(kv.range(3, { gte: b(6), lt: b(6) })), []);
      assert.deepEqual(keysOf(kv.range(3, { gte: b(8), lt: b(6) })), []);
      assert.deepEqual(keysOf(kv.range(3, { limit: 0 })), []);
      assert.deepEqual(keysOf(kv.range(7)), []);
      assert.deepEqual(
        [...kv.range(3, { gte: b(2), limit: 1 })].map(([k, v]) => [hex(k), hex(v)]),
        [['02', '0301']],
      );
    });

    test('a transaction whose callback throws writes nothing', async (t) => {
      const kv = impl.make(t);
      await kv.transaction((tx) => tx.put(1, b(1), b(1)));
      const boom = new Error('boom');
      await assert.rejects(
        kv.transaction((tx) => {
          tx.put(1, b(2), b(2));
          tx.del(1, b(1));
          tx.put(2, b(2), b(2));
          throw boom;
        }),
        (e) => e === boom,
      );
      // A key too long for lmdb fails while the writes are collected, before anything is written.
      await assert.rejects(
        kv.transaction((tx) => {
          tx.put(1, b(3), b(3));
          tx.put(1, new Uint8Array(5000), b(3));
        }),
        RangeError,
      );
      assert.deepEqual(kv.get(1, b(1)), b(1));
      assert.equal(kv.get(1, b(2)), undefined);
      assert.equal(kv.get(1, b(3)), undefined);
      assert.equal(kv.get(2, b(2)), undefined);
      assert.deepEqual(keysOf(kv.range(1)), ['01']);
      // The store is still usable.
      await kv.transaction((tx) => tx.put(1, b(2), b(2)));
      assert.deepEqual(keysOf(kv.range(1)), ['01', '02']);
    });
  });
}

test('u64 keys sort in numeric order and round-trip', () => {
  const values = [0n, 1n, 255n, 256n, 65535n, 1n << 32n, (1n << 63n) + 5n, 0xffff_ffff_ffff_ffffn];
  for (const v of values) assert.equal(readU64Key(u64Key(v)), v);
  const sorted = values.map(u64Key).sort((a, c) => Buffer.compare(a, c));
  assert.deepEqual(
    sorted.map((k) => readU64Key(k)),
    values,
  );
  assert.deepEqual(u64Key(258n), b(0, 0, 0, 0, 0, 0, 1, 2));
  assert.equal(readU64Key(b(9, 0, 0, 0, 0, 0, 0, 0, 7), 1), 7n);
  assert.throws(() => u64Key(-1n), RangeError);
  assert.throws(() => u64Key(1n << 64n), RangeError);
  assert.throws(() => readU64Key(b(1, 2, 3)), RangeError);
});

test('MemoryKv and lmdb behave the same on a random operation sequence', async (t) => {
  const mem = new MemoryKv();
  const dir = tempDir(t);
  let lmdb = LmdbKv.open(join(dir, 'kv.mdb'));
  t.after(() => lmdb.close());
  const rand = prng(0x5eed_0001);
  // Few buckets and short keys from a small alphabet, so that keys collide, prefix each other and cross
  // bucket boundaries.
  const key = () =>
    Uint8Array.from({ length: randInt(rand, 0, 3) }, () => [0, 1, 2, 0x7f, 0xff][randInt(rand, 0, 4)]!);
  const bucket = () => randInt(rand, 0, 3);
  const compare = (label: string) => {
    for (let i = 0; i < 20; i++) {
      const bk = bucket();
      const k = key();
      assert.deepEqual(lmdb.get(bk, k), mem.get(bk, k), `${label}: get`);
      assert.equal(lmdb.has(bk, k), mem.has(bk, k), `${label}: has`);
      const range: KvRange = {
        gte: rand() < 0.6 ? key() : undefined,
        lt: rand() < 0.6 ? key() : undefined,
        reverse: rand() < 0.5,
        limit: rand() < 0.4 ? randInt(rand, 0, 6) : undefined,
      };
      assert.deepEqual([...lmdb.range(bk, range)], [...mem.range(bk, range)], `${label}: range ${bk}`);
    }
  };
  let written = 0;
  for (let round = 0; round < 400; round++) {
    const ops: [number, Uint8Array, Uint8Array | undefined][] = [];
    for (let i = randInt(rand, 1, 12); i > 0; i--)
      ops.push([
        bucket(),
        key(),
        rand() < 0.7
          ? Uint8Array.from({ length: randInt(rand, 0, 40) }, () => randInt(rand, 0, 255))
          : undefined,
      ]);
    const fails = rand() < 0.15;
    const body = (tx: {
      put(b: number, k: Uint8Array, v: Uint8Array): void;
      del(b: number, k: Uint8Array): void;
    }) => {
      for (const [bk, k, v] of ops) v === undefined ? tx.del(bk, k) : tx.put(bk, k, v);
      if (fails) throw new Error('abort');
    };
    const results = await Promise.allSettled([mem.transaction(body), lmdb.transaction(body)]);
    for (const r of results) assert.equal(r.status, fails ? 'rejected' : 'fulfilled');
    if (!fails) written += ops.length;
    compare(`round ${round}`);
    if (round === 200) {
      // Reopening keeps everything.
      await lmdb.close();
      lmdb = LmdbKv.open(join(dir, 'kv.mdb'));
      compare('after reopen');
    }
  }
  for (let bk = 0; bk <= 3; bk++) assert.deepEqual([...lmdb.range(bk)], [...mem.range(bk)]);
  assert.ok(written > 1000);
});

test('MemoryKv ranges iterate over a snapshot', async () => {
  const kv = new MemoryKv();
  await kv.transaction((tx) => {
    for (let i = 0; i < 5; i++) tx.put(1, b(i), b(i));
  });
  const seen: string[] = [];
  for (const [k] of kv.range(1)) {
    seen.push(hex(k));
    if (k[0] === 1) await kv.transaction((tx) => tx.del(1, b(3)));
  }
  assert.deepEqual(seen, ['00', '01', '02', '03', '04']);
  assert.deepEqual(keysOf(kv.range(1)), ['00', '01', '02', '04']);
});
