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
  const checks = new DeferredProofChecks();
  const result = applyBlock(state, block, { config, proofs: checks }, opts);
  await checks.settle(proofs);
  return result;
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
