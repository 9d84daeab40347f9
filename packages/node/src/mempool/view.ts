/**
 * The mempool's view on top of a tip: the pending transactions that apply, in FIFO rounds (rounds.ts),
 * the state after them, and the pending transactions that do not apply on it, kept apart: each that
 * lacks a note is indexed by that note, the others listed. The view is computed once per tip; after
 * that a new transaction costs what it touches: it is tried on the view's state alone, and when it
 * applies, only the transactions waiting for a note it creates are tried again (and so on down a
 * chain). A transaction that does not apply costs one failed execution and an index entry.
 * Pure: no I/O, no clock.
 */

import { bytesToHex } from '../codec/hex.ts';
import { executeTx } from '../ledger/apply.ts';
import { Draft, type LedgerContext } from '../ledger/draft.ts';
import { NoteNotFound } from '../ledger/errors.ts';
import type { LedgerState } from '../ledger/state.ts';
import type { PendingTx } from './pool.ts';
import { applyInRounds } from './rounds.ts';

export class PendingView {
  /** Keys of the pending transactions that apply (the view, once put in FIFO order). */
  readonly applied = new Set<string>();
  /** Pending transactions that do not apply, by key (insertion order: oldest first). */
  private readonly unapplied = new Map<string, PendingTx>();
  /** Of those, the ones that lack a note, by that note. */
  private readonly waiting = new Map<bigint, Set<string>>();
  private readonly noteOf = new Map<string, bigint>();
  /** Whether a transaction left the pool that the state includes: the view must be computed again. */
  stale = false;
  /** Counts the changes of the state (a trial made on an older state cannot be adopted). */
  version = 0;

  private constructor(
    /** The chain's head version the view was computed on. */
    readonly head: number,
    readonly slot: bigint,
    private draft: Draft,
  ) {}

  /**
   * The view of `items` (FIFO) on `start` (the tip's state advanced to `slot`). An item for which
   * `accept` answers false (its proofs are not verified yet) is kept out, and listed in `held`.
   */
  static compute(
    head: number,
    start: Draft,
    slot: bigint,
    items: Iterable<PendingTx>,
    ctx: LedgerContext,
    accept: (item: PendingTx) => boolean,
  ): { view: PendingView; held: PendingTx[] } {
    const held: PendingTx[] = [];
    const out = applyInRounds(start, slot, items, () => ctx, {
      accept: (i) => {
        if (accept(i)) return true;
        held.push(i);
        return false;
      },
    });
    const v = new PendingView(head, slot, out.draft);
    for (const i of out.applied) v.applied.add(bytesToHex(i.hash));
    for (const i of out.never) v.park(i, out.waitsFor.get(i));
    return { view: v, held };
  }

  /** The state with every applied transaction. */
  state(): LedgerState {
    return this.draft.state();
  }

  /** Pending transactions that do not apply on the view. */
  get unappliedCount(): number {
    return this.unapplied.size;
  }

  /** The unapplied transactions, oldest first. */
  unappliedItems(): IterableIterator<PendingTx> {
    return this.unapplied.values();
  }

  isUnapplied(key: string): boolean {
    return this.unapplied.has(key);
  }

  /**
   * Tries `item` on the view's state. Applied: it is in the view, and the unapplied transactions that
   * waited for a note it created are returned (to be placed in turn). Not applied: it is kept apart.
   */
  place(item: PendingTx, ctx: LedgerContext): { applied: boolean; released: PendingTx[] } {
    const key = bytesToHex(item.hash);
    const before = this.draft.state();
    const created: bigint[] = [];
    this.draft.created = created;
    try {
      executeTx(this.draft, ctx, item.tx, this.slot, { preverified: item.hash, size: BigInt(item.size) });
    } catch (e) {
      this.draft = new Draft(before);
      this.park(item, e instanceof NoteNotFound ? e.note : undefined);
      return { applied: false, released: [] };
    } finally {
      this.draft.created = null;
    }
    return { applied: true, released: this.markApplied(key, created) };
  }

  /**
   * Takes a state already computed on this view with `item` applied on top (an admission's trial), with
   * the notes it created.
   */
  adopt(item: PendingTx, after: Draft, created: readonly bigint[]): PendingTx[] {
    const key = bytesToHex(item.hash);
    this.draft = after;
    return this.markApplied(key, created);
  }

  /** A transaction now in the view: the state changed; those that waited for its notes are returned. */
  private markApplied(key: string, created: readonly bigint[]): PendingTx[] {
    this.unpark(key);
    this.applied.add(key);
    this.version++;
    return this.release(created);
  }

  /** Keeps a transaction apart (it does not apply, or waits for its proofs). */
  park(item: PendingTx, note?: bigint): void {
    const key = bytesToHex(item.hash);
    this.unpark(key);
    this.unapplied.set(key, item);
    if (note === undefined) return;
    this.noteOf.set(key, note);
    const at = this.waiting.get(note);
    if (at) at.add(key);
    else this.waiting.set(note, new Set([key]));
  }

  /** A transaction left the pool. */
  remove(key: string): void {
    if (this.applied.delete(key)) this.stale = true;
    this.unpark(key);
  }

  private unpark(key: string): void {
    if (!this.unapplied.delete(key)) return;
    const note = this.noteOf.get(key);
    if (note === undefined) return;
    this.noteOf.delete(key);
    const at = this.waiting.get(note);
    at?.delete(key);
    if (at?.size === 0) this.waiting.delete(note);
  }

  private release(created: readonly bigint[]): PendingTx[] {
    const out: PendingTx[] = [];
    for (const note of created) {
      const keys = this.waiting.get(note);
      if (!keys) continue;
      for (const k of keys) {
        const item = this.unapplied.get(k);
        if (item) out.push(item);
      }
    }
    return out;
  }
}
