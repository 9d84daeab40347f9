/** Epoch transitions on the devnet schedule (src/ledger/epoch.ts): stake inference, lottery snapshots, the nonce, skipped epochs. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { lotteryConstants, nextEpochNonce } from '../../../src/consensus/lottery.ts';
import { blockDensity } from '../../../src/ledger/block-density.ts';
import { inferTotalStake } from '../../../src/ledger/epoch.ts';
import { epochSchedule } from '../../../src/ledger/parameters.ts';
import { DEVNET, genesisNotes, KEYS, TestChain, transfer } from '../../mocks/ledger.ts';
import { EPOCH } from './helpers.ts';

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
