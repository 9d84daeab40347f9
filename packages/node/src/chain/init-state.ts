/**
 * The chain's starting point, chosen from what is stored: the genesis time (the stored one; else the
 * deployment's; else, for a deployment that leaves it open, the current second) and whether consensus
 * starts Online (F: the chain service's start-up, with the recorded state and the offline grace
 * period; see bootstrap-state.ts).
 */
import type { Deployment } from '../ledger/deployment.ts';
import type { ChainStore } from '../storage/chain-store.ts';
import { chooseEngineState, type LastEngineState } from './bootstrap-state.ts';

export interface InitStateSettings {
  readonly forceBootstrap: boolean;
  /** Seconds. */
  readonly gracePeriod: number;
}

export interface InitState {
  /** Unix ms of slot 0. */
  readonly genesisTimeMs: number;
  readonly online: boolean;
}

export function chooseInitState(
  store: ChainStore,
  deployment: Deployment,
  settings: InitStateSettings,
  nowMs: number = Date.now(),
): InitState {
  const meta = store.meta();
  const genesisTimeMs =
    meta.genesisTimeMs !== undefined
      ? Number(meta.genesisTimeMs)
      : deployment.genesis.genesis_time !== null
        ? deployment.genesis.genesis_time * 1000
        : Math.floor(nowMs / 1000) * 1000;
  const stored = meta.state;
  const lastState: LastEngineState | undefined =
    stored === 'Online' || stored === 'Bootstrapping'
      ? // inferred: a state stored without its time counts as recorded long ago (docs/design/fidelity.md)
        { state: stored, timestampMs: Number(meta.lastOnlineMs ?? 0n) }
      : undefined;
  const libIsGenesis = meta.lib === undefined || store.info(meta.lib)?.height === 0n;
  const online =
    chooseEngineState(
      libIsGenesis,
      { forceBootstrap: settings.forceBootstrap, gracePeriodMs: settings.gracePeriod * 1000 },
      lastState,
      nowMs,
    ) === 'Online';
  return { genesisTimeMs, online };
}
