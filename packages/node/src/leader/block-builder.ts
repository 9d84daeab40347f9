/**
 * Choosing a block's transactions as the reference does (`services/chain/chain-leader/src/lib.rs`
 * `propose_block`, `txs_for_block`): the candidates (the mempool's, FIFO) are applied one by one on the
 * state the block will be applied to; failures are retried in further rounds while a round applies
 * something (dependent transactions), over every candidate, whatever the block can hold; the block
 * then takes the applicable ones in that order up to the first that does not fit (1,024 transactions,
 * 2 MiB of transactions, and the execution-gas limit). The candidates that never applied in any round
 * ("never became applicable", invalid on this state for good) are returned for the mempool to drop,
 * also when the block is full: F evicts them before it cuts the block (`propose_block`).
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
  /** Candidates that apply in no round on this state: invalid here for good, to be evicted. */
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

/** A candidate whose hash and size are computed once, when first asked. */
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
  const out = applyInRounds(draft, slot, items, () => ctx);
  // F `txs_for_block`: the longest prefix of the applied order within the limits.
  let bytes = 0;
  let gas = 0n;
  let n = 0;
  for (; n < out.applied.length; n++) {
    const size = out.applied[n]!.size;
    const txGas = out.outcomes[n]!.executionGas;
    if (!fitsInBlock(n, bytes, size) || gas + txGas > MAX_BLOCK_EXECUTION_GAS) break;
    bytes += size;
    gas += txGas;
  }
  return {
    txs: out.applied.slice(0, n).map((i) => i.tx),
    invalid: out.never.map((i) => ({ tx: i.tx, hash: i.hash })),
  };
}
