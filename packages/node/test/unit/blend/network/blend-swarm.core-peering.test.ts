/**
 * Core peering over QUIC on loopback (F `services/blend/src/core/backends/libp2p/tests/*`,
 * `with_core/behaviour/tests/bootstrapping.rs`): members dial each other up to the peering degree,
 * nothing is dialled or accepted below the minimum network size, a non-member is no core peer.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  memberOf,
  openConnections,
  RawPeer,
  recordingLogger,
  startCluster,
  startSwarm,
  stopAll,
  stopper,
  until,
} from './harness.ts';

test('four members reach their peering degree, within its bounds, with one connection per pair', async () => {
  const nodes = await startCluster(4, { corePeeringDegree: { start: 2, end: 3 } });
  try {
    // Settled: crossed dials left one open connection per core peer, and both ends see each link.
    const seesBack = (n: (typeof nodes)[number]) =>
      n.swarm.corePeers().every((p) =>
        nodes
          .find((m) => m.swarm.peerId === p.peerId)
          ?.swarm.corePeers()
          .some((q) => q.peerId === n.swarm.peerId),
      );
    await until(
      () =>
        nodes.every(
          (n) =>
            n.swarm.corePeers().length >= 2 &&
            openConnections(n) === n.swarm.corePeers().length &&
            seesBack(n),
        ),
      8_000,
      'peering degree 2 on one connection per pair',
    );
    for (const n of nodes) {
      const peers = n.swarm.corePeers();
      assert.ok(peers.length >= 2 && peers.length <= 3, `${peers.length} core peers`);
      assert.ok(peers.every((p) => p.healthy));
      assert.equal(new Set(peers.map((p) => p.peerId)).size, peers.length);
      assert.ok(!peers.some((p) => p.peerId === n.swarm.peerId));
    }
    // Both ends of a link see it.
    for (const n of nodes)
      for (const p of n.swarm.corePeers()) {
        const other = nodes.find((m) => m.swarm.peerId === p.peerId)!;
        assert.ok(other.swarm.corePeers().some((q) => q.peerId === n.swarm.peerId));
      }
    assert.equal(nodes[0]!.swarm.oldEpochPeers(), null);
  } finally {
    await stopAll(nodes.map(stopper));
  }
});

// F: bootstrapping::incoming_connection_network_too_small, outgoing_connection_network_too_small
test('below the minimum network size nothing is dialled and no connection is upgraded', async () => {
  const nodes = await Promise.all([
    startSwarm({ minimumNetworkSize: 3 }),
    startSwarm({ minimumNetworkSize: 3 }),
  ]);
  try {
    const members = nodes.map(memberOf);
    for (const n of nodes) n.swarm.updateMembership(members, { epoch: 1, transition: false });
    const raw = await RawPeer.create();
    try {
      await raw.connect(nodes[0]!.swarm.listenAddresses()).catch(() => {});
      // The connection is not taken as a core one: it is closed.
      await until(() => !raw.connectedTo(nodes[0]!.swarm.peerId), 3_000, 'the connection closed');
      assert.deepEqual(nodes[0]!.swarm.corePeers(), []);
      assert.deepEqual(nodes[1]!.swarm.corePeers(), []);
    } finally {
      await raw.stop();
    }
  } finally {
    await stopAll(nodes.map(stopper));
  }
});

// F: bootstrapping::incoming_attempt_with_max_negotiated_peering_degree
test('a member connecting beyond the maximum peering degree is not kept', async () => {
  const hub = await startSwarm({ corePeeringDegree: { start: 0, end: 1 } });
  const raws = [await RawPeer.create(), await RawPeer.create()];
  try {
    hub.swarm.updateMembership([memberOf(hub), ...raws.map(memberOf)], { epoch: 1, transition: false });
    await raws[0]!.connect(hub.swarm.listenAddresses());
    await until(() => hub.swarm.corePeers().length === 1, 3_000, 'first peer');
    await raws[1]!.connect(hub.swarm.listenAddresses()).catch(() => {});
    await until(() => !raws[1]!.connectedTo(hub.swarm.peerId), 3_000, 'second connection closed');
    assert.deepEqual(
      hub.swarm.corePeers().map((p) => p.peerId),
      [raws[0]!.peerId],
    );
  } finally {
    await stopAll([stopper(hub), ...raws]);
  }
});

// F: bootstrapping::listening_peer_not_supporting_blend_protocol, dialing_peer_not_supporting_blend_protocol
test('a member that does not speak the Blend protocol is no core peer, and is not blocked', async () => {
  const { log, lines } = recordingLogger();
  const node = await startSwarm({ corePeeringDegree: { start: 1, end: 1 }, maxDialAttemptsPerPeer: 1 }, log);
  const mute = await RawPeer.create({ serve: false });
  try {
    node.swarm.updateMembership([memberOf(node), memberOf(mute)], { epoch: 1, transition: false });
    const refused = () =>
      lines.filter((l) => l.msg === 'blend outbound stream refused' && l.peer === mute.peerId);
    await until(() => refused().length === 1, 3_000, 'the dialled connection refused');
    await until(() => !mute.connectedTo(node.swarm.peerId), 3_000, 'outbound connection closed');
    // and the other way round
    await mute.connect(node.swarm.listenAddresses()).catch(() => {});
    await until(() => !mute.connectedTo(node.swarm.peerId), 3_000, 'inbound connection closed');
    assert.deepEqual(node.swarm.corePeers(), []);
    assert.deepEqual(node.swarm.blockedPeers(), []);
  } finally {
    await stopAll([stopper(node), mute]);
  }
});

// F: bootstrapping::incoming_attempt_with_duplicate_connection
test('a second connection from a peer in the same direction is dropped, the first kept', async () => {
  const hub = await startSwarm({ corePeeringDegree: { start: 0, end: 3 } });
  const raw = await RawPeer.create();
  const other = await RawPeer.create();
  try {
    hub.swarm.updateMembership([memberOf(hub), memberOf(raw), memberOf(other)], {
      epoch: 1,
      transition: false,
    });
    await raw.connect(hub.swarm.listenAddresses());
    const first = raw.conn!;
    await until(() => hub.swarm.corePeers().length === 1, 3_000, 'first connection');
    await raw.connect(hub.swarm.listenAddresses()).catch(() => {});
    const second = raw.conn!;
    assert.notEqual(first.id, second.id);
    await until(() => second.status !== 'open', 3_000, 'second connection closed');
    assert.equal(first.status, 'open');
    assert.deepEqual(hub.swarm.corePeers(), [{ peerId: raw.peerId, healthy: true }]);
  } finally {
    await stopAll([stopper(hub), raw, other]);
  }
});
