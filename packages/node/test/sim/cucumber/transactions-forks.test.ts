/**
 * The scenarios of the reference's `tests/cucumber_tests/features/transactions.feature` with many nodes,
 * forks or restarts, one test each, named after the scenario, each on its own nodes: in this process on
 * the fast test deployment (100 ms slots, f = 1/2, the insecure test proofs), joined by the in-memory
 * network (test/mocks/network.ts) so that the test decides who is connected to whom.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { bytesToHex, hexToBytes } from '../../../src/codec/hex.ts';
import { type FakeNetwork, FakeNetworkBus } from '../../mocks/network.ts';
import { startFastNode, type TestNode, waitUntil } from '../../utils/api-node.ts';
import {
  call,
  cucumberDeployment,
  fundingPk,
  isIncluded,
  isPending,
  nodeConfig,
  pkOf,
  prepare,
  ScenarioWallets,
  submit,
  type WalletResource,
  waitConverged,
  waitHeight,
  waitIncluded,
  waitOutputs,
} from '../../utils/cucumber-world.ts';

/** Whether every transaction is in a block at or below the node's immutable block (LIB). */
async function finalized(tn: TestNode, hashes: readonly string[]): Promise<boolean> {
  const info = JSON.parse((await call(tn, 'GET', '/cryptarchia/info')).text) as {
    cryptarchia_info: { lib: string };
  };
  const genesis = bytesToHex(tn.node.chain.genesis.id);
  const r = await call(tn, 'GET', `/cryptarchia/headers?from=${info.cryptarchia_info.lib}&to=${genesis}`);
  const final = new Set(JSON.parse(r.text) as string[]);
  return hashes.every((h) => {
    const at = tn.node.chain.transactionLocation(hexToBytes(h));
    return at !== undefined && final.has(bytesToHex(at.block));
  });
}

/** Starts nodes on one bus and stops them all after `body`. */
async function withNodes(
  body: (
    start: (o: Parameters<typeof startFastNode>[0]) => Promise<TestNode>,
    bus: FakeNetworkBus,
  ) => Promise<void>,
): Promise<void> {
  const bus = new FakeNetworkBus();
  const nodes: TestNode[] = [];
  try {
    await body(async (o) => {
      const n = await startFastNode(o);
      nodes.push(n);
      return n;
    }, bus);
  } finally {
    for (const n of nodes.reverse()) await n.stop();
    bus.close();
  }
}

test('Many nodes with wallets startup', async () => {
  const names = Array.from({ length: 10 }, (_, i) => `startup WALLET_${i + 1}A`);
  const resources: WalletResource[] = names.map((wallet, i) => ({
    wallet,
    count: i === 0 ? 2 : 0,
    amount: 2000,
  }));
  const deployment = cucumberDeployment(resources, { genesisTimeS: Math.floor(Date.now() / 1000), k: 20 });
  await withNodes(async (start, bus) => {
    // F's topology: NODE_2..4, 8, 10 to NODE_1; 5, 6 to NODE_10; 7 to NODE_4; 9 to NODE_5. NODE_1 leads
    // (devnet keys); the others follow, each holding its wallet.
    const link: Record<number, number> = { 2: 1, 3: 1, 4: 1, 5: 10, 6: 10, 7: 4, 8: 1, 9: 5, 10: 1 };
    const nets = new Map<number, FakeNetwork>();
    for (let i = 1; i <= 10; i++) nets.set(i, bus.node(`NODE_${i}`));
    for (const [a, b] of Object.entries(link)) bus.connect(nets.get(Number(a))!, nets.get(b)!);
    const nodes = new Map<number, TestNode>();
    for (let i = 1; i <= 10; i++)
      nodes.set(
        i,
        await start({
          deployment,
          config: nodeConfig({ leaderKeys: i === 1 ? [0, 1, 2, 3] : [], wallets: [names[i - 1]!] }),
          network: nets.get(i)!,
        }),
      );
    const [n1, n10] = [nodes.get(1)!, nodes.get(10)!];
    await waitHeight(n1, 2, 240_000);
    const wallets = new ScenarioWallets(() => n1);
    await wallets.sendEach(names[0]!, names[9]!, 2, 500);
    await wallets.settled(names[0]!, 120_000);
    await waitOutputs(n10, names[9]!, { minOutputs: 2 }, 60_000);
  });
});

test('Two fork chains join later and preserve persisted state wallet balances', async () => {
  // F's FORK_BURN pair (NODE_BURN, NODE_BURN_BUDDY) only holds the recipient wallet WALLET_BURN, whose
  // balance no step reads: here WALLET_BURN is a key without a node.
  const w = (n: string) => `join ${n}`;
  const resources: WalletResource[] = ['WALLET_1A', 'WALLET_2A', 'WALLET_4A', 'WALLET_5A'].map((n) => ({
    wallet: w(n),
    count: 2,
    amount: 2500,
  }));
  // k = 20: the forks (height 5 and more) stay above the immutable block, so the joined nodes can switch.
  const deployment = cucumberDeployment(resources, { genesisTimeS: Math.floor(Date.now() / 1000), k: 20 });
  await withNodes(async (start, bus) => {
    const net = (id: string) => bus.node(id);
    const [a1, a2, b4, b5, join] = ['NODE_1', 'NODE_2', 'NODE_4', 'NODE_5', 'NODE_JOIN'].map(net);
    bus.connect(a1!, a2!);
    bus.connect(b4!, b5!);
    const wallets = [w('WALLET_1A'), w('WALLET_2A'), w('WALLET_4A'), w('WALLET_5A')];
    const n1 = await start({ deployment, config: nodeConfig({ leaderKeys: [0, 1], wallets }), network: a1! });
    const n2 = await start({ deployment, config: nodeConfig({ leaderKeys: [], wallets }), network: a2! });
    const n4 = await start({ deployment, config: nodeConfig({ leaderKeys: [2, 3], wallets }), network: b4! });
    const n5 = await start({ deployment, config: nodeConfig({ leaderKeys: [], wallets }), network: b5! });
    const nodeOf: Record<string, TestNode> = {
      [w('WALLET_1A')]: n1,
      [w('WALLET_2A')]: n2,
      [w('WALLET_4A')]: n4,
      [w('WALLET_5A')]: n5,
    };
    const s = new ScenarioWallets((x) => nodeOf[x]!);
    await waitHeight(n1, 2, 240_000);
    await waitHeight(n4, 2, 180_000);
    const burn = pkOf(w('WALLET_BURN'));
    // Each wallet sends half its funds: 700 to the burn wallet and 700 to its fork partner.
    for (const [from, to] of [
      ['WALLET_1A', 'WALLET_2A'],
      ['WALLET_2A', 'WALLET_1A'],
      ['WALLET_4A', 'WALLET_5A'],
      ['WALLET_5A', 'WALLET_4A'],
    ] as const) {
      await s.send(w(from), [{ to: burn, value: 700 }]);
      await s.send(w(from), [{ to: w(to), value: 700 }]);
    }
    for (const x of wallets) await s.settled(x, 240_000);
    for (const x of wallets) await waitOutputs(nodeOf[x]!, x, { minOutputs: 3 }, 120_000);
    await waitHeight(n1, 5, 180_000);
    await waitHeight(n4, 5, 180_000);
    assert.ok(!isIncluded(n1, s.sent.get(w('WALLET_4A'))![0]!.hash), 'two forks');
    bus.connect(join!, a1!);
    bus.connect(join!, b4!);
    const nj = await start({
      deployment,
      config: nodeConfig({ leaderKeys: [], ibdPeers: ['NODE_1', 'NODE_4'] }),
      network: join!,
    });
    await waitHeight(nj, 8, 180_000);
    await waitConverged([n1, n2, n4, n5, nj], 8, 2, 180_000);
    // The losing fork's transactions are pending again and included on the joined chain: every wallet
    // has its outputs back and at most 4300 (5000, less 1400 sent, plus 700 received, less fees).
    for (const x of wallets) {
      await waitOutputs(nodeOf[x]!, x, { minOutputs: 3 }, 120_000);
      await waitOutputs(nodeOf[x]!, x, { maxValue: 4300n, minValue: 1n }, 10_000);
    }
  });
});

test('Continuous wallet funding survives natural forks without reusing in-flight notes', async () => {
  const w = (n: string) => `soak ${n}`;
  const names = [w('WALLET_1A'), w('WALLET_2A'), w('WALLET_3A')];
  const resources = names.map((wallet) => ({ wallet, count: 2, amount: 450000 }));
  const deployment = cucumberDeployment(resources, { genesisTimeS: Math.floor(Date.now() / 1000) });
  // Natural forks: three leaders, and 40 ms between them (a block may be made on a parent another
  // node already built on).
  await withNodes(async (start) => {
    const bus2 = new FakeNetworkBus({ latencyMs: 40 });
    const [x1, x2, x3] = ['NODE_1', 'NODE_2', 'NODE_3'].map((id) => bus2.node(id));
    bus2.connect(x1!, x2!);
    bus2.connect(x1!, x3!);
    try {
      const n1 = await start({
        deployment,
        config: nodeConfig({ leaderKeys: [0, 1], wallets: names }),
        network: x1!,
      });
      await start({ deployment, config: nodeConfig({ leaderKeys: [2], wallets: names }), network: x2! });
      await start({ deployment, config: nodeConfig({ leaderKeys: [3], wallets: names }), network: x3! });
      await waitHeight(n1, 2, 240_000);
      const funding = fundingPk(0);
      const s = new ScenarioWallets(() => n1);
      const topup = await s.send(
        names[0]!,
        Array.from({ length: 10 }, () => ({ to: funding, value: 40000 })),
      );
      await waitIncluded(n1, topup.hash, 240_000);
      // F: 200 payments of 100 from the node's wallet, each retried every second for up to 600 s until
      // included, then all finalized within 900 s; here 20 (the same loop, a tenth of the count), each
      // within 120 s and all finalized within 180 s (100 ms slots: hundreds of blocks), so that a stuck
      // run fails at once and says which payment stayed where.
      const hashes: string[] = [];
      for (let i = 0; i < 20; i++) {
        const end = Date.now() + 120_000;
        for (;;) {
          const p = await prepare(n1, { outputs: [{ pk: pkOf(names[1]!), value: 100 }], funding: [funding] });
          const r = await submit(n1, p.signed);
          assert.equal(r.status, 200, r.text);
          const ok = await waitUntil(() => isIncluded(n1, p.hash), 1000, 'included', 20).then(
            () => true,
            () => false,
          );
          if (ok) {
            hashes.push(p.hash);
            break;
          }
          assert.ok(Date.now() < end, `payment ${i} not included in 120 s`);
        }
      }
      // All finalized: in a block at or below NODE_1's immutable block.
      await waitUntil(() => finalized(n1, hashes), 180_000, 'every payment finalized', 50).catch(
        async (e) => {
          const where = await Promise.all(
            hashes.map(async (h) => {
              if (!(await finalized(n1, [h])))
                return `${h.slice(0, 8)}: ${isIncluded(n1, h) ? 'included' : (await isPending(n1, h)) ? 'pending' : 'gone'}`;
              return undefined;
            }),
          );
          throw new Error(`${(e as Error).message}; not finalized: ${where.filter(Boolean).join(', ')}`);
        },
      );
    } finally {
      bus2.close();
    }
  });
});

// F tags this scenario @undefined_behaviour ("enable this test if/when this is fixed in wallet"): after a
// reorg brings a transaction back to the mempool, the restarted wallet may fund a new one with the
// same note. F does not run it ("enable this test if/when this is fixed"); neither does this suite.
test('Wallet double-hands a note after restart', {
  skip: 'F: @undefined_behaviour, a known wallet limitation (F runs it only once the wallet is fixed)',
}, async () => {
  const w = (n: string) => `double ${n}`;
  const resources = [w('WALLET_1A'), w('WALLET_4A')].map((wallet) => ({ wallet, count: 2, amount: 25000 }));
  // k = 20: NODE_1's lone branch (to height 8) is abandoned for NODE_4's (to height 14).
  const deployment = cucumberDeployment(resources, { genesisTimeS: Math.floor(Date.now() / 1000), k: 20 });
  const bus = new FakeNetworkBus();
  const dirs = [
    mkdtempSync(join(tmpdir(), 'logos-cucumber-')),
    mkdtempSync(join(tmpdir(), 'logos-cucumber-')),
  ];
  const cfg1 = nodeConfig({ leaderKeys: [0, 1], wallets: [w('WALLET_1A')] });
  const cfg4 = nodeConfig({ leaderKeys: [2, 3], wallets: [w('WALLET_4A')] });
  const up = async (id: 'NODE_1' | 'NODE_4', peer?: FakeNetwork) => {
    bus.nodes.delete(id);
    const net = bus.node(id);
    if (peer) bus.connect(net, peer);
    const tn = await startFastNode({
      deployment,
      config: id === 'NODE_1' ? cfg1 : cfg4,
      dir: dirs[id === 'NODE_1' ? 0 : 1]!,
      network: net,
    });
    return { tn, net };
  };
  const down = async (n: { tn: TestNode; net: FakeNetwork }) => {
    for (const p of [...n.net.peers]) bus.disconnect(n.net, bus.nodes.get(p)!);
    await n.tn.stop();
  };
  let x4 = await up('NODE_4');
  let x1 = await up('NODE_1', x4.net);
  try {
    await waitHeight(x1.tn, 2, 240_000);
    const funding = fundingPk(0);
    const s = new ScenarioWallets(() => x1.tn);
    const topA = await s.send(w('WALLET_1A'), [{ to: funding, value: 9000 }]);
    const topB = await s.send(w('WALLET_1A'), [{ to: funding, value: 8000 }]);
    await waitIncluded(x1.tn, topA.hash, 240_000);
    await waitIncluded(x1.tn, topB.hash, 240_000);
    await waitIncluded(x4.tn, topB.hash, 240_000);
    await down(x4);
    const pay = async (value: number) => {
      const p = await prepare(x1.tn, { outputs: [{ pk: pkOf(w('WALLET_4A')), value }], funding: [funding] });
      assert.equal((await submit(x1.tn, p.signed)).status, 200);
      return p.hash;
    };
    const dh1 = await pay(100);
    await waitIncluded(x1.tn, dh1, 240_000);
    await waitHeight(x1.tn, 8, 240_000);
    await down(x1);
    x4 = await up('NODE_4');
    await waitHeight(x4.tn, 14, 300_000);
    x1 = await up('NODE_1', x4.net);
    await waitHeight(x1.tn, 14, 240_000);
    const dh2 = await pay(150);
    // All finalized: both in blocks at or below NODE_1's immutable block.
    // F waits up to 300 s; finality here takes k = 20 blocks, a few seconds.
    await waitUntil(() => finalized(x1.tn, [dh1, dh2]), 10_000, 'DH_1 and DH_2 finalized', 50).catch(
      async (e: Error) => {
        const state = async (h: string) =>
          `${isIncluded(x1.tn, h) ? 'included' : 'not included'}, ${(await isPending(x1.tn, h)) ? 'pending' : 'not pending'}`;
        throw new Error(`${e.message}: DH_1 ${await state(dh1)}; DH_2 ${await state(dh2)}`);
      },
    );
  } finally {
    for (const x of [x1, x4]) await x.tn.stop().catch(() => {});
    bus.close();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }
});
