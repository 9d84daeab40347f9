/**
 * Edge nodes (F `with_edge/behaviour/tests/*`, `services/blend/src/edge/backends/libp2p/tests/*`): a
 * non-member sends a message on a fresh connection; the core node relays it to all its core peers and
 * emits it; an invalid or late message is dropped without blocking the edge node.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  idOf,
  memberOf,
  message,
  RawPeer,
  randomPeerId,
  recordingLogger,
  sleep,
  startCluster,
  startSwarm,
  stopAll,
  stopper,
  until,
} from './harness.ts';

// F: edge/backends/libp2p/tests/message_handling::edge_message_propagation, replication_factor
test('an edge node sends a message that the members receive and flood', async () => {
  const nodes = await startCluster(3, { corePeeringDegree: { start: 2, end: 2 } });
  const edge = await startSwarm();
  try {
    const members = nodes.map(memberOf);
    edge.swarm.updateMembership(members, { epoch: 1, transition: false });
    await until(() => nodes.every((n) => n.swarm.corePeers().length === 2), 8_000, 'peering');
    const m = message();
    // replication factor 2: two of the three members
    assert.equal(await edge.swarm.sendAsEdge(m, members.slice(0, 2)), 2);
    await until(() => nodes.every((n) => n.received.length === 1), 5_000, 'delivery to every member');
    // Every member relayed the message when it took it; a second message, published once all have it,
    // comes after those copies on every link.
    const next = message();
    nodes[0]!.swarm.publish(next);
    await until(() => nodes.slice(1).every((n) => n.received.length >= 2), 5_000, 'the second message');
    for (const n of nodes)
      assert.deepEqual(
        n.received.map((r) => r.id),
        n === nodes[0] ? [idOf(m)] : [idOf(m), idOf(next)],
      );
    const direct = nodes.slice(0, 2).filter((n) => n.received[0]!.ctx.fromEdge);
    assert.ok(direct.length >= 1, 'at least one member took it from the edge node');
    for (const r of direct) assert.equal(r.received[0]!.from, edge.swarm.peerId);
    // the edge node holds no core peer, and its connections close after the message
    assert.deepEqual(edge.swarm.corePeers(), []);
    await until(
      () => nodes.every((n) => !n.swarm.corePeers().some((p) => p.peerId === edge.swarm.peerId)),
      1_000,
    );
    for (const n of nodes) assert.deepEqual(n.swarm.blockedPeers(), []);
  } finally {
    await stopAll([...nodes.map(stopper), stopper(edge)]);
  }
});

// F: with_edge message_handling::reject_message_with_invalid_proof_of_quota, receive_malformed_message
test('an invalid or wrong-length message from an edge node is dropped, and the edge node is not blocked', async () => {
  const { log, lines } = recordingLogger();
  const core = await startSwarm({ corePeeringDegree: { start: 0, end: 2 } }, log);
  const other = await RawPeer.create();
  const edge = await RawPeer.create();
  const logged = (msg: string) => lines.filter((l) => l.msg === msg).length;
  try {
    core.swarm.updateMembership([memberOf(core), memberOf(other)], { epoch: 1, transition: false });
    await edge.connect(core.swarm.listenAddresses());
    edge.send(message('proof'));
    await until(
      () => logged('blend edge message invalid: dropped') === 1,
      3_000,
      'the invalid message dropped',
    );
    const wrong = new Uint8Array(10);
    wrong[0] = 8;
    await edge.connect(core.swarm.listenAddresses());
    edge.sendBytes(wrong);
    await until(
      () => logged('blend edge message unreadable') === 1,
      3_000,
      'the wrong-length message dropped',
    );
    assert.equal(core.received.length, 0);
    assert.deepEqual(core.swarm.blockedPeers(), []);
    // a valid message afterwards is taken
    await edge.connect(core.swarm.listenAddresses());
    const m = message();
    edge.send(m);
    await until(() => core.received.length === 1, 3_000, 'valid edge message');
    assert.equal(core.received[0]!.ctx.fromEdge, true);
    assert.equal(core.received[0]!.id, idOf(m));
  } finally {
    await stopAll([stopper(core), other, edge]);
  }
});

// F: with_edge message_handling::message_timeout
test('an edge connection that sends nothing is closed after the edge timeout', async () => {
  const core = await startSwarm({
    corePeeringDegree: { start: 0, end: 2 },
    edgeNodeConnectionTimeoutMs: 300,
  });
  const other = await RawPeer.create();
  const edge = await RawPeer.create();
  try {
    core.swarm.updateMembership([memberOf(core), memberOf(other)], { epoch: 1, transition: false });
    await edge.connect(core.swarm.listenAddresses());
    assert.equal(edge.connectedTo(core.swarm.peerId), true);
    await until(() => !edge.connectedTo(core.swarm.peerId), 3_000, 'edge connection closed');
  } finally {
    await stopAll([stopper(core), other, edge]);
  }
});

// F: with_edge bootstrapping::incoming_connection_with_maximum_peering_degree
test('edge connections beyond the maximum are not served', async () => {
  const core = await startSwarm({
    corePeeringDegree: { start: 0, end: 2 },
    maxEdgeNodeIncomingConnections: 1,
  });
  const other = await RawPeer.create();
  const edges = [await RawPeer.create(), await RawPeer.create()];
  try {
    core.swarm.updateMembership([memberOf(core), memberOf(other)], { epoch: 1, transition: false });
    await edges[0]!.connect(core.swarm.listenAddresses());
    await sleep(200);
    await edges[1]!
      .connect(core.swarm.listenAddresses())
      .then(() => edges[1]!.send(message()))
      .catch(() => {});
    await until(() => !edges[1]!.connectedTo(core.swarm.peerId), 3_000, 'the second edge node dropped');
    // The first edge node's message, sent after, is the only one taken: one the second had sent on a
    // served connection would have been taken before it.
    const first = message();
    edges[0]!.send(first);
    await until(() => core.received.length >= 1, 3_000, 'the first edge node is served');
    assert.deepEqual(
      core.received.map((r) => r.id),
      [idOf(first)],
    );
  } finally {
    await stopAll([stopper(core), other, ...edges]);
  }
});

// F: edge/backends/libp2p/tests/redials::edge_drops_message_after_exhausting_attempts, edge_redial_uses_exponential_backoff
test('an edge send to an unreachable member is tried its attempts with backoff, then dropped', async () => {
  const edge = await startSwarm({ edgeMaxDialAttemptsPerPeer: 3, redialBaseMs: 50 });
  const decoy = await RawPeer.create();
  try {
    // the locator answers with another identity: each dial fails
    const unreachable = {
      peerId: await randomPeerId(),
      addresses: decoy.host.getMultiaddrs().map((a) => a.decapsulateCode(421)),
    };
    const started = Date.now();
    assert.equal(await edge.swarm.sendAsEdge(message(), [unreachable]), 0);
    // waits of 100 ms and 200 ms before attempts 2 and 3
    assert.ok(Date.now() - started >= 300, `${Date.now() - started} ms`);
  } finally {
    await stopAll([stopper(edge), decoy]);
  }
});
