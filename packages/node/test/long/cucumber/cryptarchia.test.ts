/**
 * The reference's cucumber feature tests/cucumber_tests/features/cryptarchia.feature, one test per
 * scenario, on the `devnet` command (test/utils/cucumber-devnet.ts: one devnet folder per scenario,
 * each node started by its own `devnet --only <i> --peers …` run, fast test deployment with 500 ms
 * slots and the insecure test proofs). F's "in N seconds" are upper bounds; they are kept, and the
 * scenarios end in seconds here.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { CucumberDevnet } from '../../utils/cucumber-devnet.ts';

const open: CucumberDevnet[] = [];
after(async () => {
  await Promise.all(open.map((c) => c.close()));
});

async function cluster(o: Parameters<typeof CucumberDevnet.create>[0]): Promise<CucumberDevnet> {
  const c = await CucumberDevnet.create(o);
  open.push(c);
  return c;
}

const S = 1000;

/** The steps of both staggered-start scenarios (with IBD peers or without, as orphans). */
async function staggeredStart(c: CucumberDevnet): Promise<void> {
  await c.start('NODE_1');
  await c.start('NODE_1B', ['NODE_1']);
  await c.atHeight('NODE_1', 1, 300 * S);
  await c.start('NODE_2', ['NODE_1']);
  await c.atHeight('NODE_2', 2, 300 * S);
  await c.start('NODE_3', ['NODE_2']);
  await c.atHeight('NODE_3', 3, 300 * S);
  await c.start('NODE_4', ['NODE_3']);
  await c.converged(4, 1, 300 * S);
  await c.stopAll();
}

// The scenarios are independent (each its own devnet folder, ports and nodes): five run at a time, the
// longest first, which keeps the file's wall time near the longest scenario's while the nodes stay
// within the two cores (all eight at once, 34 nodes, starve the nodes' slot timers and IBD).
describe('cryptarchia.feature', { concurrency: 5 }, () => {
  test('Orphan staggered fork start 2', async () => {
    const c = await cluster({ capacity: 8 });
    await c.start('NODE_A1');
    await c.start('NODE_A1_BUDDY', ['NODE_A1']);
    await c.atHeight('NODE_A1', 1, 360 * S);
    await c.start('NODE_A2', ['NODE_A1']);
    await c.start('NODE_A3', ['NODE_A2']);
    await c.start('NODE_B1');
    await c.start('NODE_B2', ['NODE_B1']);
    await c.start('NODE_B3', ['NODE_B2']);
    await c.atHeight('NODE_B1', 2, 300 * S);
    await c.start('NODE_JOIN', ['NODE_A3', 'NODE_B3']);
    await c.converged(3, 1, 300 * S);
    await c.stopAll();
  });

  test('Nodes started before and after delayed genesis converge', async () => {
    // F: the chain starts 60 s from now and its genesis must not have passed 40 s later. Here 25 s and
    // 10 s: the delay leaves up to 15 s to start the first two nodes (about 3 s on an idle 2-core machine,
    // several times that when the other scenarios of this file start theirs at the same time), and the
    // wall time of this scenario stays within this file's share of the suite.
    const c = await cluster({ capacity: 3, genesisDelayS: 25, bootstrapS: 0 });
    await c.start('NODE_1', [], true);
    await c.start('NODE_2', ['NODE_1']);
    const meta = JSON.parse(readFileSync(join(c.dir, 'devnet.json'), 'utf8')) as { genesis_time: number };
    const waitUntil = Date.now() + 10 * S;
    while (Date.now() < waitUntil) {
      assert.ok(Date.now() < meta.genesis_time * 1000, 'the configured genesis time has not passed');
      await new Promise((r) => setTimeout(r, 250));
    }
    assert.ok(Date.now() < meta.genesis_time * 1000, 'the configured genesis time has not passed');
    assert.equal((await c.node('NODE_1').info()).phase, 'AwaitingGenesisTime');
    await c.atHeight('NODE_1', 1, 300 * S);
    await c.start('NODE_3', ['NODE_1']);
    await c.converged(2, 0, 300 * S);
    await c.stopAll();
  });

  test('IBD staggered start', async () => {
    await staggeredStart(await cluster({ capacity: 5, ibdPeers: 'peers', onlineMs: 30 * S }));
  });

  test('Orphan staggered fork start 1', async () => {
    const c = await cluster({ capacity: 8 });
    await c.start('NODE_A1');
    await c.start('NODE_A1_BUDDY', ['NODE_A1']);
    await c.atHeight('NODE_A1', 1, 300 * S);
    await c.start('NODE_A2', ['NODE_A1']);
    await c.start('NODE_A3', ['NODE_A2']);
    await c.converged(3, 1, 300 * S);
    await c.start('NODE_B1');
    await c.start('NODE_B2', ['NODE_B1']);
    await c.start('NODE_B3', ['NODE_B2']);
    await c.atHeight('NODE_B1', 1, 300 * S);
    await c.start('NODE_JOIN', ['NODE_A3', 'NODE_B3']);
    await c.converged(5, 1, 240 * S);
    await c.stopAll();
  });

  test('Orphan staggered start', async () => {
    await staggeredStart(await cluster({ capacity: 5 }));
  });

  test('Two nodes happy path', async () => {
    const c = await cluster({ capacity: 2 });
    await c.start('NODE_1');
    await c.start('NODE_2', ['NODE_1']);
    await c.converged(5, 1, 300 * S);
    await c.stopAll();
  });

  test('Two nodes immutable blocks', async () => {
    const c = await cluster({ capacity: 2, k: 5, bootstrapS: 0 });
    await c.start('NODE_1');
    await c.start('NODE_2', ['NODE_1']);
    await c.shareLibAtOrAbove(5, 300 * S);
    await c.stopAll();
  });

  // Not a scenario of cryptarchia.feature: the devnet's folder snapshot (`--copy-state`), which F's
  // snapshot steps use ("I will initialize started nodes from snapshot …"), on a stopped node's chain.
  test("devnet --copy-state: a node starts from a copy of a stopped node's chain", async () => {
    const c = await cluster({ capacity: 2 });
    await c.start('NODE_1');
    await c.atHeight('NODE_1', 3, 60 * S);
    const before = await c.node('NODE_1').info();
    await c.stop('NODE_1');
    // NODE_2 has no peer: the blocks it holds at start are those of the copy.
    const n2 = await c.start('NODE_2', [], false, 'NODE_1');
    const r = await fetch(`${n2.api}/cryptarchia/blocks/${before.tip}`, {
      signal: AbortSignal.timeout(5000),
    });
    assert.equal(r.status, 200, "NODE_1's tip is stored on NODE_2");
    assert.ok((await n2.info()).height >= before.height);
    await c.stopAll();
  });

  test('One node happy path', async () => {
    const c = await cluster({ capacity: 1 });
    await c.start('NODE_1');
    await c.converged(5, 1, 300 * S);
    await c.stopAll();
  });
});
