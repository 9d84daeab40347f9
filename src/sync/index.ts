/**
 * The chain sync entry point, the only import path into `sync/` from outside: the bootstrap phases and
 * the interface gossip hands orphan blocks to.
 */
export type { IBlockSync, OrphanSink } from './interface.ts';
export {
  BootstrapPhases,
  type BootstrapPhasesDeps,
  type BootstrapPhasesOptions,
  type OnlineSwitch,
  type Phase,
  type PhaseSource,
} from './phases.ts';
