/**
 * The reference's gas market tests of the cryptarchia ledger (ledger/src/cryptarchia/mod.rs): the
 * execution market per block and the storage market at each epoch change.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  GENESIS_EXECUTION_GAS_PRICE,
  GENESIS_STORAGE_GAS_PRICE,
  MAX_BLOCK_EXECUTION_GAS,
} from '../../src/ledger/config.ts';
import { Draft } from '../../src/ledger/draft.ts';
import { advanceEpoch, scheduleOf } from '../../src/ledger/epoch.ts';
import { updateExecutionMarket, updateStorageMarket } from '../../src/ledger/gas.ts';
import { KEYS } from '../ledger/helpers.ts';
import { deploymentWith, SpecLedger } from './epoch-chain.ts';

/** F's `update_storage_market(price, consumed, ema)` as (price, ema). */
const storage = (price: bigint, consumed: bigint, ema: bigint): [bigint, bigint] => {
  const r = updateStorageMarket(price, ema, consumed);
  return [r.price, r.ema];
};

test('storage_price_held_when_effective_target_is_zero (ledger/src/cryptarchia/mod.rs)', () => {
  assert.deepEqual(storage(1000n, 0n, 0n), [1000n, 0n]);
  // A non-zero EMA still clamps down under zero usage.
  assert.equal(storage(1000n, 0n, 800n)[0], 875n);
});

test('execution_price_rises_under_sustained_maximum_load (ledger/src/cryptarchia/mod.rs)', () => {
  let m = { price: GENESIS_EXECUTION_GAS_PRICE, average: 0n };
  for (let i = 0; i < 10_000; i++) m = updateExecutionMarket(m.price, m.average, MAX_BLOCK_EXECUTION_GAS);
  assert.ok(m.price > GENESIS_EXECUTION_GAS_PRICE, `${m.price}`);
});

test('execution_price_recovers_when_demand_returns_after_quiet_blocks (ledger/src/cryptarchia/mod.rs)', () => {
  let m = { price: GENESIS_EXECUTION_GAS_PRICE, average: 0n };
  for (let i = 0; i < 100; i++) m = updateExecutionMarket(m.price, m.average, 0n);
  const quiet = m.price;
  for (let i = 0; i < 10_000; i++) m = updateExecutionMarket(m.price, m.average, MAX_BLOCK_EXECUTION_GAS);
  assert.ok(m.price > quiet, `${m.price} > ${quiet}`);
});

test('storage_price_rises_under_sustained_heavy_usage (ledger/src/cryptarchia/mod.rs)', () => {
  let [price, ema] = [GENESIS_STORAGE_GAS_PRICE, 0n];
  for (let i = 0; i < 1_000; i++) [price, ema] = storage(price, 1_000_000n, ema);
  assert.ok(price > GENESIS_STORAGE_GAS_PRICE);
});

test('storage_price_recovers_when_usage_returns_after_quiet_epochs (ledger/src/cryptarchia/mod.rs)', () => {
  let [price, ema] = [GENESIS_STORAGE_GAS_PRICE, 0n];
  for (let i = 0; i < 4; i++) [price, ema] = storage(price, 1_000_000n, ema);
  for (let i = 0; i < 4; i++) [price, ema] = storage(price, 0n, ema);
  const quiet = price;
  for (let i = 0; i < 1_000; i++) [price, ema] = storage(price, 1_000_000n, ema);
  assert.ok(price > quiet, `${price} > ${quiet}`);
});

test('test_storage_market_update (ledger/src/cryptarchia/mod.rs)', () => {
  assert.deepEqual(storage(500n, 0n, 681n), [438n, 340n]);
  assert.deepEqual(storage(113n, 600n, 300n), [128n, 450n]);
  assert.deepEqual(storage(113n, 200n, 800n), [99n, 500n]);
  assert.deepEqual(storage(221n, 900n, 200n), [249n, 550n]);
  assert.deepEqual(storage(221n, 100n, 900n), [194n, 500n]);
  assert.deepEqual(storage(345n, 250n, 80n), [389n, 165n]);
  assert.deepEqual(storage(345n, 50n, 750n), [302n, 400n]);
  assert.deepEqual(storage(517n, 220n, 100n), [582n, 160n]);
  assert.deepEqual(storage(517n, 120n, 850n), [453n, 485n]);
  assert.deepEqual(storage(999n, 1000n, 300n), [1124n, 650n]);
  assert.deepEqual(storage(999n, 300n, 1000n), [875n, 650n]);
});

test('test_execution_market_update (ledger/src/cryptarchia/mod.rs)', () => {
  const cases: [bigint, bigint, bigint, bigint, bigint][] = [
    // price, average, block gas -> price', average'
    [10_000n, 1_596_730n, 1_700_000n, 10_009n, 1_607_057n],
    [10_000n, 1_596_730n, 1_400_000n, 9_985n, 1_577_057n],
    [20_000n, 1_000_000n, 2_500_000n, 19_301n, 1_150_000n],
    [15_000n, 2_000_000n, 500_000n, 15_298n, 1_850_000n],
    [30_000n, 1_800_000n, 1_000_000n, 30_290n, 1_720_000n],
  ];
  for (const [price, average, gas, p, a] of cases) {
    assert.deepEqual(updateExecutionMarket(price, average, gas), { price: p, average: a });
  }
});

test('test_accumulated_storage_gas_drives_next_epoch_price (ledger/src/cryptarchia/mod.rs)', () => {
  const l = new SpecLedger(
    deploymentWith({ k: 1, f: '1/10', notes: [{ value: 10_000n, pk: KEYS[0]!.publicKey }] }),
  );
  const draft = new Draft(l.root.state);
  draft.gas = {
    ...draft.gas,
    storage_gas_price: 113n,
    storage_gas_ema: 300n,
    storage_gas_consumed_in_epoch: 600n,
  };
  // Cross a single epoch boundary.
  const slot = scheduleOf(l.ctx.config.consensus).epoch_length + 1n;
  advanceEpoch(draft, l.ctx.config, slot);
  assert.equal(draft.epoch_state.epoch, 1);
  assert.equal(draft.gas.storage_gas_price, 128n);
  assert.equal(draft.gas.storage_gas_ema, 450n);
  assert.equal(draft.gas.storage_gas_consumed_in_epoch, 0n);
});
