/**
 * Three honest nodes under attack for three minutes, against the same run's minute left alone
 * (test/utils/hostile-scenario.ts: junk transactions and forged proposals at node 0, bad chain-sync
 * frames and a lying chain-sync server at node 1, connection churn and junk at node 2). Asserted: the
 * chain grows at least 80 % as fast as left alone; every honest transfer is admitted and included;
 * each node's memory stays within 200 MB of its level left alone and its event-loop delay p99 under
 * 200 ms; the attackers are banned where they alone are to blame (nodes 0 and 1), and no honest node
 * is ever banned.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runHostileScenario } from '../utils/hostile-scenario.ts';

test('three honest nodes keep their chain under three minutes of hostile peers', async () => {
  const f = await runHostileScenario({
    baselineMs: 60_000,
    attackMs: 180_000,
    log: (l) => process.stdout.write(`# ${l}\n`),
  });
  process.stdout.write(`# ${JSON.stringify(f)}\n`);
  assert.ok(f.baseline.growthPerS > 0, 'the chain grows when left alone');
  assert.ok(f.growthRatio >= 0.8, `growth under attack ${f.growthRatio.toFixed(2)} of the rate left alone`);
  assert.equal(f.attacked.refused, 0, 'honest transfers are admitted under attack');
  assert.ok(f.attacked.submitted > 50, 'honest transfers were sent under attack');
  assert.equal(
    f.honestIncluded,
    f.honestTxs - f.baseline.refused - f.attacked.refused,
    'every admitted one included',
  );
  assert.ok(f.rssDeltaMb < 200, `memory ${f.rssDeltaMb} MB over the level left alone`);
  assert.ok(f.loopDelayP99Ms < 200, `event-loop delay p99 ${f.loopDelayP99Ms} ms`);
  assert.ok(f.bansOfAttackers[0]! > 0, 'node 0 bans the forger of proofs of leadership');
  assert.ok(f.bansOfAttackers[1]! > 0, 'node 1 bans the sender of bad frames');
  assert.equal(f.bansOfHonest, 0, 'no honest node is banned');
  assert.ok(f.attacks.junkTxs! > 1000 && f.attacks.forgedProposals! > 100, JSON.stringify(f.attacks));
});
