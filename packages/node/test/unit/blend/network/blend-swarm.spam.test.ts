/**
 * Spam from core peers (F `with_core/behaviour/tests/message_handling.rs`,
 * `with_core/behaviour/tests/connection_maintenance.rs`, `core/backends/libp2p/tests/network_maintenance.rs`
 * `on_malicious_peer`): a wrong-length frame, an undecodable, duplicate, badly signed or unproven
 * message, or more messages than the window allows: the peer is disconnected and blocked for good.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { BlendSwarmOptions, SpamReason } from '../../../../src/blend/network/index.ts';
import {
  type Flaw,
  hubWithRaws,
  MESSAGE_BYTES,
  message,
  type RawPeer,
  stopAll,
  stopper,
  type TestSwarm,
  until,
} from './harness.ts';

async function hubWithRaw(
  over: Partial<BlendSwarmOptions> = {},
): Promise<{ hub: TestSwarm; raw: RawPeer; blocked: [string, SpamReason][] }> {
  const { hub, raws, blocked } = await hubWithRaws(1, over);
  return { hub, raw: raws[0]!, blocked };
}

/** The peer is disconnected, blocked with `reason`, and a new connection from it is refused. */
async function assertBlocked(
  hub: TestSwarm,
  raw: RawPeer,
  blocked: [string, SpamReason][],
  reason: SpamReason,
): Promise<void> {
  await until(() => blocked.length === 1, 4_000, 'block');
  assert.deepEqual(blocked, [[raw.peerId, reason]]);
  assert.deepEqual(hub.swarm.blockedPeers(), [raw.peerId]);
  assert.deepEqual(hub.swarm.corePeers(), []);
  await until(() => !raw.connectedTo(hub.swarm.peerId), 3_000, 'disconnected');
  // It stays blocked: its next connection does not last and gives it no core link.
  await raw.connect(hub.swarm.listenAddresses()).catch(() => {});
  await until(() => !raw.connectedTo(hub.swarm.peerId), 3_000, 'the new connection closed');
  assert.deepEqual(hub.swarm.corePeers(), []);
}

// F: message_handling::undeserializable_message_received (a frame of another size)
test('a frame of the wrong length blocks the peer', async () => {
  const { hub, raw, blocked } = await hubWithRaw();
  try {
    const wrong = new Uint8Array(2 + MESSAGE_BYTES - 1);
    wrong[0] = MESSAGE_BYTES - 1;
    raw.sendBytes(wrong);
    await assertBlocked(hub, raw, blocked, 'undeserializable_message');
    assert.deepEqual(hub.received, []);
  } finally {
    await stopAll([stopper(hub), raw]);
  }
});

const cases: [string, Flaw, SpamReason][] = [
  // F: message_handling::message_with_unexpected_layer_count_disconnects_peer (undecodable)
  ['an undecodable message', 'undecodable', 'undeserializable_message'],
  // F: message_handling::invalid_signature_message_received
  ['a message with an invalid signature', 'signature', 'invalid_header_signature'],
  // F: message_handling::invalid_proof_of_quota_message_received
  ['a message with an invalid proof of quota', 'proof', 'invalid_proof_of_quota'],
];
for (const [what, flaw, reason] of cases) {
  test(`${what} blocks the peer (${reason})`, async () => {
    const { hub, raw, blocked } = await hubWithRaw();
    try {
      raw.send(message(flaw));
      await assertBlocked(hub, raw, blocked, reason);
      assert.deepEqual(hub.received, []);
    } finally {
      await stopAll([stopper(hub), raw]);
    }
  });
}

// F: message_handling::duplicate_message_received_from_same_peer
test('the same message twice from one peer blocks it, after the first copy was taken', async () => {
  const { hub, raw, blocked } = await hubWithRaw();
  try {
    const m = message();
    raw.send(m);
    raw.send(m);
    await assertBlocked(hub, raw, blocked, 'duplicate_message');
    assert.equal(hub.received.length, 1);
  } finally {
    await stopAll([stopper(hub), raw]);
  }
});

// F: connection_maintenance::detect_spammy_peer
test('a peer sending more than the window allows is blocked', async () => {
  const { hub, raw, blocked } = await hubWithRaw({
    connectionMonitor: { windowMs: 400, expected: { min: 0, max: 2 } },
  });
  try {
    for (let i = 0; i < 4; i++) raw.send(message());
    await assertBlocked(hub, raw, blocked, 'too_many_messages');
    assert.equal(hub.received.length, 4);
  } finally {
    await stopAll([stopper(hub), raw]);
  }
});

// F: connection_maintenance::detect_unhealthy_peer, restore_healthy_peer
test('a peer sending fewer than the minimum is unhealthy, and healthy again once in range', async () => {
  const { hub, raw, blocked } = await hubWithRaw({
    connectionMonitor: { windowMs: 300, expected: { min: 1, max: 10 } },
  });
  const events: string[] = [];
  hub.swarm.on('peer-unhealthy', () => events.push('unhealthy'));
  hub.swarm.on('peer-healthy', () => events.push('healthy'));
  try {
    await until(() => events.includes('unhealthy'), 2_000, 'unhealthy');
    assert.deepEqual(hub.swarm.corePeers(), [{ peerId: raw.peerId, healthy: false }]);
    const feed = setInterval(() => raw.send(message()), 100);
    try {
      await until(() => events.includes('healthy'), 3_000, 'healthy again');
    } finally {
      clearInterval(feed);
    }
    assert.deepEqual(hub.swarm.corePeers(), [{ peerId: raw.peerId, healthy: true }]);
    assert.deepEqual(blocked, []);
  } finally {
    await stopAll([stopper(hub), raw]);
  }
});
