/**
 * Relaying between core nodes (F `with_core/behaviour/tests/message_handling.rs`,
 * `services/blend/src/core/backends/libp2p/tests/message_handling.rs`): a published message reaches every
 * member once, a relay never goes back to its sender, duplicates from other peers are ignored.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  hubWithRaws,
  idOf,
  message,
  startCluster,
  stopAll,
  stopper,
  testValidator,
  until,
} from './harness.ts';

// F: core/backends/libp2p/tests/message_handling::core_message_propagation
test('a published message reaches every member exactly once', async () => {
  const nodes = await startCluster(4, { corePeeringDegree: { start: 2, end: 3 } });
  try {
    await until(() => nodes.every((n) => n.swarm.corePeers().length >= 2), 8_000, 'peering');
    const m = message();
    const sent = nodes[0]!.swarm.publish(m);
    assert.equal(sent, nodes[0]!.swarm.corePeers().length);
    const others = nodes.slice(1);
    await until(() => others.every((n) => n.received.length === 1), 5_000, 'delivery');
    // Every node relayed the message when it took it, before a second message is published: once that
    // one has reached every node, the copies of the first have had their turn on every link.
    const next = message();
    nodes[0]!.swarm.publish(next);
    await until(() => others.every((n) => n.received.length >= 2), 5_000, 'the second message');
    for (const n of others) {
      assert.deepEqual(
        n.received.map((r) => r.id),
        [idOf(m), idOf(next)],
      );
      assert.equal(n.received[0]!.ctx.fromEdge, false);
      assert.equal(n.received[0]!.ctx.epoch, 1);
    }
    // The publisher does not take its own message back.
    assert.deepEqual(nodes[0]!.received, []);
    // Publishing it again sends nothing.
    assert.equal(nodes[0]!.swarm.publish(m), 0);
  } finally {
    await stopAll(nodes.map(stopper));
  }
});

// F: message_handling::message_sending_and_reception; epoch::forward_message
test('a received message is relayed to every other core peer, never back to its sender', async () => {
  const { hub, raws } = await hubWithRaws(3);
  try {
    const m = message();
    raws[0]!.send(m);
    await until(() => raws[1]!.frames.length === 1 && raws[2]!.frames.length === 1, 3_000, 'relay');
    // A message from another peer is relayed to raws[0] on the same stream a copy of the first would
    // have taken before it: once it is there, nothing else came.
    const next = message();
    raws[1]!.send(next);
    await until(() => raws[0]!.frames.length === 1, 3_000, 'the second message relayed');
    assert.deepEqual(raws[0]!.frames, [next]);
    assert.deepEqual(raws[1]!.frames, [m]);
    assert.deepEqual(
      hub.received.map((r) => [r.id, r.from]),
      [
        [idOf(m), raws[0]!.peerId],
        [idOf(next), raws[1]!.peerId],
      ],
    );
  } finally {
    await stopAll([stopper(hub), ...raws]);
  }
});

// F: message_handling::duplicate_message_received_from_different_peers
test('the same message from a second peer is neither verified, emitted nor relayed again, and nobody is blocked', async () => {
  const validator = testValidator();
  const { hub, raws } = await hubWithRaws(2, { validator });
  try {
    const m = message();
    raws[0]!.send(m);
    await until(() => hub.received.length === 1, 3_000, 'first copy');
    // raws[1] gets the relay, then sends its own copy, then another message on the same stream: once
    // that one is taken, the copy before it has been handled.
    await until(() => raws[1]!.frames.length === 1, 3_000, 'the relay to raws[1]');
    raws[1]!.send(m);
    const next = message();
    raws[1]!.send(next);
    await until(() => hub.received.length === 2, 3_000, 'the message after the copy');
    assert.deepEqual(
      hub.received.map((r) => r.id),
      [idOf(m), idOf(next)],
    );
    assert.equal(validator.verified, 2, 'the copy was not verified');
    assert.deepEqual(hub.swarm.blockedPeers(), []);
    assert.equal(hub.swarm.corePeers().length, 2);
    // raws[0] never gets its message back: only the later one is relayed to it.
    await until(() => raws[0]!.frames.length === 1, 3_000, 'the later message relayed');
    assert.deepEqual(raws[0]!.frames, [next]);
    assert.deepEqual(raws[1]!.frames, [m]);
  } finally {
    await stopAll([stopper(hub), ...raws]);
  }
});

// F: message_handling::message_already_forwarded_silently_ignored_when_received_from_peer
test('a message this node published, received back from a peer, is ignored without penalty', async () => {
  const { hub, raws } = await hubWithRaws(1);
  try {
    const m = message();
    assert.equal(hub.swarm.publish(m), 1);
    await until(() => raws[0]!.frames.length === 1, 3_000, 'published');
    raws[0]!.send(m);
    // Another message on the same stream: once it is taken, the copy before it has been handled.
    const next = message();
    raws[0]!.send(next);
    await until(() => hub.received.length === 1, 3_000, 'the message after the copy');
    assert.deepEqual(
      hub.received.map((r) => r.id),
      [idOf(next)],
    );
    assert.deepEqual(hub.swarm.blockedPeers(), []);
    assert.equal(hub.swarm.corePeers().length, 1);
  } finally {
    await stopAll([stopper(hub), ...raws]);
  }
});
