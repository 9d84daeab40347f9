/** Shared by the ledger unit tests: a refusal by ledger code, a fee-paying transaction, the test epoch length. */
import assert from 'node:assert/strict';
import { LedgerError } from '../../../src/ledger/errors.ts';
import type { Op } from '../../../src/mantle/ops.ts';
import { feeOp, type Owned, signTx } from '../../mocks/ledger.ts';

export function rejects(fn: () => unknown, code: string) {
  assert.throws(fn, (e: unknown) => e instanceof LedgerError && e.ledgerCode === code, `expected ${code}`);
}

/** A fee-paying transfer op plus the given ops, with the ZK keys of each op. */
export function withFee(fund: Owned, ops: Op[], keys: bigint[][], custom?: Parameters<typeof signTx>[2]) {
  return signTx([feeOp(fund).op, ...ops], [[fund.sk], ...keys], custom);
}

/** The test deployment's epoch length in slots. */
export const EPOCH = 200n;
