import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { lotteryConstants, nextEpochNonce } from '../../../src/consensus/lottery.ts';
import { applyBlock } from '../../../src/ledger/apply.ts';
import { blockDensity } from '../../../src/ledger/block-density.ts';
import { inferTotalStake } from '../../../src/ledger/epoch.ts';
import { blockRewards, updateExecutionMarket, updateStorageMarket } from '../../../src/ledger/gas.ts';
import { epochSchedule } from '../../../src/ledger/parameters.ts';
import type { LedgerState } from '../../../src/ledger/state.ts';
import { DEVNET, genesisNotes, KEYS, TestChain, transfer } from '../../mocks/ledger.ts';

const EPOCH = 200n;

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

describe('epochs', () => {
  test('the devnet schedule: base period 20 slots, epoch 200, nonce snapshot 120 slots in', () => {
    const s = epochSchedule(DEVNET.ledger.consensus);
    assert.equal(s.base_period, 20n);
    assert.equal(s.epoch_length, 200n);
    assert.equal(s.nonce_snapshot_offset, 120n);
    assert.equal(s.expected_blocks_per_epoch, 100n);
    const t = epochSchedule({
      ...DEVNET.ledger.consensus,
      security_param: 120,
      active_slot_coeff: { num: 1n, den: 30n },
    });
    assert.equal(t.epoch_length, 36_000n);
    assert.equal(t.expected_blocks_per_epoch, 1200n);
    assert.equal(t.s_gen, 900n);
  });

  test('stake inference scales the stake by observed over expected density of the inference period', () => {
    // Devnet: a 120-slot inference period at f = 1/2, so 60 occupied slots are expected.
    const c = DEVNET.ledger.consensus;
    assert.equal(inferTotalStake(c, 1000n, 60n), 1000n);
    assert.equal(inferTotalStake(c, 1000n, 30n), 500n);
    assert.equal(inferTotalStake(c, 1000n, 0n), 1n);
    assert.equal(inferTotalStake(c, 1000n, 120n), 2000n);
    const half = { ...c, stake_inference_learning_rate: { num: 1n, den: 2n } };
    assert.equal(inferTotalStake(half, 1000n, 30n), 750n);
  });

  test('epoch change: the lottery is drawn against the previous epoch snapshot, nonce frozen at its slot', () => {
    const c = new TestChain();
    const notes = genesisNotes(c.genesis);
    const genesisRoot = c.state.utxos.root();
    // Epoch 0: a transfer changes the UTXO set; blocks keep the running nonce moving.
    c.apply([transfer(c.state, [notes[0]!], [{ value: 5n, pk: KEYS[2]!.publicKey }]).tx], 10n);
    const nonces: bigint[] = [];
    for (let slot = 20n; slot < EPOCH; slot += 20n) {
      c.apply([], slot);
      nonces.push(c.state.nonce);
    }
    const rootAtEnd0 = c.state.utxos.root();
    assert.notEqual(rootAtEnd0, genesisRoot);
    const density0 = blockDensity(c.state.occupied_slots);
    assert.equal(density0, 6n); // slots 10, 20, 40, 60, 80 and 100 of the period [0, 119]
    const stake0 = c.state.epoch_state.total_stake;
    const nonceEnd0 = c.state.nonce;
    c.apply([], EPOCH + 1n);
    // Epochs 0 and 1 share the genesis stake distribution; epoch 1's nonce froze 120 slots into
    // epoch 0 (the last block applied on a parent before slot 120 is the one at slot 120, whose
    // parent is the block at slot 100).
    assert.equal(c.state.epoch_state.epoch, 1);
    assert.equal(c.state.epoch_state.utxos.root(), genesisRoot);
    assert.equal(c.state.epoch_state.nonce, nonces[4]);
    assert.equal(c.state.epoch_state.total_stake, inferTotalStake(DEVNET.ledger.consensus, stake0, density0));
    // Epoch 2 will use the UTXO set at the end of epoch 0 and the nonce at the start of epoch 1.
    assert.equal(c.state.next_epoch_state.epoch, 2);
    assert.equal(c.state.next_epoch_state.utxos.root(), rootAtEnd0);
    assert.equal(c.state.next_epoch_state.nonce, nonceEnd0);
    // Blocks before the nonce snapshot (slot 320) move epoch 2's nonce; after it, it is frozen.
    c.apply([], EPOCH + 100n);
    const moved = c.state.next_epoch_state.nonce;
    assert.notEqual(moved, nonceEnd0);
    c.apply([], EPOCH + 119n);
    c.apply([], EPOCH + 150n);
    const frozen = c.state.next_epoch_state.nonce;
    c.apply([], EPOCH + 180n);
    assert.equal(c.state.next_epoch_state.nonce, frozen);
    c.apply([], 2n * EPOCH + 1n);
    assert.equal(c.state.epoch_state.nonce, frozen);
    assert.equal(c.state.epoch_state.utxos.root(), rootAtEnd0);
    assert.equal(c.state.prev_epoch_nonce, nonces[4]);
    // The lottery values follow the inferred stake.
    const T = lotteryConstants(DEVNET.ledger.consensus.active_slot_coeff);
    assert.equal(c.state.epoch_state.lottery.t0, T.T0 / c.state.epoch_state.total_stake);
  });

  test('the running nonce absorbs each block entropy', () => {
    const c = new TestChain();
    const before = c.state.nonce;
    c.apply([], 3n);
    assert.equal(c.state.nonce, nextEpochNonce(before, 11n, 3n));
  });

  test('skipped epochs: the snapshot comes from the parent, stake inferred with no blocks', () => {
    const c = new TestChain();
    c.apply([], 10n);
    const root = c.state.utxos.root();
    c.apply([], 5n * EPOCH + 1n);
    assert.equal(c.state.epoch_state.epoch, 5);
    assert.equal(c.state.epoch_state.utxos.root(), root);
    assert.equal(c.state.epoch_state.total_stake, 1n);
  });
});

/** Everything consensus depends on, as one comparable value. */
function fingerprint(s: LedgerState): string {
  return JSON.stringify(
    {
      n: s.block_number,
      slot: s.slot,
      nonce: s.nonce,
      root: s.utxos.root(),
      notes: s.notes
        .sortedEntries((a, b) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([k, v]) => [k, v.note.value, v.index, v.channel, v.locked_by]),
      gas: s.gas,
      epoch: [
        s.epoch_state.epoch,
        s.epoch_state.nonce,
        s.epoch_state.total_stake,
        s.epoch_state.utxos.root(),
      ],
      next: [s.next_epoch_state.epoch, s.next_epoch_state.nonce, s.next_epoch_state.utxos.root()],
      leader: [s.leader.vouchers.root(), s.leader.pending_rewards, s.leader.claimable_rewards],
      pow: [s.pow.pool, s.pow.target, s.pow.refill],
    },
    (_k, v) => (typeof v === 'bigint' ? v.toString() : v),
  );
}

describe('determinism', () => {
  test('the same block sequence applied twice gives identical states', () => {
    const build = () => {
      const c = new TestChain();
      const blocks = [];
      let notes = genesisNotes(c.genesis);
      for (let i = 0; i < 12; i++) {
        const slot = BigInt(1 + i * 37);
        // A tip covers price changes at epoch boundaries.
        const { tx, outputs } = transfer(
          c.state,
          [notes[i % notes.length]!],
          [{ value: BigInt(10 + i), pk: KEYS[(i + 1) % 4]!.publicKey }],
          {
            tip: 5000n,
          },
        );
        const b = c.block([tx], slot, BigInt(1000 + i));
        const r = applyBlock(c.state, b, c.ctx);
        c.state = r.state;
        c.tip = r.id;
        blocks.push(b);
        notes = [...notes.filter((_, j) => j !== i % notes.length), outputs[1]!];
      }
      return { c, blocks };
    };
    const first = build();
    const replay = new TestChain();
    let state = replay.state;
    for (const b of first.blocks) state = applyBlock(state, b, replay.ctx).state;
    assert.equal(fingerprint(state), fingerprint(first.c.state));
  });
});
