/**
 * Applying pending transactions in rounds, as the reference's block proposal does
 * (`services/chain/chain-leader/src/lib.rs` `propose_block`): each transaction is tried in order on the
 * state so far; those that fail are retried in a further round while a round applies something (a
 * transaction may depend on another that comes later in the pool); those that never apply are
 * returned apart. An optional limit stops the rounds at the first applicable transaction that does not
 * fit (F `txs_for_block`: the selection is a prefix of the applicable order).
 */
import { executeTx } from '../ledger/apply.ts';
import { Draft, type LedgerContext } from '../ledger/draft.ts';
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
  /** Never applicable on this state (empty when a limit stopped the rounds early). */
  readonly never: T[];
  /** Whether a limit stopped the rounds. */
  readonly stopped: boolean;
  /** The state after the applied transactions. */
  readonly draft: Draft;
}

/** Says whether a transaction of `size` bytes and `gas` execution gas still fits; false stops the rounds. */
export type Fits = (applied: number, size: number, executionGas: bigint) => boolean;

/**
 * Tries `items` in rounds on `draft` (which it advances). `ctxFor` gives the ledger context to apply an
 * item with (its proof checks); an item for which `accept` answers false after applying is rolled back
 * and kept out, without counting as applied.
 */
export function applyInRounds<T extends RoundItem>(
  start: Draft,
  slot: bigint,
  items: Iterable<T>,
  ctxFor: (item: T) => LedgerContext,
  opts: { fits?: Fits; accept?: (item: T) => boolean } = {},
): RoundsResult<T> {
  let draft = start;
  const applied: T[] = [];
  let pending = [...items];
  let progress = true;
  while (progress && pending.length > 0) {
    progress = false;
    const failed: T[] = [];
    for (let i = 0; i < pending.length; i++) {
      const item = pending[i]!;
      const before = draft.state();
      let gas: bigint;
      try {
        gas = executeTx(draft, ctxFor(item), item.tx, slot, {
          preverified: item.hash,
          size: BigInt(item.size),
        }).executionGas;
      } catch {
        draft = new Draft(before);
        failed.push(item);
        continue;
      }
      if (opts.fits && !opts.fits(applied.length, item.size, gas)) {
        return { applied, never: [], stopped: true, draft: new Draft(before) };
      }
      if (opts.accept && !opts.accept(item)) {
        draft = new Draft(before);
        failed.push(item);
        continue;
      }
      applied.push(item);
      progress = true;
    }
    pending = failed;
  }
  return { applied, never: pending, stopped: false, draft };
}
