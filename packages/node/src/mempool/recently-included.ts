/**
 * Transactions canonical blocks included recently, kept for a while so that a proposal referencing
 * them still rebuilds: two leaders of one slot (or of slots close together) often include the same
 * transactions, and once one block is applied those transactions leave the pending pool; without them
 * the other block's proposal could not be rebuilt, and this node would learn that block only when a
 * child of it arrives (through chain sync, late).
 * inferred: F unindexes a transaction from its prefix lookup as soon as a block includes it (it keeps
 * the body 10 minutes for storage only) (docs/design/fidelity.md "Proposals referencing included
 * transactions")
 */
import { bytesToHex } from '../codec/hex.ts';
import type { SignedMantleTx } from '../mantle/tx.ts';
import { PrefixIndex } from './prefix-index.ts';

/** How long an included transaction stays resolvable (F's `REMOVED_ITEM_GRACE_PERIOD`, 10 minutes). */
export const INCLUDED_KEPT_MS = 10 * 60 * 1000;
/** The most included transactions kept (the oldest go first). */
export const INCLUDED_KEPT_MAX = 20_000;

interface Included {
  readonly tx: SignedMantleTx;
  readonly atMs: number;
}

export class RecentlyIncluded {
  /** By hash hex, in inclusion order (oldest first). */
  private readonly items = new Map<string, Included>();
  private readonly byPrefix = new PrefixIndex();

  constructor(
    private readonly keptMs = INCLUDED_KEPT_MS,
    private readonly max = INCLUDED_KEPT_MAX,
  ) {}

  get size(): number {
    return this.items.size;
  }

  /** A canonical block included `tx` (hash `hash`) at `nowMs`. */
  add(hash: Uint8Array, tx: SignedMantleTx, nowMs: number): void {
    const key = bytesToHex(hash);
    this.delete(key); // re-included: its time is the new one
    this.items.set(key, { tx, atMs: nowMs });
    this.byPrefix.add(key);
    this.expire(nowMs);
  }

  /** Forgets a transaction (pending again after a reorg). */
  remove(hash: Uint8Array): void {
    this.delete(bytesToHex(hash));
  }

  /** The included transactions whose hash starts with `prefix` (16 bytes), still kept at `nowMs`. */
  byHashPrefix(prefix: Uint8Array, nowMs: number): SignedMantleTx[] {
    this.expire(nowMs);
    return this.byPrefix.keys(prefix).map((k) => this.items.get(k)!.tx);
  }

  private expire(nowMs: number): void {
    // Insertion order is age order: stop at the first one still young enough and within the cap.
    for (const [key, item] of this.items) {
      if (nowMs - item.atMs < this.keptMs && this.items.size <= this.max) break;
      this.delete(key);
    }
  }

  private delete(key: string): void {
    if (this.items.delete(key)) this.byPrefix.delete(key);
  }
}
