/**
 * Funding a builder from a wallet's notes (F `WalletState::fund_tx`, `wallet/src/lib.rs`): candidates
 * largest first; a builder already funded is returned as it is (with change when its surplus pays for
 * a change note); otherwise candidates are added one at a time until the balance covers the required
 * fee exactly (no change) or leaves at least 1 over the fee of the transaction with a change note.
 */
import type { Fr } from '../crypto/field.ts';
import type { GasContext } from '../ledger/gas.ts';
import { addLedgerInputs, fundingDelta, type LedgerInput, returnChange } from './builder.ts';
import { insufficientFunds } from './errors.ts';
import type { TxBuilder } from './interface.ts';

/**
 * Funds `builder` from `candidates` (the funding keys' spendable notes, excluded ones already removed).
 * Throws `WalletError` (insufficient funds with the candidates' total, or a builder error).
 */
export function fundBuilder(
  builder: TxBuilder,
  candidates: readonly LedgerInput[],
  changePk: Fr,
  ctx: GasContext,
  priorityFeePercent: bigint,
): TxBuilder {
  // Largest first (a stable sort: equal values keep the wallet's order).
  const sorted = [...candidates].sort((a, b) =>
    a.utxo.note.value > b.utxo.note.value ? -1 : a.utxo.note.value < b.utxo.note.value ? 1 : 0,
  );
  const delta = fundingDelta(builder, ctx, priorityFeePercent);
  if (delta === 0n) return builder;
  if (delta > 0n) {
    const withChange = returnChange(builder, ctx, changePk, priorityFeePercent);
    if (withChange) return withChange;
  }
  for (let i = 0; i < sorted.length; i++) {
    const funded = addLedgerInputs(builder, sorted.slice(0, i + 1));
    const d = fundingDelta(funded, ctx, priorityFeePercent);
    if (d === 0n) return funded;
    if (d > 0n) {
      const withChange = returnChange(funded, ctx, changePk, priorityFeePercent);
      if (withChange) return withChange;
    }
  }
  let available = 0n;
  for (const c of sorted) available += c.utxo.note.value;
  throw insufficientFunds(available);
}
