/** Why the wallet refused a request. Texts of the reference where it has them (`wallet/src/error.rs`). */
import { LogosError } from '@logos-ts/shared/errors';

export type WalletErrorCode =
  /** The funding keys' spendable notes do not cover the transaction. */
  | 'WALLET_INSUFFICIENT_FUNDS'
  /** No wallet state at the named block (not in the block tree above the LIB). */
  | 'WALLET_UNKNOWN_BLOCK'
  /** The builder cannot be built or priced (bounds, a missing channel threshold, a negative balance). */
  | 'WALLET_TX_BUILDER'
  /** The funded transfer spends more notes than one ZK signature can cover. */
  | 'WALLET_TOO_MANY_INPUTS'
  /** `/wallet/fund`: the fee is above the caller's `max_tx_fee`. */
  | 'WALLET_FEE_ABOVE_MAX'
  /** Signing needs ledger data that the tip does not hold (an input note, a declaration, a channel). */
  | 'WALLET_MISSING_LEDGER_DATA'
  /** Signing needs a proof the builder should carry (channel multi-signature, PoC). */
  | 'WALLET_MISSING_PROOF';

export interface WalletErrorMeta {
  readonly available?: bigint;
  readonly fee?: bigint;
  readonly cap?: bigint;
  readonly opIndex?: number;
  readonly [key: string]: unknown;
}

export class WalletError extends LogosError<WalletErrorMeta> {
  declare readonly code: WalletErrorCode;

  constructor(code: WalletErrorCode, message: string, meta: WalletErrorMeta = {}) {
    super(code, message, { meta });
  }
}
LogosError.register(WalletError);

/** F `WalletError::InsufficientFunds`. */
export const insufficientFunds = (available: bigint) =>
  new WalletError('WALLET_INSUFFICIENT_FUNDS', `Wallet does not have enough funds, available=${available}`, {
    available,
  });

/** F `TxBuilderError`, wrapped as F `WalletError::TxBuilder`. */
export const txBuilderError = (detail: string) =>
  new WalletError('WALLET_TX_BUILDER', `Transaction builder error: ${detail}`);
