/** The mempool's entry point: the pending-transaction pool and its errors. */
export { MempoolError, type MempoolErrorCode } from './errors.ts';
export {
  type AddResult,
  MAX_TX_BYTES,
  type PendingTx,
  type PoolLimits,
  PREFIX_BYTES,
  TxPool,
} from './pool.ts';
