/**
 * Choosing a block's transactions: candidates (from the mempool) are tried in order on the state the
 * block will be applied to; a candidate that is invalid there, or would break the block limits
 * (1,024 transactions, 2 MiB of transactions, the execution-gas limit), is left out and the next one
 * is tried.
 */
import { MAX_BLOCK_TRANSACTIONS, MAX_BLOCK_TRANSACTIONS_SIZE } from '../block/block.ts';
import { executeTx } from '../ledger/apply.ts';
import { Draft, type LedgerContext } from '../ledger/draft.ts';
import { advanceEpoch } from '../ledger/epoch.ts';
import { MAX_BLOCK_EXECUTION_GAS } from '../ledger/parameters.ts';
import type { LedgerState } from '../ledger/state.ts';
import { encodeSignedTx, type SignedMantleTx } from '../mantle/tx.ts';

export interface Selection {
  readonly txs: SignedMantleTx[];
  /** Candidates left out, with the reason. */
  readonly skipped: { tx: SignedMantleTx; reason: string }[];
}

export function selectTransactions(
  parent: LedgerState,
  ctx: LedgerContext,
  slot: bigint,
  candidates: Iterable<SignedMantleTx>,
): Selection {
  let draft = new Draft(parent);
  advanceEpoch(draft, ctx.config, slot);
  const txs: SignedMantleTx[] = [];
  const skipped: { tx: SignedMantleTx; reason: string }[] = [];
  let size = 0;
  let gas = 0n;
  for (const tx of candidates) {
    if (txs.length >= MAX_BLOCK_TRANSACTIONS) break;
    const txSize = encodeSignedTx(tx).length;
    if (size + txSize > MAX_BLOCK_TRANSACTIONS_SIZE) {
      skipped.push({ tx, reason: 'the block size limit would be exceeded' });
      continue;
    }
    const before = draft.state();
    try {
      const out = executeTx(draft, ctx, tx, slot, { size: BigInt(txSize) });
      if (gas + out.executionGas > MAX_BLOCK_EXECUTION_GAS)
        throw new Error('the block execution-gas limit would be exceeded');
      gas += out.executionGas;
      size += txSize;
      txs.push(tx);
    } catch (e) {
      draft = new Draft(before);
      skipped.push({ tx, reason: (e as Error).message });
    }
  }
  return { txs, skipped };
}
