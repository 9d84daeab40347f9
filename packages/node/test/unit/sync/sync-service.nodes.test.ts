/**
 * Two whole nodes joined by the in-memory network: a node whose IBD peer is another node downloads its
 * chain during `InitialBlockDownload`, then goes on to `Following` and serves the chain in turn.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bytesToHex } from '../../../src/codec/hex.ts';
import { DEFAULT_SYNC } from '../../../src/sync/index.ts';
import { blockOn, followerConfig } from '../../mocks/chain-feed.ts';
import { fastDeployment } from '../../mocks/fast-deployment.ts';
import { type FakeNetwork, FakeNetworkBus } from '../../mocks/network.ts';
import { startFastNode, type TestNode, waitUntil } from '../../utils/api-node.ts';

// Genesis 20 s ago with 100 ms slots: slots 1..200 are in the past.
const deployment = fastDeployment(100, 2, Math.floor(Date.now() / 1000) - 20);

function start(net: FakeNetwork, ibdPeers: string[]): Promise<TestNode> {
  const cfg = followerConfig();
  return startFastNode({
    deployment,
    config: {
      ...cfg,
      sync: { ...DEFAULT_SYNC, ibd: { ...DEFAULT_SYNC.ibd, peers: ibdPeers, round_delay: 20 } },
    },
    bootstrap: { prolonged_bootstrap_period: 0.2 },
    network: net,
  });
}

test('a node downloads its IBD peer chain, then follows', async () => {
  const bus = new FakeNetworkBus();
  const [na, nb] = bus.mesh(2);
  const nodes: TestNode[] = [];
  try {
    const a = await start(na!, []);
    nodes.push(a);
    const chain = a.node.chain;
    for (let i = 0; i < 40; i++) {
      const tip = chain.tip();
      await chain.submit(blockOn(chain, tip.id, tip.slot + 1n, []));
    }
    await waitUntil(() => a.node.phase === 'Following', 5000, 'A Following');
    const b = await start(nb!, [na!.peerId]);
    nodes.push(b);
    await waitUntil(() => b.node.phase === 'Following', 15_000, 'B Following');
    assert.equal(bytesToHex(b.node.chain.tip().id), bytesToHex(chain.tip().id));
    assert.equal(b.node.chain.tip().height, 40);
    assert.deepEqual(bus.penalties(), []);
  } finally {
    for (const n of nodes.reverse()) await n.stop();
    bus.close();
  }
});
