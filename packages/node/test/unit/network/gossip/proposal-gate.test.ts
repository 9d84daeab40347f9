/** The cheap checks and per-peer budgets of received proposals (src/network/gossip/proposal-gate.ts). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ProposalGate, proposalGateSettings } from '../../../../src/network/gossip/proposal-gate.ts';

test('the window: the future-block retries (1.5 s) and one slot more', () => {
  assert.equal(proposalGateSettings(1000, 1500).aheadSlots, 3);
  assert.equal(proposalGateSettings(100, 1500).aheadSlots, 16);
  const g = new ProposalGate(proposalGateSettings(1000, 1500));
  assert.equal(g.inWindow(13n, 10n), true);
  assert.equal(g.inWindow(14n, 10n), false);
  assert.equal(g.inWindow(2n, 10n), true, 'the past is for the chain to judge');
});

test('one proposal per leader key and slot; slots long past are forgotten', () => {
  const g = new ProposalGate(proposalGateSettings(1000, 1500));
  const k = new Uint8Array(32).fill(1);
  const other = new Uint8Array(32).fill(2);
  assert.equal(g.leaderSeen(10n, k), false);
  g.noteLeader(10n, k, 10n);
  assert.equal(g.leaderSeen(10n, k), true);
  assert.equal(g.leaderSeen(11n, k), false, 'another slot');
  assert.equal(g.leaderSeen(10n, other), false, 'another key');
  g.noteLeader(1000n, other, 1000n);
  assert.equal(g.leaderSeen(10n, k), false, 'forgotten');
});

test('budgets: a burst, then the rate per slot; peers apart', () => {
  const g = new ProposalGate({ ...proposalGateSettings(1000, 1500), polBurst: 3, polPerSlot: 2 });
  const takes = (peer: string, n: number, at: number) =>
    Array.from({ length: n }, () => g.takePol(peer, at)).filter(Boolean).length;
  assert.equal(takes('a', 5, 0), 3, 'the burst');
  assert.equal(takes('b', 5, 0), 3, 'another peer has its own');
  assert.equal(takes('a', 5, 500), 1, 'half a slot: one more');
  assert.equal(takes('a', 5, 10_000), 3, 'refilled up to the burst only');
  const o = new ProposalGate({ ...proposalGateSettings(1000, 1500), orphanBurst: 2 });
  assert.deepEqual(
    [o.takeOrphan('a', 0), o.takeOrphan('a', 0), o.takeOrphan('a', 0), o.takeOrphan('a', 1000)],
    [true, true, false, true],
  );
});
