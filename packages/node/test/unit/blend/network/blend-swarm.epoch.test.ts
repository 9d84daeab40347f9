/**
 * Epoch transitions (F `with_core/behaviour/tests/epoch.rs`, `with_core/.../message_handling.rs` old-epoch
 * cases, `with_edge/behaviour/tests/epoch.rs`): the old epoch's connections stay, take and relay its
 * messages until `finishTransition`; a peer misbehaving there is disconnected without being blocked.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  hubWithRaws,
  idOf,
  memberOf,
  message,
  openConnections,
  RawPeer,
  startCluster,
  startSwarm,
  stopAll,
  stopper,
  until,
} from './harness.ts';

// F: epoch::start_new_epoch_moves_peers_to_old_epoch, publish_message, event_message_carries_epoch_number,
// publish_to_invalid_epoch_returns_error, finish_epoch_transition, epoch_transition_reboots_peering_degree
test('a transition keeps the old peers, which still carry old-epoch messages, until it finishes', async () => {
  const nodes = await startCluster(3, { corePeeringDegree: { start: 2, end: 2 } });
  try {
    // Crossed dials settle on one connection per pair: a connection still being negotiated when the
    // epoch changes is closed (F), and it may be the one the other end kept.
    await until(
      () => nodes.every((n) => n.swarm.corePeers().length === 2 && openConnections(n) === 2),
      8_000,
      'peering on one connection per pair',
    );
    const before = nodes.map((n) =>
      n.swarm
        .corePeers()
        .map((p) => p.peerId)
        .sort(),
    );
    const members = nodes.map(memberOf);
    for (const n of nodes) n.swarm.updateMembership(members, { epoch: 2, transition: true });
    nodes.forEach((n, i) => {
      assert.deepEqual(n.swarm.oldEpochPeers()?.sort(), before[i]);
    });
    // The new epoch peers again, on new connections.
    await until(() => nodes.every((n) => n.swarm.corePeers().length === 2), 8_000, 'new epoch peering');

    const old = message();
    assert.equal(nodes[0]!.swarm.publish(old, { epoch: 1 }), 2);
    const current = message();
    assert.equal(nodes[0]!.swarm.publish(current), 2);
    assert.equal(nodes[0]!.swarm.publish(message(), { epoch: 7 }), 0);
    const others = nodes.slice(1);
    await until(() => others.every((n) => n.received.length === 2), 4_000, 'both messages');
    for (const n of others) {
      const byId = new Map(n.received.map((r) => [r.id, r.ctx.epoch]));
      assert.equal(byId.get(idOf(old)), 1);
      assert.equal(byId.get(idOf(current)), 2);
    }

    for (const n of nodes) n.swarm.finishTransition();
    for (const n of nodes) assert.equal(n.swarm.oldEpochPeers(), null);
    // An old-epoch message has nowhere to go any more.
    assert.equal(nodes[0]!.swarm.publish(message(), { epoch: 1 }), 0);
    // The old connections close; the new epoch's stay.
    await until(() => nodes.every((n) => openConnections(n) === 2), 5_000, 'the old connections closed');
    for (const n of nodes) assert.equal(n.swarm.corePeers().length, 2);
    const after = message();
    nodes[1]!.swarm.publish(after);
    await until(
      () => nodes[0]!.received.some((r) => r.id === idOf(after)),
      4_000,
      'current epoch still flows',
    );
  } finally {
    await stopAll(nodes.map(stopper));
  }
});

test('without a transition the old connections close at once', async () => {
  const nodes = await startCluster(2, { corePeeringDegree: { start: 1, end: 1 } });
  try {
    await until(() => nodes.every((n) => n.swarm.corePeers().length === 1), 5_000, 'peering');
    const members = nodes.map(memberOf);
    nodes[0]!.swarm.updateMembership(members, { epoch: 2, transition: false });
    assert.equal(nodes[0]!.swarm.oldEpochPeers(), null);
  } finally {
    await stopAll(nodes.map(stopper));
  }
});

// F: message_handling::undeserializable_message_in_old_epoch_closes_connection_without_swarm_notification,
// spammy_old_epoch_peer_does_not_affect_current_epoch; with_edge epoch::start_new_epoch_closes_all_edge_connections
test('an old-epoch peer sending garbage is disconnected but not blocked; edge connections close at the change', async () => {
  const hub = await startSwarm({ corePeeringDegree: { start: 0, end: 4 } });
  const raw = await RawPeer.create();
  const edge = await RawPeer.create();
  const blocked: string[] = [];
  hub.swarm.on('peer-blocked', (p) => blocked.push(p));
  try {
    const members = [memberOf(hub), memberOf(raw)];
    hub.swarm.updateMembership(members, { epoch: 1, transition: false });
    await raw.connect(hub.swarm.listenAddresses());
    await edge.connect(hub.swarm.listenAddresses());
    await until(() => hub.swarm.corePeers().length === 1, 3_000, 'negotiated');
    hub.swarm.updateMembership(members, { epoch: 2, transition: true });
    assert.deepEqual(hub.swarm.oldEpochPeers(), [raw.peerId]);
    await until(() => !edge.connectedTo(hub.swarm.peerId), 3_000, 'edge connection closed');
    // an old-epoch message is still taken from it
    const m = message();
    raw.send(m);
    await until(() => hub.received.length === 1, 3_000, 'old-epoch message');
    assert.equal(hub.received[0]!.ctx.epoch, 1);
    raw.send(message('undecodable'));
    await until(() => !raw.connectedTo(hub.swarm.peerId), 3_000, 'old-epoch peer disconnected');
    // A peer is blocked, if at all, when its connection closes, which also empties the old epoch.
    await until(() => hub.swarm.oldEpochPeers()?.length === 0, 3_000, 'old epoch emptied');
    assert.deepEqual(blocked, []);
    assert.deepEqual(hub.swarm.blockedPeers(), []);
    // it may connect again in the new epoch
    await raw.connect(hub.swarm.listenAddresses());
    await until(() => hub.swarm.corePeers().length === 1, 3_000, 'negotiated in the new epoch');
  } finally {
    await stopAll([stopper(hub), raw, edge]);
  }
});

// F: message_handling::duplicate_message_from_old_epoch_after_epoch_rotation_is_suppressed
test('a message processed before the change is not emitted again when it arrives on an old-epoch connection', async () => {
  const { hub, raws, members } = await hubWithRaws(2);
  try {
    const m = message();
    raws[0]!.send(m);
    await until(() => hub.received.length === 1, 3_000, 'first copy');
    hub.swarm.updateMembership(members, { epoch: 2, transition: true });
    raws[1]!.send(m);
    // Another message on the same stream: once it is taken, the copy before it has been handled.
    const next = message();
    raws[1]!.send(next);
    await until(() => hub.received.length >= 2, 3_000, 'the message after the copy');
    assert.deepEqual(
      hub.received.map((r) => [r.id, r.ctx.epoch]),
      [
        [idOf(m), 1],
        [idOf(next), 1],
      ],
    );
    assert.deepEqual(hub.swarm.blockedPeers(), []);
    assert.deepEqual(hub.swarm.oldEpochPeers()?.sort(), raws.map((r) => r.peerId).sort());
  } finally {
    await stopAll([stopper(hub), ...raws]);
  }
});

// F: epoch::old_epoch_message_not_forwarded_back_to_sender, consecutive_epoch_transitions_replace_old_epoch
test('an old-epoch message goes to the other old-epoch peers only; a second change replaces the old epoch', async () => {
  const { hub, raws, members } = await hubWithRaws(2);
  try {
    hub.swarm.updateMembership(members, { epoch: 2, transition: true });
    const m = message();
    raws[0]!.send(m);
    await until(() => raws[1]!.frames.length === 1, 3_000, 'relayed to the other old-epoch peer');
    // A message of the other peer is relayed to raws[0] on the stream a copy of its own would have
    // taken before: once it is there, nothing else came.
    const next = message();
    raws[1]!.send(next);
    await until(() => raws[0]!.frames.length === 1, 3_000, 'the other peer message relayed');
    assert.deepEqual(raws[0]!.frames, [next]);
    assert.equal(hub.received[0]!.ctx.epoch, 1);
    // epoch 3: the epoch-1 connections close, epoch 2 (no peer) becomes the old one
    hub.swarm.updateMembership(members, { epoch: 3, transition: true });
    assert.deepEqual(hub.swarm.oldEpochPeers(), []);
    await until(
      () => raws.every((r) => !r.connectedTo(hub.swarm.peerId)),
      3_000,
      'epoch-1 connections closed',
    );
    assert.equal(hub.swarm.publish(message(), { epoch: 1 }), 0);
    assert.deepEqual(hub.swarm.blockedPeers(), []);
  } finally {
    await stopAll([stopper(hub), ...raws]);
  }
});
