/**
 * A small key-value interface for the node's persistent state, with an lmdb implementation and a sorted
 * in-memory one for tests.
 *
 * Every entry lives in a numbered bucket (see buckets.ts). Both implementations store the key
 * `bucket byte ‖ key` in a single keyspace, so a range within a bucket returns keys in byte order and never
 * leaves the bucket. Reads are synchronous. Writes go only through `transaction`, whose writes commit
 * atomically: the callback runs synchronously and records the writes; if it throws, nothing is written.
 * A commit that fails for lack of space (ENOSPC, EDQUOT, MDB_MAP_FULL, or lmdb's EIO for a short write on
 * a full file system) rejects with a STORAGE_DISK_FULL StorageError saying where, how much is free and how
 * much the write needs.
 */
import * as fs from 'node:fs';
import { dirname } from 'node:path';
import { open, type RootDatabase } from 'lmdb';
import { StorageError } from './errors.ts';

/** A range of keys within one bucket: `gte <= key < lt`, in key order (descending with `reverse`). */
export interface KvRange {
  readonly gte?: Uint8Array | undefined;
  readonly lt?: Uint8Array | undefined;
  readonly reverse?: boolean | undefined;
  readonly limit?: number | undefined;
}

export interface KvWriteTx {
  put(bucket: number, key: Uint8Array, value: Uint8Array): void;
  del(bucket: number, key: Uint8Array): void;
}

export interface KvStore {
  get(bucket: number, key: Uint8Array): Uint8Array | undefined;
  has(bucket: number, key: Uint8Array): boolean;
  /** Entries of one bucket in key order; keys are returned without the bucket byte. */
  range(bucket: number, range?: KvRange): Iterable<[Uint8Array, Uint8Array]>;
  /**
   * Runs `fn` synchronously to collect writes, then commits them in one atomic transaction. The promise
   * resolves once the commit is durable (flushed to disk for lmdb). If `fn` throws, nothing is written and
   * the promise rejects with that error.
   */
  transaction(fn: (tx: KvWriteTx) => void): Promise<void>;
  close(): Promise<void>;
}

/** Largest key (bucket byte included) lmdb accepts with its default build. */
export const MAX_KEY_BYTES = 1978;

/** Big-endian u64 key, so numeric order equals byte order (heights, slots). */
export function u64Key(n: bigint): Uint8Array {
  if (n < 0n || n > 0xffff_ffff_ffff_ffffn) throw new RangeError(`u64 key out of range: ${n}`);
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigUint64(0, n, false);
  return out;
}

export function readU64Key(bytes: Uint8Array, offset = 0): bigint {
  if (bytes.length < offset + 8) throw new RangeError('u64 key: need 8 bytes');
  return new DataView(bytes.buffer, bytes.byteOffset + offset, 8).getBigUint64(0, false);
}

function checkBucket(bucket: number): void {
  if (!Number.isInteger(bucket) || bucket < 0 || bucket > 254) throw new RangeError(`bad bucket ${bucket}`);
}

function fullKey(bucket: number, key: Uint8Array): Uint8Array {
  checkBucket(bucket);
  if (key.length + 1 > MAX_KEY_BYTES) throw new RangeError(`key of ${key.length} bytes is too long`);
  const out = new Uint8Array(key.length + 1);
  out[0] = bucket;
  out.set(key, 1);
  return out;
}

/** A plain Uint8Array view of lmdb's Buffer (same memory), so both implementations return one type. */
function plain(b: Uint8Array): Uint8Array {
  return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
}

type Op = { del: false; key: Uint8Array; value: Uint8Array } | { del: true; key: Uint8Array };

/** Runs the user's callback against a recorder; the callback's writes are only returned if it succeeds. */
function record(fn: (tx: KvWriteTx) => void): Op[] {
  const ops: Op[] = [];
  fn({
    put(bucket, key, value) {
      ops.push({ del: false, key: fullKey(bucket, key), value: value.slice() });
    },
    del(bucket, key) {
      ops.push({ del: true, key: fullKey(bucket, key) });
    },
  });
  return ops;
}

/** Bounds of a bucket range as full keys: [start, end). */
function bounds(bucket: number, range: KvRange): { start: Uint8Array; end: Uint8Array } {
  const start = fullKey(bucket, range.gte ?? new Uint8Array(0));
  const end = range.lt !== undefined ? fullKey(bucket, range.lt) : Uint8Array.of(bucket + 1);
  return { start, end };
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const d = a[i]! - b[i]!;
    if (d !== 0) return d;
  }
  return a.length - b.length;
}

export interface LmdbKvOptions {
  /**
   * Let lmdb flush a commit to disk after making it visible (lmdb-js `overlappingSync`). The default is
   * false: a commit is fsynced before it resolves, the classic LMDB durable commit.
   */
  readonly overlappingSync?: boolean;
  /** Called with the error of a commit that failed for lack of space, before the commit rejects with it. */
  readonly onDiskFull?: (error: StorageError) => void;
}

const EIO = 5;
const ENOSPC = 28;
const EDQUOT = 122;
const MDB_MAP_FULL = -30792;

function isOutOfSpace(e: unknown): boolean {
  const code = (e as { code?: unknown } | undefined)?.code;
  if (code === ENOSPC || code === EDQUOT || code === MDB_MAP_FULL) return true;
  if (code === 'ENOSPC' || code === 'EDQUOT') return true;
  return e instanceof Error && /MDB_MAP_FULL|No space left on device|Disk quota exceeded/.test(e.message);
}

/** lmdb reports a short write (what a full disk gives part way through a page) as EIO. */
function isIoError(e: unknown): boolean {
  const code = (e as { code?: unknown } | undefined)?.code;
  return code === EIO || code === 'EIO' || (e instanceof Error && /Input\/output error/.test(e.message));
}

/** Bytes free to this process on the file system holding `dir`, if the system says. */
function freeBytes(dir: string): bigint | undefined {
  try {
    const s = fs.statfsSync(dir, { bigint: true });
    return s.bavail * s.bsize;
  } catch {
    return undefined;
  }
}

/**
 * The STORAGE_DISK_FULL error of a failed commit, or undefined if the failure is not for lack of space:
 * ENOSPC, EDQUOT or MDB_MAP_FULL, or an EIO while the file system has less free space than the write needs.
 */
function outOfSpaceError(
  path: string,
  dataBytes: number,
  pageSize: number,
  cause: unknown,
): StorageError | undefined {
  const dir = dirname(path);
  const free = freeBytes(dir);
  // lmdb writes whole pages, copy on write: at least the data's pages and a page of its tree.
  const need = (Math.ceil(dataBytes / pageSize) + 1) * pageSize;
  const full = isOutOfSpace(cause) || (isIoError(cause) && free !== undefined && free < BigInt(need));
  if (!full) return undefined;
  return new StorageError(
    'STORAGE_DISK_FULL',
    `no space left to write ${path} (${(cause as Error).message}): ` +
      `${free === undefined ? 'an unknown number of' : free} bytes are free on the file system of ${dir}, ` +
      `and this write alone needs at least ${need} bytes (${dataBytes} bytes of data in ${pageSize}-byte pages). ` +
      'Nothing of this write was stored. Free space on that disk (or move the data folder to a larger one) ' +
      'and start the node again: it continues from the last stored block.',
    { cause },
  );
}

/** The KvStore on one lmdb database with binary keys and values. */
export class LmdbKv implements KvStore {
  private closed = false;

  private constructor(
    private readonly db: RootDatabase<Uint8Array, Uint8Array>,
    private readonly path: string,
    private readonly onDiskFull: ((error: StorageError) => void) | undefined,
  ) {}

  /** Opens (creating if needed) the lmdb file at `path` (a file name: lmdb also creates `path-lock`). */
  static open(path: string, options: LmdbKvOptions = {}): LmdbKv {
    const db = open<Uint8Array, Uint8Array>({
      path,
      encoding: 'binary',
      keyEncoding: 'binary',
      overlappingSync: options.overlappingSync ?? false,
      // noSync stays false: every commit is synced to disk.
    });
    return new LmdbKv(db, path, options.onDiskFull);
  }

  get(bucket: number, key: Uint8Array): Uint8Array | undefined {
    const v = this.db.getBinary(fullKey(bucket, key));
    return v === undefined ? undefined : plain(v);
  }

  has(bucket: number, key: Uint8Array): boolean {
    return this.db.getBinaryFast(fullKey(bucket, key)) !== undefined;
  }

  *range(bucket: number, range: KvRange = {}): Iterable<[Uint8Array, Uint8Array]> {
    const { start, end } = bounds(bucket, range);
    if (compareBytes(start, end) >= 0) return;
    if (range.limit !== undefined && range.limit <= 0) return;
    const options = range.reverse
      ? { start: end, end: start, reverse: true, exclusiveStart: true, inclusiveEnd: true }
      : { start, end };
    const it = this.db.getRange(range.limit !== undefined ? { ...options, limit: range.limit } : options);
    for (const { key, value } of it) {
      const k = key as Uint8Array;
      yield [plain(k.subarray(1)), plain(value)];
    }
  }

  async transaction(fn: (tx: KvWriteTx) => void): Promise<void> {
    if (this.closed) throw new Error('store is closed');
    const ops = record(fn);
    if (ops.length === 0) return;
    // One synchronous lmdb write transaction, committed (and synced) before this returns; it is aborted
    // as a whole if any write or the commit fails. A failure surfaces here with lmdb's own error (an
    // asynchronous lmdb-js commit reports it through a second promise that nothing can await).
    try {
      this.db.transactionSync(() => {
        for (const op of ops) {
          if (op.del) this.db.removeSync(op.key);
          else this.db.putSync(op.key, op.value);
        }
      });
    } catch (e) {
      let dataBytes = 0;
      for (const op of ops) dataBytes += op.key.length + (op.del ? 0 : op.value.length);
      const error = outOfSpaceError(
        this.path,
        dataBytes,
        (this.db.getStats() as { pageSize?: number }).pageSize ?? 4096,
        e,
      );
      if (error === undefined) throw e;
      try {
        this.onDiskFull?.(error);
      } catch {
        // The caller must see the commit's own error; a failing listener does not replace it.
      }
      throw error;
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.db.close();
  }
}

/** A sorted in-memory KvStore for tests. Ranges iterate over a snapshot taken when they start. */
export class MemoryKv implements KvStore {
  /** Sorted by full key; replaced (copy on write) by each transaction so running ranges keep a snapshot. */
  private entries: { key: Uint8Array; value: Uint8Array }[] = [];
  private closed = false;

  private find(entries: readonly { key: Uint8Array }[], key: Uint8Array): { index: number; found: boolean } {
    let lo = 0;
    let hi = entries.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const c = compareBytes(entries[mid]!.key, key);
      if (c === 0) return { index: mid, found: true };
      if (c < 0) lo = mid + 1;
      else hi = mid;
    }
    return { index: lo, found: false };
  }

  get(bucket: number, key: Uint8Array): Uint8Array | undefined {
    const { index, found } = this.find(this.entries, fullKey(bucket, key));
    return found ? this.entries[index]!.value.slice() : undefined;
  }

  has(bucket: number, key: Uint8Array): boolean {
    return this.find(this.entries, fullKey(bucket, key)).found;
  }

  *range(bucket: number, range: KvRange = {}): Iterable<[Uint8Array, Uint8Array]> {
    const { start, end } = bounds(bucket, range);
    const entries = this.entries;
    const from = this.find(entries, start).index;
    const to = this.find(entries, end).index;
    let left = range.limit ?? Number.POSITIVE_INFINITY;
    if (range.reverse) {
      for (let i = to - 1; i >= from && left > 0; i--, left--) {
        const e = entries[i]!;
        yield [e.key.slice(1), e.value.slice()];
      }
    } else {
      for (let i = from; i < to && left > 0; i++, left--) {
        const e = entries[i]!;
        yield [e.key.slice(1), e.value.slice()];
      }
    }
  }

  async transaction(fn: (tx: KvWriteTx) => void): Promise<void> {
    if (this.closed) throw new Error('store is closed');
    const ops = record(fn);
    const next = this.entries.slice();
    for (const op of ops) {
      const { index, found } = this.find(next, op.key);
      if (op.del) {
        if (found) next.splice(index, 1);
      } else if (found) next[index] = { key: op.key, value: op.value };
      else next.splice(index, 0, { key: op.key, value: op.value });
    }
    this.entries = next;
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}
