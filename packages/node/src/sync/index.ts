/**
 * The chain sync entry point, the only import path into `sync/` from outside: the sync service (chain
 * sync server and client, IBD, orphan downloads, tip polling), its settings, the bootstrap phases and the
 * interface gossip hands orphan blocks to.
 */

export {
  CHECKPOINT_PROTOCOL,
  type CheckpointSource,
  fetchCheckpoint,
  MAX_CHECKPOINT_BYTES,
  serveCheckpoints,
} from './checkpoint-protocol.ts';
export { DEFAULT_SYNC, parseSyncConfig, type SyncConfig } from './config.ts';
export { SyncError, type SyncErrorCode } from './errors.ts';
export { IBD_FAILED_MESSAGE } from './ibd.ts';
export type { IBlockSync, OrphanSink } from './interface.ts';
export {
  BootstrapPhases,
  type BootstrapPhasesDeps,
  type BootstrapPhasesOptions,
  type OnlineSwitch,
  type Phase,
  type PhaseSource,
} from './phases.ts';
export {
  type IbdProgress,
  SyncService,
  type SyncServiceDeps,
  type SyncServiceOptions,
} from './sync-service.ts';
