/**
 * Applying pending transactions in rounds, as the reference's block proposal does
 * (`services/chain/chain-leader/src/lib.rs` `propose_block`): each transaction is tried in order on the
 * state so far; those that fail are retried in a further round while a round applies something (a
 * transaction may depend on another that comes later in the pool); those that never apply are
 * returned apart: F calls them "not (yet) applicable" while rounds remain and "never became applicable"
 * (invalid on this state for good) once the rounds end. The rounds always run to their end, as F's
 * do; a block takes a prefix of the applied order afterwards (F `txs_for_block`).
 *
 * The same result at a cost in proportion to what can apply: a transaction that failed because a note
 * it spends does not exist (`NoteNotFound`) fails on every state without that note, so it is not tried
 * again until a transaction creates the note; then it is tried in the same round if it comes later in
 * the order than the creator (where the reference's round would reach it after the creator), else in
 * the next round (where the reference retries it). A transaction that failed for another reason is
 * retried in every further round, as the reference does. Junk spending notes that never exist is thus
 * tried once, not once per round.
 */
import { executeTx, type TxOutcome } from '../ledger/apply.ts';
import { Draft, type LedgerContext } from '../ledger/draft.ts';
import { NoteNotFound } from '../ledger/errors.ts';
import type { SignedMantleTx } from '../mantle/tx.ts';

export interface RoundItem {
  readonly hash: Uint8Array;
  readonly tx: SignedMantleTx;
  /** Encoded size in bytes. */
  readonly size: number;
}

export interface RoundsResult<T extends RoundItem> {
  /** Applied, in application order. */
  readonly applied: T[];
  /** The outcome of each applied transaction, its execution gas with it (same order as `applied`). */
  readonly outcomes: TxOutcome[];
  /** Never applicable on this state, in the given order. */
  readonly never: T[];
  /** Of `never`, those that lack a note: the note each waits for. */
  readonly waitsFor: Map<T, bigint>;
  /** The state after the applied transactions. */
  readonly draft: Draft;
}

/** A min-heap of positions in the given order. */
class Positions {
  private readonly h: number[] = [];
  get size(): number {
    return this.h.length;
  }
  push(v: number): void {
    const h = this.h;
    let i = h.push(v) - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (h[p]! <= v) break;
      h[i] = h[p]!;
      i = p;
    }
    h[i] = v;
  }
  pop(): number {
    const h = this.h;
    const top = h[0]!;
    const last = h.pop()!;
    if (h.length > 0) {
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= h.length) break;
        const c = l + 1 < h.length && h[l + 1]! < h[l]! ? l + 1 : l;
        if (h[c]! >= last) break;
        h[i] = h[c]!;
        i = c;
      }
      h[i] = last;
    }
    return top;
  }
}

/**
 * Tries `items` in rounds on `draft` (which it advances). `ctxFor` gives the ledger context to apply an
 * item with (its proof checks); an item for which `accept` answers false after applying is rolled back
 * and kept out for good (its answer must not change during the call).
 */
export function applyInRounds<T extends RoundItem>(
  start: Draft,
  slot: bigint,
  items: Iterable<T>,
  ctxFor: (item: T) => LedgerContext,
  opts: { accept?: (item: T) => boolean } = {},
): RoundsResult<T> {
  const list = [...items];
  let draft = start;
  const applied: T[] = [];
  const outcomes: TxOutcome[] = [];
  /** Positions waiting for a note, by note. */
  const waiting = new Map<bigint, number[]>();
  const noteOf = new Map<number, bigint>();
  const refused = new Set<number>();
  let round = new Positions();
  for (let i = 0; i < list.length; i++) round.push(i);
  let otherFailures: number[] = [];
  while (round.size > 0) {
    let progress = false;
    const next = new Positions();
    otherFailures = [];
    while (round.size > 0) {
      const i = round.pop();
      const item = list[i]!;
      const before = draft.state();
      const created: bigint[] = [];
      draft.created = created;
      let outcome: TxOutcome;
      try {
        outcome = executeTx(draft, ctxFor(item), item.tx, slot, {
          preverified: item.hash,
          size: BigInt(item.size),
        });
      } catch (e) {
        draft = new Draft(before);
        if (e instanceof NoteNotFound) {
          const at = waiting.get(e.note);
          if (at) at.push(i);
          else waiting.set(e.note, [i]);
          noteOf.set(i, e.note);
        } else otherFailures.push(i);
        continue;
      } finally {
        draft.created = null;
      }
      if (opts.accept && !opts.accept(item)) {
        draft = new Draft(before);
        refused.add(i);
        continue;
      }
      applied.push(item);
      outcomes.push(outcome);
      progress = true;
      for (const note of created) {
        const released = waiting.get(note);
        if (!released) continue;
        waiting.delete(note);
        for (const j of released) {
          noteOf.delete(j);
          // Later in the order: this round reaches it after its note exists; earlier: the next round.
          if (j > i) round.push(j);
          else next.push(j);
        }
      }
    }
    if (!progress) break;
    for (const j of otherFailures) next.push(j);
    round = next;
  }
  const never: T[] = [];
  const waitsFor = new Map<T, bigint>();
  for (let i = 0; i < list.length; i++) {
    const note = noteOf.get(i);
    if (note !== undefined) {
      never.push(list[i]!);
      waitsFor.set(list[i]!, note);
    }
  }
  // Every position not applied is waiting, refused or among the last round's other failures.
  const out = new Set<number>([...otherFailures, ...refused]);
  for (const i of out) never.push(list[i]!);
  const order = new Map(list.map((x, i) => [x, i]));
  never.sort((a, b) => order.get(a)! - order.get(b)!);
  return { applied, outcomes, never, waitsFor, draft };
}
