/**
 * The Blend service's modes and their changes at epoch boundaries (F: services/blend/src/instance.rs
 * `Instance`, `Mode::choose`; services/blend/src/modes/**).
 *
 * Each epoch the node runs in one mode: `broadcast` when the epoch has fewer core nodes than
 * `minimum_network_size` (messages go straight to the gossip network, no blending), else `core` when
 * this node is one of them, else `edge` (it sends its messages into the core network). Leaving core
 * mode keeps the old core instance running through the epoch transition period (`EdgeAfterCore`,
 * `BroadcastAfterCore`), so that it can release what it still holds for the old epoch; it is stopped
 * when the period ends or at the next change. Any other change stops what runs and starts the new
 * mode; staying in a mode keeps its instance.
 *
 * A pure reducer: `next(state, event)` gives the new state and the instances to stop and to start,
 * in that order.
 */

export type BlendMode = 'broadcast' | 'core' | 'edge';

/** F: `Mode::choose`. */
export function chooseMode(
  membershipSize: number,
  minimumNetworkSize: number | bigint,
  isMember: boolean,
): BlendMode {
  if (BigInt(membershipSize) < BigInt(minimumNetworkSize)) return 'broadcast';
  return isMember ? 'core' : 'edge';
}

/** What runs (F: the `Instance` variants). */
export type ModeState = 'Core' | 'Edge' | 'Broadcast' | 'EdgeAfterCore' | 'BroadcastAfterCore';

export type ModeEvent =
  | {
      readonly kind: 'EpochChanged';
      readonly membershipSize: number;
      readonly minimumNetworkSize: number | bigint;
      /** This node is a core node of the new epoch. */
      readonly isMember: boolean;
    }
  | { readonly kind: 'TransitionEnded' };

export interface ModeTransition {
  readonly state: ModeState;
  /** Instances to stop (in `…AfterCore` states, `core` is the previous epoch's core instance). */
  readonly stop: readonly BlendMode[];
  /** Instances to start. */
  readonly start: readonly BlendMode[];
}

/** The instances a state runs: its mode first, then the previous core instance if kept. */
export function running(state: ModeState): BlendMode[] {
  switch (state) {
    case 'Core':
      return ['core'];
    case 'Edge':
      return ['edge'];
    case 'Broadcast':
      return ['broadcast'];
    case 'EdgeAfterCore':
      return ['edge', 'core'];
    case 'BroadcastAfterCore':
      return ['broadcast', 'core'];
  }
}

/**
 * Whether a core epoch's messages still go out in `state`: the current epoch's while the node is core;
 * the previous epoch's also in `EdgeAfterCore` and `BroadcastAfterCore`, whose previous core instance
 * runs on through the transition period to release what it holds (F `Instance::…AfterCore { prev }`;
 * it stops when the period ends, `handle_transition_period_expired`).
 */
export function coreEpochServes(state: ModeState, epoch: 'current' | 'previous'): boolean {
  return epoch === 'current' ? state === 'Core' : running(state).includes('core');
}

const STATE_OF: Record<BlendMode, ModeState> = { core: 'Core', edge: 'Edge', broadcast: 'Broadcast' };

/** The first state, for the mode of the first epoch (F: `Instance::new`). */
export function initialMode(mode: BlendMode): ModeTransition {
  return { state: STATE_OF[mode], stop: [], start: [mode] };
}

/** F: `Instance::transition` to `to`. */
function transition(state: ModeState, to: BlendMode): ModeTransition {
  const stay = { state, stop: [], start: [] };
  switch (to) {
    case 'core':
      if (state === 'Core') return stay;
      return { state: 'Core', stop: running(state), start: ['core'] };
    case 'edge':
      if (state === 'Edge') return stay;
      if (state === 'Core') return { state: 'EdgeAfterCore', stop: [], start: ['edge'] };
      if (state === 'EdgeAfterCore') return { state: 'Edge', stop: ['core'], start: [] };
      return { state: 'Edge', stop: running(state), start: ['edge'] };
    case 'broadcast':
      if (state === 'Broadcast') return stay;
      if (state === 'Core') return { state: 'BroadcastAfterCore', stop: [], start: ['broadcast'] };
      if (state === 'BroadcastAfterCore') return { state: 'Broadcast', stop: ['core'], start: [] };
      return { state: 'Broadcast', stop: running(state), start: ['broadcast'] };
  }
}

/** F: `Instance::handle_epoch_event`. */
export function next(state: ModeState, event: ModeEvent): ModeTransition {
  if (event.kind === 'EpochChanged') {
    return transition(state, chooseMode(event.membershipSize, event.minimumNetworkSize, event.isMember));
  }
  switch (state) {
    case 'EdgeAfterCore':
      return { state: 'Edge', stop: ['core'], start: [] };
    case 'BroadcastAfterCore':
      return { state: 'Broadcast', stop: ['core'], start: [] };
    default:
      return { state, stop: [], start: [] };
  }
}
