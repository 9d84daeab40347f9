/** The wallet service: the only way into `wallet/` from outside. */
export {
  addLedgerInputs,
  addLedgerOutputs,
  buildTx,
  type LedgerInput,
  minimumGasCost,
  netBalance,
  newBuilder,
  txFee,
} from './builder.ts';
export { DEFAULT_WALLET, parseWalletSection, type WalletSection } from './config.ts';
export { WalletError, type WalletErrorCode } from './errors.ts';
export type {
  FundedTx,
  FundRequest,
  IWallet,
  TransferRequest,
  TxBuilder,
  WalletBalance,
} from './interface.ts';
export { type LeaderKeys, leaderKeys } from './leader-keys.ts';
export { Wallet, type WalletDeps } from './wallet-service.ts';
