/**
 * Multi-scalar multiplication, Σ k_i·P_i, by the bucket method (Pippenger) with signed digits and
 * batch-affine bucket additions:
 * - each scalar is cut into windows of c bits, recoded to digits in [−2^(c−1), 2^(c−1)] so that a
 *   window needs 2^(c−1) buckets and a negative digit adds the point's negation;
 * - the buckets of all the windows a task owns are filled together: pairs (bucket, ±point) are
 *   collected until a batch is full, no bucket twice in one batch (a pair whose bucket is already
 *   there waits for the next), then the engine adds the whole batch with one field inversion;
 * - each window's buckets are summed by running sums (Σ (j + 1)·B_j in 2·2^(c−1) additions), and the
 *   window sums combined by doubling (Horner), in the coordinating thread.
 * Zero scalars and points at infinity cost nothing: the first have no non-zero digit, the second are
 * left out when a key is loaded. A task is a range of windows, so threads share an MSM without
 * sharing buckets.
 */
import type { EngineInstance } from './engine/instance.ts';
import { LIMBS } from './wasm/field-code.ts';

export type CurveName = 'g1' | 'g2';

/** Bytes of a field element, an affine point and a Jacobian point on each curve. */
export const POINT_BYTES: Readonly<Record<CurveName, { affine: number; jacobian: number; field: number }>> = {
  g1: { field: 36, affine: 72, jacobian: 108 },
  g2: { field: 72, affine: 144, jacobian: 216 },
};

/** Scalars are below r < 2^254. */
const SCALAR_BITS = 254;

/**
 * The windows of width c: all of c bits, signed, but the top one, which takes the bits left and the
 * carry, unsigned; when fewer than 3 bits would be left for it, it is merged into the one below (a
 * window of one bit would send every point to one of two buckets).
 */
export interface Windows {
  readonly c: number;
  readonly count: number;
  /** Bits of the top window. */
  readonly topBits: number;
}

export function windowsOf(c: number): Windows {
  let count = Math.ceil(SCALAR_BITS / c);
  let topBits = SCALAR_BITS - (count - 1) * c;
  if (topBits < 3 && count > 1) {
    count--;
    topBits += c;
  }
  return { c, count, topBits };
}

/** The buckets of window w: 2^(c−1) signed digits, 2^topBits for the top one. */
export function bucketsOf(win: Windows, w: number): number {
  return w === win.count - 1 ? 2 ** win.topBits : 2 ** (win.c - 1);
}

/** The window width for n points: the accumulation costs n additions per window, the running sums 2^c. */
export function windowBits(n: number): number {
  let best = 2;
  let bestCost = Number.POSITIVE_INFINITY;
  // Measured costs: a batch-affine addition about 9 field multiplications, a bucket of the running
  // sums (one mixed and one full Jacobian addition) about 37.
  for (let c = 2; c <= 16; c++) {
    const win = windowsOf(c);
    let buckets = 0;
    for (let w = 0; w < win.count; w++) buckets += bucketsOf(win, w);
    const cost = win.count * n * 9 + buckets * 37;
    if (cost < bestCost) {
      bestCost = cost;
      best = c;
    }
  }
  return best;
}

/**
 * The window width for n shifted points (a copy per window) split in `tasks` tasks: the
 * accumulation still costs n additions per window, but the running sums only 2^(c−1) per task and
 * the top window's set once.
 */
export function shiftedWindowBits(n: number, tasks: number): number {
  let best = 2;
  let bestCost = Number.POSITIVE_INFINITY;
  for (let c = 2; c <= 16; c++) {
    const win = windowsOf(c);
    const cost = win.count * n * 9 + (tasks * 2 ** (c - 1) + 2 ** win.topBits) * 37;
    if (cost < bestCost) {
      bestCost = cost;
      best = c;
    }
  }
  return best;
}

export interface MsmInput {
  readonly curve: CurveName;
  /** Affine points, none at infinity. */
  readonly points: number;
  readonly count: number;
  /** Scalars: 36-byte limbs in normal form; point i takes scalar `indices[i]` (or i without indices). */
  readonly scalars: number;
  /** Address of `count` i32 scalar indices, or 0. */
  readonly indices: number;
  readonly c: number;
  /**
   * The points come with a copy per window, 2^(c·w)·P for window w, at `points + w·count` points
   * (fixed bases, shifted once when a key is placed): the windows then share one set of buckets
   * (and the top window its own), so a task sums 2 sets instead of one per window.
   */
  readonly shifted?: boolean;
}

/** The buckets a task of windows [w0, w1) fills: shifted, one shared set and the top window's set. */
function taskBuckets(win: Windows, w0: number, w1: number, shifted: boolean): number[] {
  const last = win.count - 1;
  if (!shifted) {
    const first: number[] = [];
    let n = 0;
    for (let w = w0; w < w1; w++) {
      first.push(n);
      n += bucketsOf(win, w);
    }
    first.push(n);
    return first;
  }
  const low = w0 < last ? 2 ** (win.c - 1) : 0;
  const first = Array.from({ length: w1 - w0 }, (_, k) => (w0 + k === last ? low : 0));
  first.push(low + (w1 > last ? 2 ** win.topBits : 0));
  return first;
}

/**
 * Pairs in one batch-affine addition, at most: fewer when the task has few buckets, so that a batch
 * rarely meets a bucket twice (one in 8 of them in use), at least enough to share the inversion.
 */
export const BATCH = 2048;
function batchFor(buckets: number): number {
  return Math.max(64, Math.min(BATCH, buckets >>> 3));
}
/** Pairs that may wait for the next batch; beyond, a pair is added to its bucket's Jacobian part. */
const MAX_WAITING = 512;

/** Bytes of the heap a task of windows [w0, w1) needs. */
export function taskHeapBytes(curve: CurveName, c: number, w0: number, w1: number, shifted = false): number {
  const b = POINT_BYTES[curve];
  const buckets = taskBuckets(windowsOf(c), w0, w1, shifted).at(-1)!;
  return buckets * (b.affine + b.jacobian + 2) + BATCH * (8 + 2 * b.field + 1) + 512;
}

/**
 * Fills and sums the buckets of windows [w0, w1) of an MSM; writes each window's sum (Jacobian) at
 * `out + (w − w0)·jacobianBytes` — or, for shifted points, the two sets' sums at `out` and the next
 * slot (infinity for a set the task has not). `heap` is this task's region of `taskHeapBytes` bytes.
 * Returns false if `cancelled` said so before it was done.
 */
export function msmWindows(
  e: EngineInstance,
  input: MsmInput,
  w0: number,
  w1: number,
  heap: number,
  out: number,
  cancelled: () => boolean = () => false,
): boolean {
  const { curve } = input;
  const win = windowsOf(input.c);
  const c = win.c;
  const b = POINT_BYTES[curve];
  const half = 2 ** (c - 1);
  const shifted = input.shifted === true;
  const first = taskBuckets(win, w0, w1, shifted);
  const nBuckets = first[w1 - w0]!;
  const buckets = heap;
  const jbuckets = buckets + nBuckets * b.affine;
  const flags = jbuckets + nBuckets * b.jacobian;
  const jflags = flags + nBuckets;
  const pairs = (jflags + nBuckets + 7) & ~7;
  const tmp = pairs + BATCH * 8;
  e.u8.fill(0, flags, flags + 2 * nBuckets);
  const batchAdd = e.ex[`${curve}_batchAdd`]!;
  const addToJacobian = e.ex[`${curve}_addToJacobian`]!;
  const reduce = e.ex[`${curve}_reduceBuckets`]!;
  const mark = new Int32Array(nBuckets).fill(-1);
  let batchNo = 0;
  let inBatch = 0;
  // Pairs that met their bucket already in the batch: (bucket, ref), tried again after it.
  const waiting = new Int32Array(MAX_WAITING * 2);
  let nWaiting = 0;
  const u32 = e.u32;
  const i32 = e.i32;
  const mask = (1 << c) - 1;
  const top = 1 << c;
  const topMask = 2 ** win.topBits - 1;
  const last = win.count - 1;
  const batchSize = batchFor(nBuckets);
  const flush = () => {
    batchAdd(buckets, flags, input.points, pairs, inBatch, tmp);
    inBatch = 0;
    batchNo++;
  };
  const push = (bucket: number, ref: number): void => {
    if (mark[bucket] === batchNo) {
      if (nWaiting < MAX_WAITING) {
        waiting[nWaiting * 2] = bucket;
        waiting[nWaiting * 2 + 1] = ref;
        nWaiting++;
      } else addToJacobian(jbuckets, jflags, bucket, input.points + (ref >>> 1) * b.affine, ref & 1);
      return;
    }
    mark[bucket] = batchNo;
    const p = (pairs >>> 2) + inBatch * 2;
    i32[p] = bucket;
    i32[p + 1] = ref;
    inBatch++;
    if (inBatch === batchSize) {
      flush();
      retry();
    }
  };
  // The waiting pairs, into the batch that starts.
  const retry = (): void => {
    const n = nWaiting;
    if (n === 0) return;
    nWaiting = 0;
    const w = waiting.slice(0, n * 2);
    for (let k = 0; k < n; k++) push(w[k * 2]!, w[k * 2 + 1]!);
  };
  // The first bucket of each window of the task.
  const firstBucket = Int32Array.from(first.slice(0, w1 - w0));
  // Shifted points: window w reads copy w.
  const copyStride = shifted ? input.count * 2 : 0;
  const scalarBase = input.scalars >>> 2;
  const indexBase = input.indices >>> 2;
  for (let i = 0; i < input.count; i++) {
    if ((i & 1023) === 0 && cancelled()) return false;
    const s = scalarBase + (input.indices === 0 ? i : i32[indexBase + i]!) * LIMBS;
    // Digits of windows 0..w1−1 (the carry runs from the bottom), kept for w0..w1−1.
    let carry = 0;
    for (let w = 0; w < w1; w++) {
      const bit = w * c;
      const l = (bit / 29) | 0;
      const sh = bit - l * 29;
      let v = u32[s + l]! >>> sh;
      if (sh > 11 && l + 1 < LIMBS) v |= u32[s + l + 1]! << (29 - sh);
      let d: number;
      if (w === last) d = (v & topMask) + carry;
      else {
        d = (v & mask) + carry;
        if (d > half) {
          d -= top;
          carry = 1;
        } else carry = 0;
      }
      if (w < w0 || d === 0) continue;
      push(firstBucket[w - w0]! + (d > 0 ? d : -d) - 1, w * copyStride + i * 2 + (d < 0 ? 1 : 0));
    }
  }
  // What is left: the last batch, then the waiting pairs until none wait.
  while (inBatch > 0 || nWaiting > 0) {
    if (inBatch > 0) flush();
    retry();
  }
  const sum = (from: number, count: number, at: number) =>
    reduce(buckets + from * b.affine, flags + from, jbuckets + from * b.jacobian, jflags + from, count, at);
  if (shifted) {
    const low = w0 < last ? half : 0;
    e.u8.fill(0, out, out + 2 * b.jacobian);
    if (low > 0) sum(0, low, out);
    if (w1 > last) sum(low, nBuckets - low, out + b.jacobian);
    return true;
  }
  for (let w = w0; w < w1; w++) sum(firstBucket[w - w0]!, bucketsOf(win, w), out + (w - w0) * b.jacobian);
  return true;
}

/**
 * Σ 2^(c·w)·S_w over window sums S_0..S_(n−1) (Jacobian, consecutive at `sums`), into `out`; `tmp`
 * holds one Jacobian point.
 */
export function combineWindows(
  e: EngineInstance,
  curve: CurveName,
  c: number,
  sums: number,
  n: number,
  out: number,
): void {
  const b = POINT_BYTES[curve];
  const dbl = e.ex[`${curve}_jacDouble`]!;
  const add = e.ex[`${curve}_jacAdd`]!;
  e.u8.copyWithin(out, sums + (n - 1) * b.jacobian, sums + n * b.jacobian);
  for (let w = n - 2; w >= 0; w--) {
    for (let k = 0; k < c; k++) dbl(out, out);
    add(out, out, sums + w * b.jacobian);
  }
}
