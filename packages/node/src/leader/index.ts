/**
 * The leader service's entry point: block production (the lottery, proofs of leadership, block
 * assembly), the choice of a block's transactions and the wallet's reward vouchers.
 */
export { type Selection, selectTransactions, txsForBlock } from './block-builder.ts';
export {
  type LeaderDeps,
  type LeaderOptions,
  LeaderService,
  NO_TRANSACTIONS,
  type TransactionSource,
} from './leader-service.ts';
export { leaderOptions } from './options.ts';
export {
  REWARD_VOUCHER,
  VOUCHER_NF,
  type Voucher,
  VoucherGenerator,
  type VoucherIndexStore,
  voucherCommitment,
  voucherNullifier,
  voucherSecret,
} from './vouchers.ts';
