/**
 * The pending transactions of the mempool over the node's KvStore (bucket `MempoolTxs`): each under its
 * admission sequence number, so that reading the bucket in key order gives the pool's FIFO order, with
 * its insertion time (the TTL keeps counting across restarts) and its encoded body. An addition is
 * durable before `add` resolves; additions and removals arriving within a few milliseconds are
 * committed in one write (group commit). A removed transaction is deleted in the same way, so it never comes back on restart.
 */
import { decodeSignedTx, encodeSignedTx, type SignedMantleTx } from '../mantle/tx.ts';
import { Bucket } from './buckets.ts';
import { type KvStore, type KvWriteTx, readU64Key, u64Key } from './kv.ts';

export interface StoredPendingTx {
  readonly seq: bigint;
  readonly hash: Uint8Array;
  readonly tx: SignedMantleTx;
  /** Encoded size in bytes. */
  readonly size: number;
  readonly insertedAtMs: number;
}

type Write = (tx: KvWriteTx) => void;

/**
 * How long writes are collected before one durable commit. A commit syncs the file on this thread, so
 * fewer, larger commits leave the event loop free for more admissions.
 */
const GROUP_COMMIT_MS = 3;

/** The time of the latest addition (u64 BE ms), beside the entries (whose keys are 8 bytes long). */
const LAST_ITEM_TIMESTAMP = new TextEncoder().encode('last_item_timestamp');

export class MempoolStore {
  private pending: { write: Write; resolve: () => void; reject: (e: unknown) => void }[] = [];
  private scheduled = false;
  private lastSeq = -1n;

  constructor(private readonly kv: KvStore) {}

  /**
   * Every stored pending transaction, oldest first, and the time of the latest addition (0 if none was
   * ever stored). Undecodable entries are returned in `damaged`.
   */
  load(): { txs: StoredPendingTx[]; damaged: Uint8Array[]; lastItemTimestamp: number } {
    const txs: StoredPendingTx[] = [];
    const damaged: Uint8Array[] = [];
    const last = this.kv.get(Bucket.MempoolTxs, LAST_ITEM_TIMESTAMP);
    for (const [key, value] of this.kv.range(Bucket.MempoolTxs)) {
      if (key.length !== 8) continue;
      const seq = readU64Key(key);
      if (seq > this.lastSeq) this.lastSeq = seq;
      try {
        const body = value.subarray(40);
        txs.push({
          seq,
          insertedAtMs: Number(readU64Key(value)),
          hash: value.slice(8, 40),
          tx: decodeSignedTx(body),
          size: body.length,
        });
      } catch {
        damaged.push(key);
      }
    }
    return { txs, damaged, lastItemTimestamp: last?.length === 8 ? Number(readU64Key(last)) : 0 };
  }

  /** The next admission sequence number. */
  nextSeq(): bigint {
    this.lastSeq += 1n;
    return this.lastSeq;
  }

  /** Stores a pending transaction under `seq`; resolves once durable. */
  add(
    seq: bigint,
    hash: Uint8Array,
    tx: SignedMantleTx,
    insertedAtMs: number,
    encoded?: Uint8Array,
  ): Promise<void> {
    const body = encoded ?? encodeSignedTx(tx);
    const value = new Uint8Array(40 + body.length);
    value.set(u64Key(BigInt(insertedAtMs)), 0);
    value.set(hash, 8);
    value.set(body, 40);
    return this.enqueue((w) => {
      w.put(Bucket.MempoolTxs, u64Key(seq), value);
      w.put(Bucket.MempoolTxs, LAST_ITEM_TIMESTAMP, u64Key(BigInt(insertedAtMs)));
    });
  }

  /** Deletes the entries of these sequence numbers (raw keys accepted for damaged entries). */
  remove(seqs: Iterable<bigint | Uint8Array>): Promise<void> {
    const keys = [...seqs].map((s) => (typeof s === 'bigint' ? u64Key(s) : s));
    if (keys.length === 0) return Promise.resolve();
    return this.enqueue((w) => {
      for (const k of keys) w.del(Bucket.MempoolTxs, k);
    });
  }

  private enqueue(write: Write): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.pending.push({ write, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setTimeout(() => void this.commit(), GROUP_COMMIT_MS);
      }
    });
  }

  private async commit(): Promise<void> {
    this.scheduled = false;
    const batch = this.pending;
    this.pending = [];
    try {
      await this.kv.transaction((w) => {
        for (const b of batch) b.write(w);
      });
      for (const b of batch) b.resolve();
    } catch (e) {
      for (const b of batch) b.reject(e);
    }
  }
}
