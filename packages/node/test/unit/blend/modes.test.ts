/** Blend modes: the tests of F services/blend/src/instance.rs, on the pure reducer. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  type BlendMode,
  chooseMode,
  coreEpochServes,
  initialMode,
  type ModeState,
  type ModeTransition,
  next,
  running,
} from '../../../src/blend/modes.ts';

/** An epoch change whose membership selects `mode`. */
function epochFor(mode: BlendMode) {
  return {
    kind: 'EpochChanged' as const,
    membershipSize: mode === 'broadcast' ? 0 : 2,
    minimumNetworkSize: 1,
    isMember: mode === 'core',
  };
}

function go(from: ModeState, to: BlendMode): ModeTransition {
  return next(from, epochFor(to));
}

// F: services/blend/src/instance.rs::test_new
test('test_new: each mode starts as itself', () => {
  assert.deepEqual(initialMode('core'), { state: 'Core', stop: [], start: ['core'] });
  assert.deepEqual(initialMode('edge'), { state: 'Edge', stop: [], start: ['edge'] });
  assert.deepEqual(initialMode('broadcast'), { state: 'Broadcast', stop: [], start: ['broadcast'] });
});

// F: services/blend/src/instance.rs::test_transition_to_core
test('test_transition_to_core: to core from every state', () => {
  assert.deepEqual(go('Core', 'core'), { state: 'Core', stop: [], start: [] });
  assert.deepEqual(go('Edge', 'core'), { state: 'Core', stop: ['edge'], start: ['core'] });
  assert.equal(go('Core', 'edge').state, 'EdgeAfterCore');
  assert.deepEqual(go('EdgeAfterCore', 'core'), { state: 'Core', stop: ['edge', 'core'], start: ['core'] });
  assert.deepEqual(go('Broadcast', 'core'), { state: 'Core', stop: ['broadcast'], start: ['core'] });
  assert.equal(go('Core', 'broadcast').state, 'BroadcastAfterCore');
  assert.deepEqual(go('BroadcastAfterCore', 'core'), {
    state: 'Core',
    stop: ['broadcast', 'core'],
    start: ['core'],
  });
});

// F: services/blend/src/instance.rs::test_transition_to_edge
test('test_transition_to_edge: to edge from every state', () => {
  assert.deepEqual(go('Core', 'edge'), { state: 'EdgeAfterCore', stop: [], start: ['edge'] });
  assert.deepEqual(go('Edge', 'edge'), { state: 'Edge', stop: [], start: [] });
  assert.deepEqual(go('EdgeAfterCore', 'edge'), { state: 'Edge', stop: ['core'], start: [] });
  assert.deepEqual(go('Broadcast', 'edge'), { state: 'Edge', stop: ['broadcast'], start: ['edge'] });
  assert.deepEqual(go('BroadcastAfterCore', 'edge'), {
    state: 'Edge',
    stop: ['broadcast', 'core'],
    start: ['edge'],
  });
});

// F: services/blend/src/instance.rs::test_transition_to_broadcast
test('test_transition_to_broadcast: to broadcast from every state', () => {
  assert.deepEqual(go('Core', 'broadcast'), { state: 'BroadcastAfterCore', stop: [], start: ['broadcast'] });
  assert.deepEqual(go('Edge', 'broadcast'), { state: 'Broadcast', stop: ['edge'], start: ['broadcast'] });
  assert.deepEqual(go('EdgeAfterCore', 'broadcast'), {
    state: 'Broadcast',
    stop: ['edge', 'core'],
    start: ['broadcast'],
  });
  assert.deepEqual(go('Broadcast', 'broadcast'), { state: 'Broadcast', stop: [], start: [] });
  assert.deepEqual(go('BroadcastAfterCore', 'broadcast'), { state: 'Broadcast', stop: ['core'], start: [] });
});

// F: services/blend/src/instance.rs::test_handle_epoch_event (minimal network size 1)
test('test_handle_epoch_event: epoch events: core, broadcast after core, broadcast, edge, edge, core', () => {
  let state: ModeState = 'Core';
  const step = (event: Parameters<typeof next>[1]): ModeState => {
    state = next(state, event).state;
    return state;
  };
  const epoch = (membershipSize: number, isMember: boolean) => ({
    kind: 'EpochChanged' as const,
    membershipSize,
    minimumNetworkSize: 1,
    isMember,
  });
  // An empty membership, smaller than the minimal size.
  assert.equal(step(epoch(0, false)), 'BroadcastAfterCore');
  assert.equal(step({ kind: 'TransitionEnded' }), 'Broadcast');
  // Membership [1] without the local node.
  assert.equal(step(epoch(1, false)), 'Edge');
  assert.equal(step(epoch(1, false)), 'Edge');
  // Membership [1] where node 1 is the local node.
  assert.equal(step(epoch(1, true)), 'Core');
});

test('the end of a transition stops the kept core instance, and nothing else', () => {
  assert.deepEqual(next('EdgeAfterCore', { kind: 'TransitionEnded' }), {
    state: 'Edge',
    stop: ['core'],
    start: [],
  });
  assert.deepEqual(next('BroadcastAfterCore', { kind: 'TransitionEnded' }), {
    state: 'Broadcast',
    stop: ['core'],
    start: [],
  });
  for (const s of ['Core', 'Edge', 'Broadcast'] as const) {
    assert.deepEqual(next(s, { kind: 'TransitionEnded' }), { state: s, stop: [], start: [] });
  }
});

test('the mode of an epoch: broadcast below the minimum size, else core for a member, else edge', () => {
  assert.equal(chooseMode(1, 2n, true), 'broadcast');
  assert.equal(chooseMode(2, 2n, true), 'core');
  assert.equal(chooseMode(2, 2, false), 'edge');
  assert.equal(chooseMode(0, 1, false), 'broadcast');
});

test('every transition stops only what runs and leaves the new state running what it names', () => {
  const states: ModeState[] = ['Core', 'Edge', 'Broadcast', 'EdgeAfterCore', 'BroadcastAfterCore'];
  const events = [
    ...(['core', 'edge', 'broadcast'] as const).map(epochFor),
    { kind: 'TransitionEnded' as const },
  ];
  for (const s of states) {
    for (const e of events) {
      const t = next(s, e);
      const before = running(s);
      assert.ok(
        t.stop.every((m) => before.includes(m)),
        `${s} stops only what runs`,
      );
      const after = [...before.filter((m) => !t.stop.includes(m)), ...t.start].sort();
      assert.deepEqual(after, [...running(t.state)].sort(), `${s} → ${t.state}`);
    }
  }
});

test('leaving the core role keeps the old epoch releasing its messages until the transition ends', () => {
  // F: `EdgeAfterCore` and `BroadcastAfterCore` keep the previous `CoreMode` running, so what the old
  // epoch holds still leaves through it; the end of the transition stops it.
  for (const to of ['edge', 'broadcast'] as const) {
    const left = next('Core', epochFor(to)).state;
    assert.equal(coreEpochServes(left, 'previous'), true, `${left}: the old epoch goes on`);
    assert.equal(coreEpochServes(left, 'current'), false, `${left}: no core epoch of its own`);
    const after = next(left, { kind: 'TransitionEnded' }).state;
    assert.equal(coreEpochServes(after, 'previous'), false, `${after}: the old epoch is over`);
  }
  assert.deepEqual(
    [coreEpochServes('Core', 'current'), coreEpochServes('Core', 'previous')],
    [true, true],
    'a core node serves both epochs through a transition',
  );
  for (const s of ['Edge', 'Broadcast'] as const) assert.equal(coreEpochServes(s, 'previous'), false);
});
