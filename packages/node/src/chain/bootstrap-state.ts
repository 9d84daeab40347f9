/**
 * The consensus state a node starts in (F: `services/chain/chain-service/src/bootstrap/state.rs`).
 * Bootstrapping when the LIB is the genesis block or `force_bootstrap` is set; otherwise the last recorded
 * state if it was recorded within the offline grace period, Bootstrapping if it is older (or lies in the
 * future: the offline time cannot be measured); Online when no state was ever recorded.
 */
import type { ConsensusState } from '../consensus/engine.ts';

/** The consensus state last recorded, and when (Unix ms). F `LastEngineState`. */
export interface LastEngineState {
  readonly state: ConsensusState;
  readonly timestampMs: number;
}

export interface BootstrapSettings {
  readonly forceBootstrap: boolean;
  /** Longest offline time (ms) after which the node bootstraps again. */
  readonly gracePeriodMs: number;
}

export function chooseEngineState(
  libIsGenesis: boolean,
  settings: BootstrapSettings,
  last: LastEngineState | undefined,
  nowMs: number,
): ConsensusState {
  if (libIsGenesis || settings.forceBootstrap) return 'Bootstrapping';
  if (last === undefined) return 'Online';
  const elapsed = nowMs - last.timestampMs;
  // A negative offline time: measured against a clock that went back; be conservative.
  if (elapsed < 0) return 'Bootstrapping';
  return elapsed > settings.gracePeriodMs ? 'Bootstrapping' : last.state;
}
