/**
 * The chain's entry point, the only import path into `chain/` from outside: the `IChain` interface
 * and its events, the `ChainService` that implements it, typed block rejections, the gossip
 * pre-check, the slot clock and the starting consensus state.
 */
export { type BootstrapSettings, chooseEngineState, type LastEngineState } from './bootstrap-state.ts';
export { ChainService, type ChainServiceDeps, type ChainServiceOptions } from './chain-service.ts';
export {
  type Checkpoint,
  type CheckpointSummary,
  checkpointSummary,
  decodeCheckpoint,
  encodeCheckpoint,
} from './checkpoint.ts';
export { SlotClock } from './clock.ts';
export {
  type CryptarchiaSection,
  DEFAULT_CRYPTARCHIA,
  parseCryptarchiaSection,
} from './config.ts';
export {
  type BlockAction,
  BlockRejected,
  type BlockRejectedCode,
  type BlockRejectedMeta,
  headerIdText,
} from './errors.ts';
export { chooseInitState } from './init-state.ts';
export type { BlockRef, ChainEvents, ChainTip, IChain, ProcessedBlock, RefusedBlock } from './interface.ts';
export { type GossipBlockContext, SeenBlocks, validateGossipBlock } from './validation/gossip-block.ts';
