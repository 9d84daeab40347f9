/**
 * The mempool double: `FakeMempool implements IMempool` (src/mempool/interface.ts). `add` records what
 * it is given with its origin and keeps it pending (or throws `failWith`); it answers `duplicate` only
 * for a transaction given to `add` before. The reads answer from the pending transactions, which a test
 * may also seed (as served by the pool, without having been added). It emits no events of its own: a test emits
 * `added` / `resubmitted` when it needs them.
 */
import { EventEmitter } from 'node:events';
import { bytesToHex } from '../../src/codec/hex.ts';
import { type SignedMantleTx, txHash } from '../../src/mantle/tx.ts';
import type {
  AddResult,
  IMempool,
  MempoolEvents,
  MempoolMetrics,
  TxOrigin,
} from '../../src/mempool/interface.ts';

export class FakeMempool extends EventEmitter<MempoolEvents> implements IMempool {
  /** Every transaction given to `add`, with its origin, in order. */
  readonly added: { tx: SignedMantleTx; origin: TxOrigin }[] = [];
  /** The pending transactions by hex hash, in FIFO order. */
  readonly pending = new Map<string, SignedMantleTx>();
  /** When set, `add` throws it. */
  failWith: Error | undefined;
  /** What `add` says of an added transaction: whether it applies on the view. */
  applies = true;

  /** `pending`: transactions already in the pool. */
  constructor(pending: readonly SignedMantleTx[] = []) {
    super();
    for (const tx of pending) this.pending.set(bytesToHex(txHash(tx.mantle_tx)), tx);
  }

  async add(tx: SignedMantleTx, origin: TxOrigin): Promise<AddResult> {
    if (this.failWith) throw this.failWith;
    const hash = txHash(tx.mantle_tx);
    const key = bytesToHex(hash);
    const outcome = this.added.some((a) => bytesToHex(txHash(a.tx.mantle_tx)) === key)
      ? 'duplicate'
      : 'added';
    this.added.push({ tx, origin });
    this.pending.set(key, tx);
    return outcome === 'added' ? { hash, outcome, applies: this.applies } : { hash, outcome };
  }

  has(hash: Uint8Array): boolean {
    return this.pending.has(bytesToHex(hash));
  }

  get(hash: Uint8Array): SignedMantleTx | undefined {
    return this.pending.get(bytesToHex(hash));
  }

  view(): Uint8Array[] {
    return [...this.pending.values()].map((tx) => txHash(tx.mantle_tx));
  }

  byPrefix(prefix: Uint8Array): SignedMantleTx[] {
    const p = bytesToHex(prefix);
    return [...this.pending].filter(([h]) => h.startsWith(p)).map(([, tx]) => tx);
  }

  candidates(): Iterable<SignedMantleTx> {
    return [...this.pending.values()];
  }

  evict(hashes: Iterable<Uint8Array>): void {
    for (const h of hashes) this.pending.delete(bytesToHex(h));
  }

  metrics(): MempoolMetrics {
    return { pending_items: this.pending.size, last_item_timestamp: 0 };
  }
}
