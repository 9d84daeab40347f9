/**
 * Epoch rules as the reference applies them (ledger/src/cryptarchia/mod.rs `update_epoch_state`,
 * block_density.rs, stake.rs; consensus/cryptarchia-engine/src/config.rs), on the reference's ledger
 * test configuration (k = 1, f = 1/10: 100-slot epochs, a stake inference period of [0, 59] in epoch 0).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { SignedHeader } from '../../../src/block/header.ts';
import { epochSchedule } from '../../../src/ledger/parameters.ts';
import { genesisNotes, KEYS } from '../../mocks/ledger.ts';
import { type Blk, deploymentWith, SpecLedger } from '../../spec/epoch-chain.ts';

function oneNoteLedger(): { l: SpecLedger; u: bigint } {
  const l = new SpecLedger(
    deploymentWith({ k: 1, f: '1/10', notes: [{ value: 10_000n, pk: KEYS[0]!.publicKey }] }),
  );
  return { l, u: genesisNotes(l.genesis)[0]!.id };
}

function uncleOf(l: SpecLedger, parent: Blk, slot: bigint, u: bigint): SignedHeader {
  const b = l.block(parent, slot, u, { entropy: 99n });
  return { header: b.header, signature: b.signature };
}

describe('epoch rules', () => {
  test('the total stake follows the distinct slots of the inference period occupied by blocks and their uncles', () => {
    const { l, u } = oneNoteLedger();
    const g = l.root;
    assert.equal(g.state.epoch_state.total_stake, 10_000n);
    const at5 = uncleOf(l, g, 5n, u);
    const at30 = uncleOf(l, g, 30n, u);
    const h10 = l.apply(g, 10n, u, { uncles: [at5] });
    // Slot 5 referenced again: counted once.
    const h20 = l.apply(h10, 20n, u, { uncles: [at5] });
    // A block after the period [0, 59] counts for nothing, nor do the uncles it references.
    const h70 = l.apply(h20, 70n, u, { uncles: [at30] });
    const h100 = l.apply(h70, 100n, u);
    // Occupied: 5, 10, 20 — 3 of the 6 expected (60 slots × 1/10), so the stake halves.
    assert.equal(h100.state.epoch_state.total_stake, 5_000n);
    assert.equal(h100.state.next_epoch_state.total_stake, 5_000n);
  });

  test('the block that crosses into the next epoch refreshes its nonce snapshot from the parent first', () => {
    const { l, u } = oneNoteLedger();
    const h10 = l.apply(l.root, 10n, u);
    // The parent (slot 10) precedes epoch 1's nonce snapshot slot 60: epoch 1 is drawn against the
    // nonce after the block at slot 10, not the genesis nonce.
    assert.notEqual(h10.state.nonce, l.root.state.nonce);
    const h100 = l.apply(h10, 100n, u);
    assert.equal(h100.state.epoch_state.nonce, h10.state.nonce);
    // Skipping epoch 1 altogether: epoch 2 takes the parent's nonce and UTXO set.
    const h200 = l.apply(h10, 200n, u);
    assert.equal(h200.state.epoch_state.epoch, 2);
    assert.equal(h200.state.epoch_state.nonce, h10.state.nonce);
  });

  test('the base period is floor(k / f) in binary64 (99 / (9/11) is 120, not 121)', () => {
    const s = epochSchedule({
      security_param: 99,
      active_slot_coeff: { num: 9n, den: 11n },
      epoch_stake_distribution_stabilization: 3,
      epoch_period_nonce_buffer: 3,
      epoch_period_nonce_stabilization: 4,
      stake_inference_learning_rate: { num: 1n, den: 1n },
      uncle_reference_window_in_blocks: 12,
    });
    assert.equal(s.base_period, 120n);
    assert.equal(s.epoch_length, 1200n);
  });
});
