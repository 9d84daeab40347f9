/** Peer scoring: offences add up, decay by half-life, and a ban starts at the threshold and expires. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_SCORING, PeerScores } from '../../../src/network/index.ts';

const S = DEFAULT_SCORING;

test('two major offences in a row ban a peer; the ban expires', () => {
  const s = new PeerScores();
  assert.deepEqual(s.penalize('p', 'major', 0), { score: 10, banned: false });
  assert.equal(s.isBanned('p', 0), false);
  assert.equal(s.penalize('p', 'major', 1).banned, true);
  assert.equal(s.isBanned('p', 1), true);
  assert.equal(s.isBanned('other', 1), false);
  assert.equal(s.isBanned('p', 1 + S.banMs), false);
  assert.equal(s.score('p', 1 + S.banMs), 0);
});

test('minor offences need many; scores decay by half each half-life', () => {
  const s = new PeerScores();
  for (let i = 0; i < 14; i++) assert.equal(s.penalize('p', 'minor', 0).banned, false);
  assert.equal(s.score('p', 0), 14);
  assert.equal(s.score('p', S.halfLifeMs), 7);
  assert.equal(s.penalize('p', 'minor', S.halfLifeMs).banned, false);
  assert.equal(s.penalize('p', 'major', S.halfLifeMs).banned, true);
});

test('a major offence long after the last one does not ban', () => {
  const s = new PeerScores();
  s.penalize('p', 'major', 0);
  assert.equal(s.penalize('p', 'major', 2 * S.halfLifeMs).banned, false);
});

test('relayed offences raise the score up to the relay cap only; a direct offence on top bans', () => {
  const s = new PeerScores();
  for (let i = 0; i < 100; i++) assert.equal(s.penalize('p', 'relayed', 0).banned, false);
  assert.equal(s.score('p', 0), S.relayedCap);
  // A score above the cap (from direct offences) is not lowered by a relayed one.
  const t = new PeerScores();
  t.penalize('q', 'major', 0);
  t.penalize('q', 'minor', 0);
  assert.equal(t.penalize('q', 'relayed', 0).score, 11);
  // Relayed offences then direct ones: the ban comes from the direct ones.
  for (let i = 0; i < 4; i++) assert.equal(s.penalize('p', 'minor', 0).banned, false);
  assert.equal(s.penalize('p', 'minor', 0).banned, true);
});
