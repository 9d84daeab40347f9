/**
 * The reference's cryptarchia ledger tests (ledger/src/cryptarchia/mod.rs) that concern epochs, the
 * leader proof's public inputs, slots and the total stake inference, on its test configuration:
 * k = 1, f = 1/10, learning rate 1, 3/3/4 phases (base period 10 slots, 100-slot epochs).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { epochStateAt } from '../../src/ledger/apply.ts';
import { blockDensity, densityPeriod } from '../../src/ledger/block-density.ts';
import { inferTotalStake } from '../../src/ledger/epoch.ts';
import { LedgerError } from '../../src/ledger/errors.ts';
import { epochSchedule } from '../../src/ledger/parameters.ts';
import { genesisNotes, KEYS, type Owned, transfer } from '../mocks/ledger.ts';
import { type Blk, deploymentWith, SpecLedger } from './epoch-chain.ts';

const K0 = KEYS[0]!.publicKey;
const K1 = KEYS[1]!.publicKey;

function specLedger(values: bigint[]): { l: SpecLedger; notes: Owned[] } {
  const d = deploymentWith({ k: 1, f: '1/10', notes: values.map((value) => ({ value, pk: K0 })) });
  const l = new SpecLedger(d);
  return { l, notes: genesisNotes(l.genesis) };
}

const schedule = (l: SpecLedger) => epochSchedule(l.ctx.config.consensus);

const ledgerCode = (code: string) => (e: unknown) => e instanceof LedgerError && e.ledgerCode === code;

/** A block at `slot` on `parent` led by `leader`, carrying a transfer of `fund` that creates a new note. */
function applyAndAddUtxo(l: SpecLedger, parent: Blk, slot: bigint, leader: Owned, fund: Owned): Blk {
  const t = transfer(parent.state, [fund], [{ value: 1_000n, pk: K1 }]);
  return l.apply(parent, slot, leader.id, { txs: [t.tx] });
}

test('test_ledger_state_allow_leadership_utxo_reuse (ledger/src/cryptarchia/mod.rs)', () => {
  const { l, notes } = specLedger([10_000n]);
  const leader = notes[0]!.id;
  const h = l.apply(l.root, 1n, leader);
  // Reusing the same note for leadership is allowed: leading does not spend it, and the second block
  // is applied on the first.
  assert.equal(h.state.notes.has(leader), true);
  const h2 = l.apply(h, 2n, leader);
  assert.deepEqual([h2.state.block_number, h2.state.slot], [h.state.block_number + 1n, 2n]);
  assert.deepEqual(h2.block.header.parent_block, h.id);
  assert.equal(h2.state.notes.has(leader), true);
});

test('test_ledger_state_uncommited_utxo (ledger/src/cryptarchia/mod.rs)', () => {
  const { l } = specLedger([10_000n]);
  // A note that is in neither the aged nor the latest UTXO set.
  assert.throws(() => l.apply(l.root, 1n, 12345n), ledgerCode('InvalidLeaderProof'));
});

test('test_epoch_transition (ledger/src/cryptarchia/mod.rs)', () => {
  const { l, notes } = specLedger([100_000_000n, 100_000_000n, 100_000_000n, 100_000_000n, 100_000_000n]);
  const [leader0, leader1, leader2, leader3, fund] = notes as [Owned, Owned, Owned, Owned, Owned];
  const s = schedule(l);
  assert.equal(s.epoch_length, 100n);
  const g = l.root;
  // Block density slot range of epoch 0: [0, 59].
  assert.deepEqual(densityPeriod(g.state.epoch_state.epoch, s), { first: 0n, last: 59n });

  const h1 = l.apply(g, 10n, leader0.id);
  assert.equal(h1.state.epoch_state.epoch, 0);
  const h2 = l.apply(h1, 60n, leader1.id);
  const h3 = applyAndAddUtxo(l, h2, 90n, leader2, fund);
  assert.notEqual(h3.state.utxos.root(), g.state.utxos.root());

  // Epoch jump 0 -> 2, to a slot that is not the first of epoch 2.
  const h4 = l.apply(h3, 222n, leader3.id);
  // Epoch 2's nonce would be taken at slot 160, but the last block is at slot 90.
  assert.equal(h4.state.epoch_state.nonce, h3.state.nonce);
  // Its stake distribution too.
  assert.equal(h4.state.epoch_state.utxos.root(), h3.state.utxos.root());
  assert.deepEqual(densityPeriod(h4.state.epoch_state.epoch, s), { first: 200n, last: 259n });

  // Epoch transition 0 -> 1 (on h3).
  const h5 = l.apply(h3, 100n, leader3.id);
  // Epoch 1's nonce was taken at the end of slot 10, ignoring h2 and h3 (after slot 59).
  assert.equal(h5.state.epoch_state.nonce, h1.state.nonce);
  // Epoch 1's stake distribution is the genesis one.
  assert.equal(h5.state.epoch_state.utxos.root(), g.state.utxos.root());
  assert.deepEqual(densityPeriod(h5.state.epoch_state.epoch, s), { first: 100n, last: 159n });

  // Epoch transition 1 -> 2.
  const h6 = l.apply(h5, 200n, leader3.id);
  // The nonce was taken at the end of slot 100, the only update of the previous epoch.
  assert.equal(h6.state.epoch_state.nonce, h5.state.nonce);
  // The stake distribution was taken before slot 100.
  assert.equal(h6.state.epoch_state.utxos.root(), h3.state.utxos.root());
  assert.deepEqual(densityPeriod(h6.state.epoch_state.epoch, s), { first: 200n, last: 259n });
});

test('test_new_utxos_becoming_eligible_after_stake_distribution_stabilizes (ledger/src/cryptarchia/mod.rs)', () => {
  const { l, notes } = specLedger([100_000_000n, 100_000_000n]);
  const [leader, fund] = notes as [Owned, Owned];
  const epoch = schedule(l).epoch_length;

  // Epoch 0: mint a new note, to be used for leader elections in upcoming epochs.
  const t = transfer(l.root.state, [fund], [{ value: 1_000n, pk: K1 }]);
  const h01 = l.apply(l.root, 1n, leader.id, { txs: [t.tx] });
  const minted = t.outputs[0]!.id;
  assert.ok(h01.state.notes.has(minted));
  // The new note is not yet eligible.
  assert.throws(() => l.apply(h01, 2n, minted), ledgerCode('InvalidLeaderProof'));

  // Epoch 1: still not eligible, the stake distribution is the one at the start of epoch 0.
  for (let i = epoch; i < 2n * epoch; i++) {
    assert.throws(() => l.apply(h01, i, minted), ledgerCode('InvalidLeaderProof'), `slot ${i}`);
  }

  // Epoch 2: eligible two epochs after it was minted.
  const h11 = l.apply(h01, epoch, leader.id);
  l.apply(h11, 2n * epoch, minted);
});

test('test_total_stake_inference_chain_across_epoch_transitions (ledger/src/cryptarchia/mod.rs)', () => {
  const { l, notes } = specLedger([10_000n]);
  const c = l.ctx.config.consensus;
  const u = notes[0]!.id;
  assert.equal(schedule(l).epoch_length, 100n);
  const tsGenesis = l.root.state.epoch_state.total_stake;
  assert.equal(tsGenesis, 10_000n);

  // Epoch 0: three blocks in the slot window [0, 59].
  const h1 = l.apply(l.root, 1n, u);
  const h2 = l.apply(h1, 2n, u);
  const h3 = l.apply(h2, 3n, u);
  assert.equal(blockDensity(h3.state.occupied_slots), 3n);
  // A block outside the window is not counted.
  const h4 = l.apply(h3, 60n, u);
  assert.equal(blockDensity(h4.state.occupied_slots), 3n);

  // Epoch 0 -> 1: slot 100 triggers the transition and counts in epoch 1's window [100, 159].
  const h5 = l.apply(h4, 100n, u);
  const ts1 = inferTotalStake(c, tsGenesis, 3n);
  assert.equal(ts1, 5_000n);
  assert.equal(h5.state.epoch_state.epoch, 1);
  assert.equal(h5.state.epoch_state.total_stake, ts1);

  // Epoch 1: one more block in [100, 159] (slot 100 already counted).
  const h6 = l.apply(h5, 101n, u);
  assert.equal(blockDensity(h6.state.occupied_slots), 2n);

  // Epoch 1 -> 2.
  const h7 = l.apply(h6, 200n, u);
  const ts2 = inferTotalStake(c, ts1, 2n);
  assert.equal(ts2, 1_666n);
  assert.equal(h7.state.epoch_state.epoch, 2);
  assert.equal(h7.state.epoch_state.total_stake, ts2);
});

test('test_update_epoch_state_with_outdated_slot_error (ledger/src/cryptarchia/mod.rs)', () => {
  const { l, notes } = specLedger([10_000n]);
  const h = l.apply(l.root, 10n, notes[0]!.id);
  // Time cannot flow backwards.
  assert.throws(
    () => epochStateAt(h.state, l.ctx, 1n),
    (e: unknown) => ledgerCode('InvalidSlot')(e) && /slot 1 .*parent slot 10/.test((e as Error).message),
  );
  assert.throws(() => l.apply(h, 1n, notes[0]!.id), ledgerCode('InvalidSlot'));
  assert.throws(() => l.apply(h, 10n, notes[0]!.id), ledgerCode('InvalidSlot'));
});

test('test_invalid_aged_root_rejected (ledger/src/cryptarchia/mod.rs)', () => {
  const { l, notes } = specLedger([10_000n]);
  assert.throws(
    () => l.apply(l.root, 1n, notes[0]!.id, { tweak: (i) => ({ ...i, aged_root: 0n }) }),
    ledgerCode('InvalidLeaderProof'),
  );
});

test('test_invalid_latest_root_rejected (ledger/src/cryptarchia/mod.rs)', () => {
  const { l, notes } = specLedger([10_000n]);
  assert.throws(
    () => l.apply(l.root, 1n, notes[0]!.id, { tweak: (i) => ({ ...i, latest_root: 1n }) }),
    ledgerCode('InvalidLeaderProof'),
  );
});

test('test_epoch_state_for_slot_with_empty_epochs (ledger/src/cryptarchia/mod.rs)', () => {
  const { l } = specLedger([10_000n]);
  const epoch = schedule(l).epoch_length;
  const g = l.root.state;
  assert.equal(g.epoch_state.epoch, 0);
  assert.equal(g.next_epoch_state.epoch, 1);
  const initial = g.epoch_state.total_stake;

  const e0 = epochStateAt(g, l.ctx, epoch - 1n);
  assert.equal(e0.epoch, 0);
  assert.equal(e0.total_stake, initial);

  // Epoch 0 had no block: with learning rate 1 the total stake drops to the minimum.
  const e1 = epochStateAt(g, l.ctx, epoch + 1n);
  assert.equal(e1.epoch, 1);
  assert.equal(e1.total_stake, 1n);

  const e2 = epochStateAt(g, l.ctx, 2n * epoch + 1n);
  assert.equal(e2.epoch, 2);
  assert.equal(e2.total_stake, 1n);
  // Nonce and UTXO set are the current state's.
  assert.equal(e2.nonce, g.nonce);
  assert.equal(e2.utxos.root(), g.utxos.root());
});

test('test_try_apply_header_with_proof_from_jumped_epoch (ledger/src/cryptarchia/mod.rs)', () => {
  const { l, notes } = specLedger([10_000n]);
  const u = notes[0]!.id;
  const s = schedule(l);
  const h1 = l.apply(l.root, 1n, u);
  // A block at the second slot of epoch 2, proven against the synthesized epoch state.
  const slot = 2n * s.epoch_length + 1n;
  const synthesized = epochStateAt(h1.state, l.ctx, slot);
  assert.equal(synthesized.epoch, 2);
  const h2 = l.apply(h1, slot, u);
  assert.equal(h2.state.slot, slot);
  assert.notEqual(h2.state.nonce, h1.state.nonce);
  assert.equal(h2.state.epoch_state.epoch, 2);
  assert.equal(h2.state.epoch_state.nonce, synthesized.nonce);
  assert.equal(h2.state.epoch_state.total_stake, synthesized.total_stake);
});
