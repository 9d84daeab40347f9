import { bigintKeys, PMap } from '../src/util/pmap.ts';
import { xorshift32 as prng } from '../test/utils/prng.ts';
import { type Figure, rate } from './harness.ts';

/** `n` random 254-bit field-element-like bigints. */
function fieldKeys(n: number, seed: number): bigint[] {
  const next = prng(seed);
  const out = new Array<bigint>(n);
  for (let i = 0; i < n; i++) {
    let hex = '';
    for (let w = 0; w < 8; w++) hex += next().toString(16).padStart(8, '0');
    out[i] = BigInt(`0x${hex}`) >> 2n;
  }
  return out;
}

/** The small value object of the maps: a note-like record of two numbers. */
interface Note {
  readonly value: number;
  readonly slot: number;
}

function note(i: number): Note {
  return { value: i, slot: i & 0xff };
}

function build(keys: readonly bigint[], values: readonly Note[]): PMap<bigint, Note> {
  return PMap.empty<bigint, Note>(bigintKeys).withMutations((m) => {
    for (let i = 0; i < keys.length; i++) m.set(keys[i]!, values[i]!);
  });
}

interface Fixture {
  readonly keys: bigint[];
  readonly map: PMap<bigint, Note>;
}

const fixtures = new Map<number, Fixture>();
function fixture(n: number): Fixture {
  let f = fixtures.get(n);
  if (!f) {
    const keys = fieldKeys(n, n);
    f = {
      keys,
      map: build(
        keys,
        keys.map((_, i) => note(i)),
      ),
    };
    fixtures.set(n, f);
  }
  return f;
}

/** `count` operations: even ones overwrite a present key, odd ones insert an absent key. */
function mixedKeys(f: Fixture, count: number, seed: number): bigint[] {
  const next = prng(seed);
  const fresh = fieldKeys(count, seed + 1);
  return Array.from({ length: count }, (_, i) => (i % 2 === 0 ? f.keys[next() % f.keys.length]! : fresh[i]!));
}

const gc = (globalThis as { gc?: () => void }).gc;

function heapUsed(): number {
  if (gc) {
    gc();
    gc();
  }
  return process.memoryUsage().heapUsed;
}

function noteMemoryMethod(): void {
  if (!gc)
    console.error(
      'pmap memory figures: no global.gc (run with --expose-gc); heapUsed deltas are approximate',
    );
}

interface MemoryFigures {
  /** Keys, values and trie, per entry. */
  readonly total: number;
  /** The trie alone (keys and values already existed), per entry. */
  readonly structure: number;
}

let memory: MemoryFigures | undefined;
function measureMemory(): MemoryFigures {
  if (memory) return memory;
  noteMemoryMethod();
  const n = 1_000_000;
  const before = heapUsed();
  let keys: bigint[] | null = fieldKeys(n, 77);
  let values: Note[] | null = keys.map((_, i) => note(i));
  const withData = heapUsed();
  const map = build(keys, values);
  const withMap = heapUsed();
  // Release the arrays that held keys and values, so the total counts the map's reachable heap only.
  keys = null;
  values = null;
  const after = heapUsed();
  if (map.size !== n) throw new Error('pmap bench: wrong size');
  memory = { total: (after - before) / n, structure: (withMap - withData) / n };
  return memory;
}

function batchRate(f: Fixture): number {
  const batches = Array.from({ length: 4 }, (_, b) => mixedKeys(f, 4000, 100 + b));
  let b = 0;
  let sink = 0;
  const r = rate(() => {
    const keys = batches[b]!;
    b = (b + 1) & 3;
    const next = f.map.withMutations((m) => {
      for (let i = 0; i < keys.length; i++) m.set(keys[i]!, note(i));
    });
    sink += next.size;
  }, 4000);
  if (sink === 0) throw new Error('unreachable');
  return r;
}

export const figures: Figure[] = [
  {
    // Chains of 4,000 persistent sets (half overwrites, half inserts) from a 100k map: each set makes
    // the next version, as a block applied without withMutations would.
    name: 'pmap.set_per_s',
    unit: 'ops/s',
    measure() {
      const f = fixture(100_000);
      const batches = Array.from({ length: 4 }, (_, b) => mixedKeys(f, 4000, 100 + b));
      let b = 0;
      let sink = 0;
      const r = rate(() => {
        const keys = batches[b]!;
        b = (b + 1) & 3;
        let m = f.map;
        for (let i = 0; i < keys.length; i++) m = m.set(keys[i]!, note(i));
        sink += m.size;
      }, 4000);
      if (sink === 0) throw new Error('unreachable');
      return r;
    },
  },
  {
    // The same 100k map and the same 4,000 operations as pmap.set_per_s, each chain in one withMutations.
    name: 'pmap.batch_set_per_s',
    unit: 'ops/s',
    measure: () => batchRate(fixture(100_000)),
  },
  {
    // A block: 4,000 sets (half overwrites, half inserts) into a 1M map in one withMutations; the
    // batches rotate over 16,000 keys, so most trie paths are not in the CPU caches.
    name: 'pmap.block_batch_1m_per_s',
    unit: 'ops/s',
    measure: () => batchRate(fixture(1_000_000)),
  },
  {
    // Lookups of present keys, in random order, in a 1M map.
    name: 'pmap.get_per_s',
    unit: 'ops/s',
    measure() {
      const f = fixture(1_000_000);
      const next = prng(5);
      const keys = Array.from({ length: 8192 }, () => f.keys[next() % f.keys.length]!);
      let sink = 0;
      const r = rate(() => {
        for (let i = 0; i < keys.length; i++) sink += f.map.get(keys[i]!)!.slot;
      }, keys.length);
      if (sink < 0) throw new Error('unreachable');
      return r;
    },
  },
  {
    // Heap of a 1M map of 254-bit bigint keys -> {value, slot} objects, keys and values included
    // (global.gc with --expose-gc, else approximate process.memoryUsage deltas, noted on stderr).
    name: 'pmap.bytes_per_entry_1m',
    unit: 'bytes/entry',
    measure: () => measureMemory().total,
  },
  {
    // The same map, the trie only (its keys and values were allocated before the measurement).
    name: 'pmap.trie_bytes_per_entry_1m',
    unit: 'bytes/entry',
    measure: () => measureMemory().structure,
  },
  {
    // 200 chained block states on a 1M map, each a withMutations of 4,000 sets (half inserts) with
    // fresh values: the heap they retain beyond the base map, keys and values included.
    name: 'pmap.forks_mb_200x4k',
    unit: 'MB',
    measure() {
      noteMemoryMethod();
      const f = fixture(1_000_000);
      const next = prng(9);
      const before = heapUsed();
      const states: PMap<bigint, Note>[] = [];
      let m = f.map;
      for (let s = 0; s < 200; s++) {
        const fresh = fieldKeys(2000, 1000 + s);
        m = m.withMutations((t) => {
          for (let i = 0; i < 2000; i++) {
            t.set(f.keys[next() % f.keys.length]!, note(i));
            t.set(fresh[i]!, note(i));
          }
        });
        states.push(m);
      }
      const after = heapUsed();
      if (states.length !== 200) throw new Error('unreachable');
      return (after - before) / 2 ** 20;
    },
  },
];
