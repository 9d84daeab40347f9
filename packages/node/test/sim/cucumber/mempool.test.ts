/**
 * The several-node scenario of the reference's `tests/cucumber_tests/features/mempool.feature`, named
 * after it. Its three nodes run in this process on the fast test deployment (100 ms slots, f = 1/2, the
 * insecure test proofs), joined by the in-memory network (test/mocks/network.ts) so that the test
 * decides who is connected to whom: NODE_A1 and NODE_B1 lead on their own forks (devnet keys 0, 1 and
 * 2, 3), then NODE_JOIN, whose IBD peers they are, connects to both.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FakeNetworkBus } from '../../mocks/network.ts';
import { startFastNode, type TestNode, waitUntil } from '../../utils/api-node.ts';
import {
  afterNewBlock,
  cucumberDeployment,
  isIncluded,
  isPending,
  nodeConfig,
  pkOf,
  prepare,
  remainsNotPending,
  submitOk,
  waitConverged,
  waitHeight,
  waitIncluded,
  waitNotPending,
} from '../../utils/cucumber-world.ts';

test('Same transaction from competing forks is not included again after convergence', async () => {
  const deployment = cucumberDeployment(
    [
      { wallet: 'forks WALLET_A', count: 2, amount: 1000 },
      { wallet: 'forks WALLET_B', count: 0, amount: 0 },
    ],
    // k = 20 (F's test default is larger than the fast deployment's 2): the forks of height 5 must stay
    // above both nodes' immutable block, or the joined nodes could never switch to the other fork.
    { genesisTimeS: Math.floor(Date.now() / 1000), k: 20 },
  );
  const bus = new FakeNetworkBus();
  const [netA, netB, netJoin] = [bus.node('NODE_A1'), bus.node('NODE_B1'), bus.node('NODE_JOIN')];
  const nodes: TestNode[] = [];
  try {
    const a1 = await startFastNode({
      deployment,
      config: nodeConfig({ leaderKeys: [0, 1], wallets: ['forks WALLET_A', 'forks WALLET_B'] }),
      network: netA,
    });
    nodes.push(a1);
    const b1 = await startFastNode({ deployment, config: nodeConfig({ leaderKeys: [2, 3] }), network: netB });
    nodes.push(b1);
    for (const n of [a1, b1])
      await waitUntil(() => n.node.chain.consensusState === 'Online', 30_000, 'mode Online');
    await waitHeight(a1, 2, 240_000);
    await waitHeight(b1, 2, 240_000);
    const tx = await prepare(a1, {
      outputs: [{ pk: pkOf('forks WALLET_B'), value: 100 }],
      funding: [pkOf('forks WALLET_A')],
    });
    for (const n of [a1, b1]) {
      // Right after a block of the node: the next one comes a slot later at the earliest.
      await afterNewBlock(n);
      await submitOk(n, tx);
      // A node lagging under load may make two blocks in a row (its late slot and the current one):
      // then the transaction can be included before this check, which F's one-second slots rarely see.
      assert.ok((await isPending(n, tx.hash)) || isIncluded(n, tx.hash), 'pending');
    }
    await waitIncluded(a1, tx.hash, 240_000);
    await waitIncluded(b1, tx.hash, 240_000);
    await waitHeight(a1, 5, 180_000);
    await waitHeight(b1, 5, 180_000);
    assert.notEqual(a1.node.chain.tip().id.toString(), b1.node.chain.tip().id.toString(), 'two forks');
    bus.connect(netJoin, netA);
    bus.connect(netJoin, netB);
    const join = await startFastNode({
      deployment,
      config: nodeConfig({ leaderKeys: [], ibdPeers: ['NODE_A1', 'NODE_B1'] }),
      network: netJoin,
    });
    nodes.push(join);
    await waitConverged(nodes, 8, 1, 240_000);
    await waitNotPending(nodes, tx.hash, 180_000);
    await remainsNotPending(nodes, tx.hash, 3, 240_000);
  } finally {
    for (const n of nodes.reverse()) await n.stop();
    bus.close();
  }
});
