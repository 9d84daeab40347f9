/** Gas markets and block rewards (src/ledger/gas.ts): execution and storage prices, the fee window and reward split. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { blockRewards, updateExecutionMarket, updateStorageMarket } from '../../../src/ledger/gas.ts';
import { genesisNotes, KEYS, TestChain, transfer } from '../../mocks/ledger.ts';
import { EPOCH } from './helpers.ts';

describe('gas markets', () => {
  test('the execution price rises under full blocks and falls back under empty ones', () => {
    let m = { price: 100n, average: 0n };
    const prices: bigint[] = [];
    for (let i = 0; i < 30; i++) {
      m = updateExecutionMarket(m.price, m.average, 3_193_460n);
      prices.push(m.price);
    }
    assert.ok(prices[29]! > 100n, `price after full blocks: ${prices[29]}`);
    for (let i = 1; i < prices.length; i++) assert.ok(prices[i]! >= prices[i - 1]! || i < 8);
    const peak = m.price;
    for (let i = 0; i < 60; i++) m = updateExecutionMarket(m.price, m.average, 0n);
    assert.ok(m.price < peak, `price after empty blocks: ${m.price} (peak ${peak})`);
    // Exactly the formula: avg' = (g + 9 avg)/10, price' = ceil(price (11177110 + avg') / 12773840).
    assert.deepEqual(updateExecutionMarket(1000n, 1_000_000n, 2_000_000n), {
      average: 1_100_000n,
      price: (1000n * (11_177_110n + 1_100_000n) + 12_773_840n - 1n) / 12_773_840n,
    });
    // Price 1 with no demand stays 1.
    assert.equal(updateExecutionMarket(1n, 0n, 0n).price, 1n);
  });

  test('the storage price follows the epoch usage against its moving average', () => {
    assert.deepEqual(updateStorageMarket(8n, 0n, 0n), { price: 8n, ema: 0n });
    assert.deepEqual(updateStorageMarket(8n, 100n, 0n), { price: 7n, ema: 50n });
    assert.deepEqual(updateStorageMarket(8n, 0n, 100n), { price: 9n, ema: 50n });
    assert.deepEqual(updateStorageMarket(80n, 100n, 100n), { price: 80n, ema: 100n });
    assert.deepEqual(updateStorageMarket(80n, 96n, 104n), { price: 84n, ema: 100n });
  });

  test('a chain: storage used in epoch 0 raises the storage price at the change to epoch 1', () => {
    const c = new TestChain();
    const [a] = genesisNotes(c.genesis);
    c.apply([transfer(c.state, [a!], [{ value: 5n, pk: KEYS[1]!.publicKey }]).tx]);
    const used = c.state.gas.storage_gas_consumed_in_epoch;
    assert.ok(used > 0n);
    c.apply([], EPOCH + 1n);
    assert.equal(c.state.gas.storage_gas_price, 2n);
    assert.equal(c.state.gas.storage_gas_ema, used / 2n);
    assert.equal(c.state.gas.storage_gas_consumed_in_epoch, 0n);
  });

  test('block rewards: the fee window, the stake curve, the 6/4 split and the PoW share', () => {
    const window = new Array<bigint>(120).fill(0n);
    const r = blockRewards(window, 121n, 1000n, 50n, 2_000_000_000n, { num: 1n, den: 10n });
    assert.equal(r.fee_window[1], 1000n);
    // a = min(120e6, 3e9 + 10512*1000 - 2e9) = 120e6, so the fee term vanishes.
    const num = 62_500n * 120_000_000n;
    const den = 657n * 120_000_000n;
    assert.equal(r.blend, (num * 6n) / (den * 10n));
    assert.equal(r.leader, (num * 4n) / (den * 10n) + 50n);
    assert.equal(r.pow, (num * 1n) / (den * 10n));
    // Above the stake target the reward comes from fees alone.
    const big = blockRewards(window, 0n, 1000n, 0n, 10n ** 12n, { num: 0n, den: 1n });
    assert.equal(big.blend, (657n * 120_000_000n * 1000n * 6n) / (den * 10n));
  });
});
