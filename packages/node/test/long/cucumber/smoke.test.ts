/**
 * The reference's cucumber feature tests/cucumber_tests/features/smoke.feature, one test per scenario,
 * on the `devnet` command (test/utils/cucumber-devnet.ts; fast test deployment with 500 ms slots and
 * the insecure test proofs). F runs each scenario through its testing framework's scenario runner
 * (logos-blockchain-testing): a star topology of N validators, a run of fixed duration with an optional
 * transaction workload, then the expectations: consensus liveness (`ConsensusLiveness`) and, with a
 * workload, transaction inclusion (`TxInclusionExpectation`). Both are ported below with their rules
 * and constants.
 *
 * Scaled down, for the suite's time budget on a 2-core machine:
 * - "run duration is 120 seconds" is a fixed duration, not an upper bound: each run here lasts 8 s
 *   (8 blocks expected at 500 ms slots and f = 1/2, against F's 12 at 1 s slots and f = 1/10).
 * - the two scenarios of each topology share one devnet, each with its own run window (F deploys one
 *   per scenario; the steps of the second read nothing the first left behind but the chain).
 * - "wallets total funds is 1000000000 split across N users": N genesis accounts (`--genesis-account`)
 *   of 1e9 / N each, held by the validators' wallets in turn; 50 users as F, but 130 instead of 500
 *   for the stress scenarios (a genesis holds at most 255 notes, 120 of them the six validators' stake).
 *   Each user sends at most one transfer in a run, as F's workload plans at most one per user, and the
 *   second run of a devnet starts with the users the first did not use. A submission the node refuses
 *   counts as planned and not included, as in F's workload.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sleep } from '../../utils/api-node.ts';
import { CucumberDevnet, included } from '../../utils/cucumber-devnet.ts';
import { until } from '../../utils/sim-cluster.ts';

const RUN_S = 8;
const SLOT_S = 0.5;
const F = 0.5;

/**
 * "topology has N validators": a star, NODE_0 in the middle; F's runner deploys the others together
 * once it is up.
 */
async function star(validators: number, wallets?: { total: number; users: number }): Promise<CucumberDevnet> {
  const accounts =
    wallets === undefined
      ? []
      : Array.from(
          { length: wallets.users },
          (_, u) => `${u % validators}:1x${Math.floor(wallets.total / wallets.users)}`,
        );
  const c = await CucumberDevnet.create({ capacity: validators, accounts });
  await c.start('NODE_0');
  const names = Array.from({ length: validators - 1 }, (_, i) => `NODE_${i + 1}`);
  await c.startTogether(names, ['NODE_0']);
  return c;
}

/**
 * F `ConsensusLiveness`: the target is the blocks the run should make (run / slot · f) but at most the
 * highest height seen; every node must be within the lag allowance (target / 10, clamped to 2..5) of it;
 * a chain that has not moved is probed 4 times, 5 s apart.
 */
async function consensusLiveness(c: CucumberDevnet): Promise<void> {
  let heights: number[] = [];
  for (let probe = 0; probe < 4; probe++) {
    heights = (await Promise.all(c.nodes.map((n) => n.info()))).map((i) => i.height);
    if (Math.max(...heights) > 0) break;
    await sleep(5000);
  }
  const hint = Math.floor((RUN_S / SLOT_S) * F);
  const max = Math.max(...heights);
  const target = hint === 0 || hint > max ? max : hint;
  const lag = Math.min(Math.max(Math.floor(target / 10), 2), 5);
  for (const [k, h] of heights.entries())
    assert.ok(h + lag >= target, `${c.names[k]} height ${h} below target ${target} (lag ${lag})`);
  assert.ok(max > 0, 'the chain moved');
}

/**
 * F's transaction workload and `TxInclusionExpectation`: min(blocks of the run · rate, users)
 * transfers, one per user (to itself), spread over the run; at least half of them must be included,
 * waiting at most a minute after the run.
 */
async function transactionRun(c: CucumberDevnet, ratePerBlock: number): Promise<void> {
  // The genesis accounts, user u in the wallet of validator u mod N (NODE_<i> is devnet node i).
  const accounts = c.o.accounts ?? [];
  const first = used.get(c) ?? 0;
  const users = accounts
    .map((_, k) => (first + k) % accounts.length)
    .map((u) => ({ node: `NODE_${accounts[u]!.split(':')[0]}`, key: c.accountKey(u) }));
  const blocks = (RUN_S / SLOT_S) * F;
  const planned = Math.min(Math.floor(blocks * ratePerBlock), users.length);
  used.set(c, first + planned);
  assert.ok(planned > 0, 'the workload plans transactions');
  const hashes: { node: string; hash: string }[] = [];
  const spacing = (RUN_S * 1000) / planned;
  const end = Date.now() + RUN_S * 1000;
  for (const u of users.slice(0, planned)) {
    const sent = await c.node(u.node).post<{ hash: string }>('/wallet/transactions/transfer-funds', {
      recipient_public_key: u.key,
      amount: 1,
      change_public_key: u.key,
      funding_public_keys: [u.key],
    });
    if (sent.status === 201) hashes.push({ node: u.node, hash: sent.body.hash });
    await sleep(Math.min(spacing, Math.max(0, end - Date.now())));
  }
  await sleep(Math.max(0, end - Date.now()));
  const required = Math.ceil(planned * 0.5);
  let seen = 0;
  await until(
    `at least ${required} of ${planned} transactions included`,
    async () => {
      seen = (await Promise.all(hashes.map((h) => included(c.node(h.node), h.hash)))).filter(Boolean).length;
      return seen >= required;
    },
    60_000,
    () => `${seen} included`,
  );
}

/** Per devnet, how many users its earlier runs used. */
const used = new Map<CucumberDevnet, number>();

const open: CucumberDevnet[] = [];
after(async () => {
  await Promise.all(open.map((c) => c.close()));
});

// The two topologies run at the same time; the two scenarios of each one after the other.
describe('smoke.feature', { concurrency: true }, () => {
  describe('2 validators', { concurrency: 1 }, () => {
    let c: CucumberDevnet;
    before(async () => {
      c = await star(2, { total: 1_000_000_000, users: 50 });
      open.push(c);
    });

    test('Idle smoke', async () => {
      await sleep(RUN_S * 1000);
      await consensusLiveness(c);
    });

    test('Simple smoke', async () => {
      await transactionRun(c, 1);
      await consensusLiveness(c);
    });
  });

  describe('6 validators', { concurrency: 1 }, () => {
    let c: CucumberDevnet;
    before(async () => {
      c = await star(6, { total: 1_000_000_000, users: 130 });
      open.push(c);
    });

    test('Stress smoke', async () => {
      await transactionRun(c, 10);
      await consensusLiveness(c);
    });

    test('Stress smoke no liveness', async () => {
      await transactionRun(c, 10);
    });
  });
});
