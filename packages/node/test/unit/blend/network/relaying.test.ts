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
  sleep,
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
    await sleep(400);
    for (const n of others) {
      assert.deepEqual(
        n.received.map((r) => r.id),
        [idOf(m)],
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
    await sleep(300);
    assert.deepEqual(raws[0]!.frames, []);
    assert.deepEqual(raws[1]!.frames[0], m);
    assert.deepEqual(
      hub.received.map((r) => [r.id, r.from]),
      [[idOf(m), raws[0]!.peerId]],
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
    raws[1]!.send(m);
    await sleep(400);
    assert.equal(hub.received.length, 1);
    assert.equal(validator.verified, 1);
    assert.deepEqual(hub.swarm.blockedPeers(), []);
    assert.equal(hub.swarm.corePeers().length, 2);
    // raws[1] got the relay before sending its copy; raws[0] never gets it back.
    assert.equal(raws[1]!.frames.length, 1);
    assert.equal(raws[0]!.frames.length, 0);
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
    await sleep(400);
    assert.deepEqual(hub.received, []);
    assert.deepEqual(hub.swarm.blockedPeers(), []);
    assert.equal(hub.swarm.corePeers().length, 1);
  } finally {
    await stopAll([stopper(hub), ...raws]);
  }
});
