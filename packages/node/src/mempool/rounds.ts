/**
 * Applying pending transactions in rounds, as the reference's block proposal does
 * (`services/chain/chain-leader/src/lib.rs` `propose_block`): each transaction is tried in order on the
 * state so far; those that fail are retried in a further round while a round applies something (a
 * transaction may depend on another that comes later in the pool); those that never apply are
 * returned apart: F calls them "not (yet) applicable" while rounds remain and "never became applicable"
 * (invalid on this state for good) once the rounds end. The rounds always run to their end, as F's
 * do; a block takes a prefix of the applied order afterwards (F `txs_for_block`).
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
  /** The execution gas of each applied transaction (same order as `applied`). */
  readonly gas: bigint[];
  /** Never applicable on this state. */
  readonly never: T[];
  /** The state after the applied transactions. */
  readonly draft: Draft;
}

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
  opts: { accept?: (item: T) => boolean } = {},
): RoundsResult<T> {
  let draft = start;
  const applied: T[] = [];
  const gasOf: bigint[] = [];
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
      if (opts.accept && !opts.accept(item)) {
        draft = new Draft(before);
        failed.push(item);
        continue;
      }
      applied.push(item);
      gasOf.push(gas);
      progress = true;
    }
    pending = failed;
  }
  return { applied, gas: gasOf, never: pending, draft };
}
