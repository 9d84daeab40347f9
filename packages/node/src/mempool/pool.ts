/**
 * The pending transactions, as the reference's pool keeps them (`services/tx-service/src/backend/pool.rs`):
 * keyed by tx hash in insertion order (the view is FIFO), a duplicate is not added twice, a 16-byte
 * tx-hash prefix index for rebuilding block proposals, removal when a block includes them, and a TTL
 * measured from insertion whose eviction runs on removal (the pool has no clock of its own).
 * Beyond the reference: a bound on the count and the bytes of what the pool holds, so that an open node
 * cannot be filled without end. Pure: no I/O, the caller gives the times.
 */
import { bytesToHex } from '../codec/hex.ts';
import type { SignedMantleTx } from '../mantle/tx.ts';
import { MempoolError } from './errors.ts';
import { PrefixIndex } from './prefix-index.ts';

/** A block's transaction bytes: no transaction can be larger (F `MAX_BLOCK_TRANSACTIONS_SIZE`). */
export const MAX_TX_BYTES = 2 * 1024 * 1024;

export interface PendingTx {
  readonly hash: Uint8Array;
  readonly tx: SignedMantleTx;
  /** Encoded size (storage gas). */
  readonly size: number;
  /** When it entered the pool, ms since the epoch. */
  readonly insertedAtMs: number;
}

export interface PoolLimits {
  /** Transactions held at most. */
  readonly maxCount: number;
  /** Encoded bytes held at most. */
  readonly maxBytes: number;
  /** Milliseconds a transaction stays pending; null: forever. */
  readonly ttlMs: number | null;
}

export type AddResult = 'added' | 'duplicate';

export class TxPool {
  private readonly items = new Map<string, PendingTx>();
  private readonly byPrefix = new PrefixIndex();
  private bytes = 0;
  private lastInsertedAtMs: number | null = null;

  constructor(readonly limits: PoolLimits) {}

  get size(): number {
    return this.items.size;
  }

  get totalBytes(): number {
    return this.bytes;
  }

  /** Time of the last addition (ms since the epoch), null before the first (`/mantle/metrics`). */
  get lastItemTimestamp(): number | null {
    return this.lastInsertedAtMs;
  }

  /** Restores the time of the last addition (after a restart, when the latest may have left since). */
  restoreLastItemTimestamp(ms: number): void {
    if (ms > (this.lastInsertedAtMs ?? 0)) this.lastInsertedAtMs = ms;
  }

  has(hash: Uint8Array): boolean {
    return this.items.has(bytesToHex(hash));
  }

  get(hash: Uint8Array): PendingTx | undefined {
    return this.items.get(bytesToHex(hash));
  }

  /**
   * Adds a preverified transaction. A transaction already pending is not added again ('duplicate').
   * Throws `MempoolError` when it is too large or the pool is full; nothing changes then.
   */
  add(hash: Uint8Array, tx: SignedMantleTx, size: number, nowMs: number): AddResult {
    const key = bytesToHex(hash);
    if (this.items.has(key)) return 'duplicate';
    this.checkRoom(size);
    this.items.set(key, { hash, tx, size, insertedAtMs: nowMs });
    this.byPrefix.add(key);
    this.bytes += size;
    this.lastInsertedAtMs = nowMs;
    return 'added';
  }

  /**
   * Throws the `MempoolError` that adding a transaction of `size` bytes would throw now (too large, or
   * the pool full); changes nothing. Lets a caller check before it stores the transaction.
   */
  checkRoom(size: number): void {
    if (size > MAX_TX_BYTES) {
      throw new MempoolError(
        'MEMPOOL_ITEM_TOO_LARGE',
        `Item is too large: ${size} bytes exceeds maximum ${MAX_TX_BYTES} bytes`,
        { size, limit: MAX_TX_BYTES },
      );
    }
    const byCount = this.items.size >= this.limits.maxCount;
    if (byCount || this.bytes + size > this.limits.maxBytes) {
      throw new MempoolError(
        'MEMPOOL_FULL',
        `Mempool is full: ${this.items.size} transactions of ${this.bytes} bytes pending ` +
          `(limits ${this.limits.maxCount} transactions, ${this.limits.maxBytes} bytes)`,
        {
          size,
          bound: byCount ? 'count' : 'bytes',
          limit: byCount ? this.limits.maxCount : this.limits.maxBytes,
        },
      );
    }
  }

  /** Pending transactions in insertion order. */
  *view(): IterableIterator<PendingTx> {
    yield* this.items.values();
  }

  /** Pending transactions whose hash starts with `prefix` (16 bytes). */
  byHashPrefix(prefix: Uint8Array): PendingTx[] {
    return this.byPrefix.keys(prefix).map((k) => this.items.get(k)!);
  }

  /**
   * Removes the given transactions (a block included them, or they can never apply), then evicts those
   * older than the TTL at `nowMs`. Returns the hashes evicted by age.
   */
  remove(hashes: Iterable<Uint8Array>, nowMs: number): Uint8Array[] {
    for (const h of hashes) this.delete(bytesToHex(h));
    const evicted: Uint8Array[] = [];
    const ttl = this.limits.ttlMs;
    if (ttl === null) return evicted;
    // Insertion order is age order: stop at the first one still young enough.
    for (const [key, item] of this.items) {
      if (nowMs - item.insertedAtMs < ttl) break;
      this.delete(key);
      evicted.push(item.hash);
    }
    return evicted;
  }

  private delete(key: string): void {
    const item = this.items.get(key);
    if (!item) return;
    this.items.delete(key);
    this.bytes -= item.size;
    this.byPrefix.delete(key);
  }
}
