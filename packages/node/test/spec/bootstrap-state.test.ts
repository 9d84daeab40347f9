/**
 * The starting-state tests of the reference chain service
 * (`services/chain/chain-service/src/bootstrap/state.rs` at F): grace period 20 min, LIB ids [3; 32]
 * against genesis [0; 32] (here: whether the LIB is the genesis block).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { chooseEngineState } from '../../src/chain/bootstrap-state.ts';

const MIN = 60_000;
const NOW = 1_800_000_000_000;
const config = (forceBootstrap: boolean) => ({ forceBootstrap, gracePeriodMs: 20 * MIN });

test('with_genesis_lib (services/chain/chain-service/src/bootstrap/state.rs)', () => {
  assert.equal(chooseEngineState(true, config(false), undefined, NOW), 'Bootstrapping');
});

test('with_non_genesis_lib (services/chain/chain-service/src/bootstrap/state.rs)', () => {
  assert.equal(chooseEngineState(false, config(false), undefined, NOW), 'Online');
});

test('with_force_bootstrap (services/chain/chain-service/src/bootstrap/state.rs)', () => {
  assert.equal(chooseEngineState(false, config(true), undefined, NOW), 'Bootstrapping');
});

test('with_offline_grace_period_exceeded (services/chain/chain-service/src/bootstrap/state.rs)', () => {
  const last = { state: 'Online', timestampMs: NOW - 30 * MIN } as const;
  assert.equal(chooseEngineState(false, config(false), last, NOW), 'Bootstrapping');
});

test('with_offline_grace_period_not_exceeded (services/chain/chain-service/src/bootstrap/state.rs)', () => {
  const last = { state: 'Online', timestampMs: NOW - 10 * MIN } as const;
  assert.equal(chooseEngineState(false, config(false), last, NOW), 'Online');
});

test('with_last_state_bootstrapping (services/chain/chain-service/src/bootstrap/state.rs)', () => {
  const last = { state: 'Bootstrapping', timestampMs: NOW - 5 * MIN } as const;
  assert.equal(chooseEngineState(false, config(false), last, NOW), 'Bootstrapping');
});

test('a last state recorded after now (a clock that went back) bootstraps', () => {
  const last = { state: 'Online', timestampMs: NOW + MIN } as const;
  assert.equal(chooseEngineState(false, config(false), last, NOW), 'Bootstrapping');
  // Exactly the grace period is still within it (F: elapsed > grace_period bootstraps).
  const edge = { state: 'Online', timestampMs: NOW - 20 * MIN } as const;
  assert.equal(chooseEngineState(false, config(false), edge, NOW), 'Online');
});
