/**
 * The reference's cucumber feature tests/cucumber_tests/features/blend.feature, one test per scenario,
 * on the `devnet` command (test/utils/cucumber-devnet.ts: one devnet folder per scenario, each node
 * started by its own `devnet --only <i> --peers …` run, fast test deployment with 500 ms slots and the
 * insecure test proofs). "the first N nodes are declared as blend providers" is `--core-nodes N`.
 *
 * F's "genesis block has the following wallet resources" table is `--genesis-account` (a devnet key
 * per account with its notes, in the wallet of the node that holds it).
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { waitUntil } from '../../utils/api-node.ts';
import {
  blendDeclarationIncluded,
  blendFundedNote,
  blendKeys,
  CucumberDevnet,
  type CucumberDevnetOptions,
  sendToBlendZk,
} from '../../utils/cucumber-devnet.ts';
import { until } from '../../utils/sim-cluster.ts';

const open: CucumberDevnet[] = [];
after(async () => {
  await Promise.all(open.map((c) => c.close()));
});

async function cluster(o: CucumberDevnetOptions): Promise<CucumberDevnet> {
  const c = await CucumberDevnet.create(o);
  open.push(c);
  return c;
}

const S = 1000;

/** The three consensus scenarios: NODE_1, three peers of it, 10 blocks, one LIB. */
async function reachesConsensus(coreNodes: number): Promise<void> {
  const c = await cluster({ capacity: 4, coreNodes });
  await c.start('NODE_1');
  await c.start('NODE_2', ['NODE_1']);
  await c.start('NODE_3', ['NODE_1']);
  await c.start('NODE_4', ['NODE_1']);
  await c.converged(10, 1, 360 * S);
  await c.agreeOnLib(300 * S);
  await c.stopAll();
}

/** Every node's mempool view, by node. */
async function mempools(c: CucumberDevnet): Promise<string[][]> {
  return Promise.all(c.nodes.map((n) => n.get<string[]>('/mempool/view').catch(() => [] as string[])));
}

// The scenarios are independent (each its own devnet folder, ports and nodes): all five run at once
// (17 nodes, within the two cores with the insecure test proofs).
describe('blend.feature', { concurrency: true }, () => {
  test('Blend core mode reaches consensus', async () => {
    await reachesConsensus(4);
  });

  test('Blend edge mode reaches consensus', async () => {
    await reachesConsensus(2);
  });

  test('Blend broadcast mode reaches consensus', async () => {
    await reachesConsensus(0);
  });

  test('Join Blend via API declaration', async () => {
    // The genesis block has account 1 with one note of 2000, NODE_1's wallet WALLET_1A.
    const c = await cluster({ capacity: 1, accounts: ['0:1x2000'] });
    await c.start('NODE_1');
    await c.converged(2, 1, 180 * S);
    await sendToBlendZk(c, 'NODE_1', c.accountKey(0), 'NODE_1', 1, 1000);
    const { locator } = blendKeys(c, 'NODE_1');
    const note = await blendFundedNote(c, 'NODE_1');
    const joined = await c.node('NODE_1').post('/blend/join', { locator, service_note_id: note });
    assert.equal(joined.status, 200, JSON.stringify(joined.body));
    await blendDeclarationIncluded(c, 'NODE_1', 'NODE_1');
    await c.stopAll();
  });

  test('Transactions submitted through Blend come back through the mempool', async () => {
    // F's deployment override `cryptarchia.pow_config.blend.base_difficulty` = 1.
    // Accounts 1 and 2 with two notes of 1000 each, account 3 with none: NODE_1's wallets WALLET_CORE,
    // WALLET_EDGE and WALLET_DEST.
    const c = await cluster({
      capacity: 4,
      coreNodes: 2,
      accounts: ['0:2x1000', '0:2x1000', '0:0x0'],
      editDeployment: (y) => y.replace(/base_difficulty: \d+/, 'base_difficulty: 1'),
    });
    await c.start('NODE_1');
    await c.start('NODE_2', ['NODE_1']);
    await c.start('NODE_3', ['NODE_1']);
    await c.start('NODE_4', ['NODE_1']);
    await c.converged(2, 1, 360 * S);
    const [core, edge, dest] = [c.accountKey(0), c.accountKey(1), c.accountKey(2)];

    for (const [alias, from, via] of [
      ['TX_VIA_CORE', core, 'NODE_1'], // NODE_1 is a core node
      ['TX_VIA_EDGE', edge, 'NODE_4'], // NODE_4 is not a core node
    ] as const) {
      // "I prepare transfer transaction … of 100 LGO from wallet … to wallet WALLET_DEST": funded and
      // proved by NODE_1's wallet, not submitted.
      const funded = await c
        .node('NODE_1')
        .post<{ funded_tx: unknown; transfer_proof: unknown }>('/wallet/fund', {
          tx_builder: {
            mantle_tx: { ops: [] },
            ledger_inputs: [],
            pending_transfer: { inputs: [], outputs: [{ value: 100, pk: dest }] },
            channel_multi_sig_proofs: {},
          },
          change_public_key: from,
          funding_public_keys: [from],
          max_tx_fee: 1_000_000_000,
          priority_fee_percent: 100,
        });
      assert.equal(funded.status, 200, `${alias}: ${JSON.stringify(funded.body)}`);
      const sent = await c.node(via).post<string>('/blend/transactions/disperse', {
        mantle_tx: funded.body.funded_tx,
        ops_proofs: [funded.body.transfer_proof],
      });
      assert.equal(sent.status, 200, `${alias}: ${JSON.stringify(sent.body)}`);
      const hash = sent.body;
      await until(
        `${alias} is not pending in mempool of all nodes`,
        async () => (await mempools(c)).every((v) => !v.includes(hash)),
        10 * S,
      );
      // F polls every node's mempool until all hold it pending at once. Here a block comes every
      // second or so and may include it between two polls, so each node is polled every 50 ms and
      // must have held it pending at least once.
      const seen = new Set<number>();
      await waitUntil(
        async () => {
          for (const [k, v] of (await mempools(c)).entries()) if (v.includes(hash)) seen.add(k);
          return seen.size === c.nodes.length;
        },
        180 * S,
        `${alias} pending in mempool of NODE_1..NODE_4`,
        50,
      );
    }
    await c.stopAll();
  });
});
