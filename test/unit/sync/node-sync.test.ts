/**
 * Two whole nodes joined by the in-memory network: a node whose IBD peer is another node downloads its
 * chain during `InitialBlockDownload`, then goes on to `Following` and serves the chain in turn.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { pino } from 'pino';
import { bytesToHex } from '../../../src/codec/hex.ts';
import type { UserConfig } from '../../../src/node/config.ts';
import { LogosNode } from '../../../src/node/node.ts';
import { DEFAULT_SYNC } from '../../../src/sync/index.ts';
import { INSECURE_TEST_PROOFS } from '../../../src/zk/insecure-test-proofs.ts';
import { blockOn, followerConfig } from '../../mocks/chain-feed.ts';
import { type FakeNetwork, FakeNetworkBus } from '../../mocks/fake-network.ts';
import { fastDeployment } from '../../mocks/fast-deployment.ts';
import { waitUntil } from '../../utils/api-node.ts';
import { PROTOCOL } from './helpers.ts';

// Genesis 20 s ago with 100 ms slots: slots 1..200 are in the past.
const deployment = fastDeployment(100, 2, Math.floor(Date.now() / 1000) - 20);

async function start(net: FakeNetwork, dir: string, ibdPeers: string[]): Promise<LogosNode> {
  const cfg = followerConfig();
  const config: UserConfig = {
    ...cfg,
    api: { backend: { ...cfg.api.backend, listen_address: '127.0.0.1:0' } },
    cryptarchia: {
      ...cfg.cryptarchia,
      service: {
        ...cfg.cryptarchia.service,
        bootstrap: { ...cfg.cryptarchia.service.bootstrap, prolonged_bootstrap_period: 0.2 },
      },
    },
    sync: { ...DEFAULT_SYNC, ibd: { ...DEFAULT_SYNC.ibd, peers: ibdPeers, round_delay: 20 } },
    state: { base_folder: dir },
  };
  return LogosNode.start({
    deployment,
    config,
    baseDir: dir,
    logger: pino({ level: process.env.LOGOS_TEST_LOG ?? 'silent' }),
    proofs: INSECURE_TEST_PROOFS,
    network: { net, chainSyncProtocol: PROTOCOL },
  });
}

test('a node downloads its IBD peer chain, then follows', async () => {
  const dirs = [mkdtempSync(join(tmpdir(), 'logos-sync-a-')), mkdtempSync(join(tmpdir(), 'logos-sync-b-'))];
  const bus = new FakeNetworkBus();
  const [na, nb] = bus.mesh(2);
  const nodes: LogosNode[] = [];
  try {
    const a = await start(na!, dirs[0]!, []);
    nodes.push(a);
    for (let i = 0; i < 40; i++) {
      const tip = a.chain.tip();
      await a.chain.submit(blockOn(a.chain, tip.id, tip.slot + 1n, []));
    }
    await waitUntil(() => a.phase === 'Following', 5000, 'A Following');
    const b = await start(nb!, dirs[1]!, [na!.peerId]);
    nodes.push(b);
    await waitUntil(() => b.phase === 'Following', 15_000, 'B Following');
    assert.equal(bytesToHex(b.chain.tip().id), bytesToHex(a.chain.tip().id));
    assert.equal(b.chain.tip().height, 40);
    assert.deepEqual(bus.penalties(), []);
  } finally {
    for (const n of nodes.reverse()) await n.stop();
    bus.close();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }
});
