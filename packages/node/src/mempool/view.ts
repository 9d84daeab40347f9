/**
 * The mempool's view on top of a tip: the pending transactions that apply, in FIFO rounds (rounds.ts),
 * the state after them, and the pending transactions that do not apply on it, kept apart: each that
 * lacks a note is indexed by that note, the others listed. A new transaction costs what it touches:
 * it is tried on the view's state alone, and when it applies, only the transactions waiting for a note
 * it creates are tried again (and so on down a chain). A transaction that does not apply costs one
 * failed execution and an index entry.
 *
 * A new tip costs what its block changed when the block extends the view's tip, inside the same epoch,
 * and holds only transactions the view applied, while every transaction of the view is a transfer and
 * none apart waits for a note another applied one spends (`rebase`): the view on the new tip then
 * applies the same transactions but the block's, on the same notes (the block spent and created exactly
 * what its transactions did in the view), so the view keeps its notes on the new tip's state; where
 * the gas prices moved, each fee is checked again (arithmetic on the recorded gas). Two transactions
 * spending one note are left to the rounds: which of them applies depends on the round in which the
 * note appears, which the block changes. Otherwise the view is computed again in full.
 * Pure: no I/O, no clock.
 */

import { bytesToHex } from '../codec/hex.ts';
import { executeTx, type TxOutcome } from '../ledger/apply.ts';
import { Draft, type LedgerContext } from '../ledger/draft.ts';
import { NoteNotFound } from '../ledger/errors.ts';
import type { LedgerState } from '../ledger/state.ts';
import { Opcode } from '../mantle/ops.ts';
import type { PendingTx } from './pool.ts';
import { applyInRounds } from './rounds.ts';

export class PendingView {
  /** Keys of the pending transactions that apply (the view, once put in FIFO order). */
  readonly applied = new Set<string>();
  /** What each applied transaction paid and used, by key (its fee is checked again if prices move). */
  private readonly outcomes = new Map<string, TxOutcome>();
  /** Keys of the transactions in the view (applied or apart) with an op other than a transfer. */
  private readonly others = new Set<string>();
  /** The notes the applied transfers spend. */
  private readonly spent = new Set<bigint>();
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
    /** The chain's head version the view is on. */
    private headVersion: number,
    /** The id of the tip the view is on. */
    private tipId: Uint8Array,
    private viewSlot: bigint,
    private draft: Draft,
  ) {}

  get head(): number {
    return this.headVersion;
  }

  get tip(): Uint8Array {
    return this.tipId;
  }

  get slot(): bigint {
    return this.viewSlot;
  }

  /**
   * The view of `items` (FIFO) on `start` (the tip's state advanced to `slot`). An item for which
   * `accept` answers false (its proofs are not verified yet) is kept out, and listed in `held`.
   */
  static compute(
    head: number,
    tip: Uint8Array,
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
    const v = new PendingView(head, tip, slot, out.draft);
    out.applied.forEach((i, n) => {
      const key = bytesToHex(i.hash);
      v.applied.add(key);
      v.outcomes.set(key, out.outcomes[n]!);
      v.noteKind(key, i);
      v.noteSpends(i);
    });
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
    let outcome: TxOutcome;
    try {
      outcome = executeTx(this.draft, ctx, item.tx, this.slot, {
        preverified: item.hash,
        size: BigInt(item.size),
      });
    } catch (e) {
      this.draft = new Draft(before);
      this.park(item, e instanceof NoteNotFound ? e.note : undefined);
      return { applied: false, released: [] };
    } finally {
      this.draft.created = null;
    }
    return { applied: true, released: this.markApplied(key, item, created, outcome) };
  }

  /**
   * Takes a state already computed on this view with `item` applied on top (an admission's trial), with
   * the notes it created.
   */
  adopt(item: PendingTx, after: Draft, created: readonly bigint[], outcome: TxOutcome): PendingTx[] {
    const key = bytesToHex(item.hash);
    this.draft = after;
    return this.markApplied(key, item, created, outcome);
  }

  /** A transaction now in the view: the state changed; those that waited for its notes are returned. */
  private markApplied(
    key: string,
    item: PendingTx,
    created: readonly bigint[],
    outcome: TxOutcome,
  ): PendingTx[] {
    this.unpark(key);
    this.applied.add(key);
    this.outcomes.set(key, outcome);
    this.noteKind(key, item);
    this.noteSpends(item);
    this.version++;
    return this.release(created);
  }

  /** Records a transaction with an op other than a transfer (the view then never rebases). */
  private noteKind(key: string, item: PendingTx): void {
    if (item.tx.mantle_tx.ops.some((op) => op.opcode !== Opcode.Transfer)) this.others.add(key);
  }

  /** Records the notes an applied transaction spends. */
  private noteSpends(item: PendingTx): void {
    for (const n of transferInputs(item)) this.spent.add(n);
  }

  /**
   * Moves the view onto a new tip whose block extends the view's tip, if the block changed only what
   * the view already holds (see the header); `start` is the new tip's state advanced to `slot`,
   * `included` the block's transactions. Answers false, changing nothing, when the view must be
   * computed again instead.
   */
  rebase(
    head: number,
    tip: Uint8Array,
    start: Draft,
    slot: bigint,
    included: readonly Pick<PendingTx, 'hash' | 'tx'>[],
  ): boolean {
    if (this.stale || this.others.size > 0) return false;
    if (start.epoch_state.epoch !== this.draft.epoch_state.epoch) return false;
    const keys = included.map((i) => bytesToHex(i.hash));
    for (const k of keys) if (!this.applied.has(k)) return false;
    // A transaction apart for want of a note that an applied transaction (not the block's) spends
    // competes with it: which of them applies on the new tip depends on the rounds, so they are run.
    const onChain = new Set(included.flatMap(transferInputs));
    for (const n of this.waiting.keys()) if (this.spent.has(n) && !onChain.has(n)) return false;
    const execPrice = start.gas.execution_base_gas_price;
    const storagePrice = start.gas.storage_gas_price;
    if (
      execPrice !== this.draft.gas.execution_base_gas_price ||
      storagePrice !== this.draft.gas.storage_gas_price
    ) {
      // A transaction apart for another reason than a missing note may pay enough now.
      for (const k of this.unapplied.keys()) if (!this.noteOf.has(k)) return false;
      const gone = new Set(keys);
      for (const [k, o] of this.outcomes) {
        if (gone.has(k)) continue;
        if (o.mandatoryFee + o.tip < o.executionGas * execPrice + o.storageGas * storagePrice) return false;
      }
    }
    start.notes = this.draft.notes;
    start.utxos = this.draft.utxos;
    this.draft = start;
    this.headVersion = head;
    this.tipId = tip;
    this.viewSlot = slot;
    for (const k of keys) {
      this.applied.delete(k);
      this.outcomes.delete(k);
    }
    for (const n of onChain) this.spent.delete(n);
    this.version++;
    return true;
  }

  /** Keeps a transaction apart (it does not apply, or waits for its proofs). */
  park(item: PendingTx, note?: bigint): void {
    const key = bytesToHex(item.hash);
    this.unpark(key);
    this.unapplied.set(key, item);
    this.noteKind(key, item);
    if (note === undefined) return;
    this.noteOf.set(key, note);
    const at = this.waiting.get(note);
    if (at) at.add(key);
    else this.waiting.set(note, new Set([key]));
  }

  /** A transaction left the pool. */
  remove(key: string): void {
    if (this.applied.delete(key)) this.stale = true;
    this.outcomes.delete(key);
    this.others.delete(key);
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

/** The notes a transaction's transfers spend. */
function transferInputs(item: Pick<PendingTx, 'tx'>): bigint[] {
  return item.tx.mantle_tx.ops.flatMap((op) => (op.opcode === Opcode.Transfer ? op.payload.inputs : []));
}
