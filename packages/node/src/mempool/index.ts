/**
 * The mempool's entry point: the service and its interface, its configuration, the pure pool, the
 * in-rounds application shared with block building, and its errors.
 */
export {
  DEFAULT_MEMPOOL,
  type MempoolConfig,
  type MempoolSection,
  mempoolConfig,
  parseMempoolSection,
  verifierThreads,
} from './config.ts';
export { MempoolError, type MempoolErrorCode } from './errors.ts';
export type {
  AddOutcome,
  AddResult,
  IMempool,
  MempoolEvents,
  MempoolMetrics,
  TxOrigin,
} from './interface.ts';
export { Mempool, type MempoolDeps } from './mempool.ts';
export {
  type AddResult as PoolAddResult,
  MAX_TX_BYTES,
  type PendingTx,
  type PoolLimits,
  TxPool,
} from './pool.ts';
export { PREFIX_BYTES } from './prefix-index.ts';
export { applyInRounds, type RoundItem, type RoundsResult } from './rounds.ts';
