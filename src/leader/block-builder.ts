/**
 * Choosing a block's transactions as the reference does (`services/chain/chain-leader/src/lib.rs`
 * `propose_block`, `txs_for_block`): the candidates (the mempool's, FIFO) are applied one by one on the
 * state the block will be applied to; failures are retried in further rounds while a round applies
 * something (dependent transactions); the block takes the applicable ones in that order up to the first
 * that does not fit (1,024 transactions, 2 MiB of transactions, and the execution-gas limit). The
 * candidates that never applied are returned, for the mempool to drop.
 */
import { MAX_BLOCK_TRANSACTIONS, MAX_BLOCK_TRANSACTIONS_SIZE } from '../block/block.ts';
import { Draft, type LedgerContext } from '../ledger/draft.ts';
import { advanceEpoch } from '../ledger/epoch.ts';
import { MAX_BLOCK_EXECUTION_GAS } from '../ledger/parameters.ts';
import type { LedgerState } from '../ledger/state.ts';
import { encodeSignedTx, type SignedMantleTx, txHash } from '../mantle/tx.ts';
import { applyInRounds } from '../mempool/index.ts';

export interface Selection {
  readonly txs: SignedMantleTx[];
  /**
   * Candidates that apply in no round on this state: invalid here for good, to be evicted. Empty when
   * the block filled up before the rounds ended (what did not apply yet might still).
   */
  readonly invalid: { tx: SignedMantleTx; hash: Uint8Array }[];
}

/** Whether a transaction of `size` bytes joins `count` transactions of `total` bytes in a block. */
function fitsInBlock(count: number, total: number, size: number): boolean {
  return count < MAX_BLOCK_TRANSACTIONS && total + size <= MAX_BLOCK_TRANSACTIONS_SIZE;
}

/**
 * F `txs_for_block`: the length of the longest prefix of `sizes` within 1,024 items and 2 MiB; it stops
 * at the first item that does not fit, never skipping ahead (a later transaction may depend on it).
 */
export function txsForBlock(sizes: readonly number[]): number {
  let total = 0;
  let n = 0;
  for (const size of sizes) {
    if (!fitsInBlock(n, total, size)) break;
    total += size;
    n++;
  }
  return n;
}

/** A candidate whose hash and size are computed when first asked (most of a large pool is never tried). */
class Candidate {
  private h: Uint8Array | undefined;
  private n: number | undefined;

  constructor(readonly tx: SignedMantleTx) {}

  get hash(): Uint8Array {
    this.h ??= txHash(this.tx.mantle_tx);
    return this.h;
  }

  get size(): number {
    this.n ??= encodeSignedTx(this.tx).length;
    return this.n;
  }
}

export function selectTransactions(
  parent: LedgerState,
  ctx: LedgerContext,
  slot: bigint,
  candidates: Iterable<SignedMantleTx>,
): Selection {
  const draft = new Draft(parent);
  advanceEpoch(draft, ctx.config, slot);
  const items = [...candidates].map((tx) => new Candidate(tx));
  let bytes = 0;
  let gas = 0n;
  const out = applyInRounds(draft, slot, items, () => ctx, {
    fits: (count, size, txGas) => {
      if (!fitsInBlock(count, bytes, size)) return false;
      if (gas + txGas > MAX_BLOCK_EXECUTION_GAS) return false;
      bytes += size;
      gas += txGas;
      return true;
    },
  });
  return {
    txs: out.applied.map((i) => i.tx),
    invalid: out.never.map((i) => ({ tx: i.tx, hash: i.hash })),
  };
}
