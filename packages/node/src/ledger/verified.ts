/**
 * Block and transaction application with a real proof backend: the pure ledger runs with deferred
 * checks, then every proof it relied on is verified (concurrently). Only then is the result returned.
 */
import type { Block } from '../block/block.ts';
import type { SignedMantleTx } from '../mantle/tx.ts';
import { type ApplyBlockOptions, applyBlock, type BlockResult, checkTx, type TxOutcome } from './apply.ts';
import { DeferredProofChecks } from './deferred-proofs.ts';
import type { LedgerConfig } from './parameters.ts';
import type { ProofSystem } from './proof-system.ts';
import type { LedgerState } from './state.ts';

export async function applyBlockVerified(
  state: LedgerState,
  block: Block,
  config: LedgerConfig,
  proofs: ProofSystem,
  opts: ApplyBlockOptions = {},
): Promise<BlockResult> {
  const { result, verified } = applyBlockDeferred(state, block, config, proofs, opts);
  await verified;
  return result;
}

/**
 * The pure ledger now (throws its LedgerError at once), the block's proofs sent to `proofs` at once:
 * `verified` settles when they are checked and rejects with the LedgerError of the first that fails.
 * `result` must not be relied on before `verified` resolves.
 */
export function applyBlockDeferred(
  state: LedgerState,
  block: Block,
  config: LedgerConfig,
  proofs: ProofSystem,
  opts: ApplyBlockOptions = {},
): { readonly result: BlockResult; readonly verified: Promise<void> } {
  const checks = new DeferredProofChecks();
  const result = applyBlock(state, block, { config, proofs: checks }, opts);
  return { result, verified: checks.settle(proofs) };
}

export async function checkTxVerified(
  state: LedgerState,
  tx: SignedMantleTx,
  slot: bigint,
  config: LedgerConfig,
  proofs: ProofSystem,
): Promise<TxOutcome> {
  const checks = new DeferredProofChecks();
  const out = checkTx(state, { config, proofs: checks }, tx, slot);
  await checks.settle(proofs);
  return out;
}
