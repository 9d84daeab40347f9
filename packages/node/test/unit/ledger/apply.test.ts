/** Applying blocks (src/ledger/apply.ts) is deterministic: the same blocks give the same states. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { applyBlock } from '../../../src/ledger/apply.ts';
import type { LedgerState } from '../../../src/ledger/state.ts';
import { genesisNotes, KEYS, TestChain, transfer } from '../../mocks/ledger.ts';

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
