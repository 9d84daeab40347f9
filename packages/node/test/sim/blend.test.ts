/**
 * Blend on five node processes (fast test deployment, insecure test proofs): the genesis declares
 * nodes 0–3 as Blend core nodes, node 4 is an edge node. The core nodes peer in their Blend swarm
 * (`/blend/info` lists the others), every node's proposals travel through the mix network (the
 * exit node publishes them) and all nodes follow one chain; a transaction dispersed at the edge node
 * waits for its Blend PoW solution, leaves through Blend and is included; cover messages flow.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { blendInfo, everyNodeOnline, userConfigHex } from '../utils/blend-sim.ts';
import { SimCluster, type SimNode, until } from '../utils/sim-cluster.ts';

let net: SimCluster;
before(async () => {
  net = await SimCluster.create({
    nodes: 5,
    coreNodes: 4,
    logLevel: 'debug',
    // Rounds of 125 ms, as the devnet splits its slots (four rounds a slot), at the reference's cover
    // frequency per slot (one message per slot and node), so that cover messages are not all replaced
    // by the proposals of this fast chain; the traffic bound scaled to match.
    editDeployment: (y) =>
      y
        .replace(/^(\s+)rounds_per_slot: \d+/m, '$1rounds_per_slot: 4')
        .replace(/message_frequency_per_round: [\d.]+/, 'message_frequency_per_round: 0.25')
        .replace(/normalization_constant: [\d.]+/, 'normalization_constant: 40'),
  });
});
after(async () => {
  await net?.close();
});

/** What the nodes logged of transactions, PoW and Blend epochs: the last 40 lines. */
function txLines(hash: string): string {
  return (net.nodes as SimNode[])
    .flatMap((n) =>
      n.logs
        .filter((l) => l.tx === hash || /transaction|PoW|pending|Blend epoch/i.test(l.msg))
        .map((l) => ({ time: l.time, line: `${n.name} ${JSON.stringify(l)}` })),
    )
    .sort((a, b) => a.time - b.time)
    .map((l) => l.line)
    .slice(-40)
    .join('\n');
}

test('five nodes, four of them core: peers, proposals and a dispersed transaction through Blend', async () => {
  const nodes = net.nodes as SimNode[];
  await net.start([0, 1, 2, 3, 4]);
  await net.converged({ minHeight: 2 });
  await everyNodeOnline(net, 30_000);

  // Core nodes list the other core nodes as their peers; the edge node has no core info.
  const ids = await Promise.all(nodes.map(async (n) => (await blendInfo(n)).node_id));
  await until(
    'every core node peered with another core node',
    async () => {
      for (const n of nodes.slice(0, 4)) {
        const i = await blendInfo(n);
        if (i.core_info === null || i.core_info.current_epoch_peers.length === 0) return false;
      }
      return true;
    },
    30_000,
  );
  for (const [k, n] of nodes.slice(0, 4).entries()) {
    const i = await blendInfo(n);
    for (const [peer] of i.core_info!.current_epoch_peers)
      assert.ok(
        ids.slice(0, 4).includes(peer) && peer !== ids[k],
        `node ${k}'s peer ${peer} is another core node`,
      );
  }
  assert.equal((await blendInfo(nodes[4]!)).core_info, null);

  // Proposals go through Blend: leaders send them there, exit nodes publish them, all converge.
  await until(
    'proposals unwrapped by exit nodes',
    async () => nodes.some((n) => n.lines('blended proposal handed to gossip').length > 0),
    60_000,
  );
  const chain = await net.converged({ minHeight: 6 });
  assert.ok(chain.length >= 6);

  // A transaction dispersed at the edge node: pending until its Blend PoW solution, then included.
  const from = userConfigHex(net, nodes[4]!, 'funding_pk');
  const to = userConfigHex(net, nodes[0]!, 'funding_pk');
  const funded = await nodes[4]!.post<{ funded_tx: unknown; transfer_proof: unknown }>('/wallet/fund', {
    tx_builder: {
      mantle_tx: { ops: [] },
      ledger_inputs: [],
      pending_transfer: { inputs: [], outputs: [{ value: 4321, pk: to }] },
      channel_multi_sig_proofs: {},
    },
    change_public_key: from,
    funding_public_keys: [from],
    max_tx_fee: 1_000_000_000,
    priority_fee_percent: 100,
  });
  assert.equal(funded.status, 200, JSON.stringify(funded.body));
  const sent = await nodes[4]!.post<string>('/blend/transactions/disperse', {
    mantle_tx: funded.body.funded_tx,
    ops_proofs: [funded.body.transfer_proof],
  });
  assert.equal(sent.status, 200, JSON.stringify(sent.body));
  const hash = sent.body;
  await until(
    'the dispersed transaction included on node 0',
    async () => (await fetch(`${nodes[0]!.api}/cryptarchia/transaction/${hash}`)).status === 200,
    60_000,
    () => txLines(hash),
  );
  assert.deepEqual(await nodes[4]!.get<string[]>('/blend/transactions/pending'), []);
  // The exit node's log line travels through its output pipe, which a loaded machine may deliver
  // after node 0's answer: it is waited for, not read at once.
  await until(
    'an exit node added it to its mempool',
    async () => nodes.slice(0, 4).some((n) => n.lines('blended transaction added to the mempool').length > 0),
    15_000,
    () => txLines(hash),
  );

  // Cover traffic flows: every core node sends cover messages, within its epoch's core quota
  // (Q_c = ceil(rounds · frequency · layers / core nodes) = ceil(200 · 1 · 1 / 4) = 50 here, less
  // one for each of its own data messages).
  await until(
    'every core node sent a cover message',
    async () => nodes.slice(0, 4).every((n) => n.lines('cover message sent').length > 0),
    30_000,
    () => nodes.map((n) => `${n.name}: ${n.lines('cover message sent').length}`).join(', '),
  );
  for (const n of nodes.slice(0, 4)) {
    const epochs = new Set(n.lines('cover message sent').map((l) => l.epoch)).size;
    assert.ok(n.lines('cover message sent').length <= 50 * epochs, `${n.name} within its quota`);
  }
  assert.equal(nodes[4]!.lines('cover message sent').length, 0, 'an edge node sends no cover message');
});
