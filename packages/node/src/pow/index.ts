/**
 * The proof-of-work service: ticket mining (miner.ts, winners.ts), reward claims and auto-claim, the
 * `/pow/*` endpoints' operations; index.ts is the only way in.
 */
export { AutoClaimTicker, neediestTarget, slotPeriodElapsed, type TargetBalance } from './auto-claim.ts';
export {
  buildClaimBatch,
  type ClaimBatch,
  changeOutputs,
  claimableOn,
  claimPayloadSize,
  maxClaimsByOps,
  maxClaimsByPayload,
  mintedNoteId,
} from './claims.ts';
export {
  type AutoClaimTick,
  type ClaimTarget,
  checkTargetsTracked,
  DEFAULT_POW,
  miningThreads,
  type PowSection,
  parsePowSection,
  targetKey,
} from './config.ts';
export { PowError, type PowErrorCode } from './errors.ts';
export type { ClaimableRewards, ClaimTargetStatus, IPow, PowStatus } from './interface.ts';
export { Miner, type MinerDeps, type MinerOptions } from './miner.ts';
export { type NodePowDeps, openPow } from './open.ts';
export { type MinerControl, type PowConfig, type PowDeps, PowService } from './pow-service.ts';
export { openWinnerStore, type PowWinner, type WinnerStore } from './winners.ts';
