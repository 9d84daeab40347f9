/** The Blend swarm refuses settings it cannot work with, and misuse, with typed errors. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { peerIdFromString } from '@libp2p/peer-id';
import { BlendNetworkError, BlendSwarm } from '../../../../src/blend/network/index.ts';
import { ed25519PublicKey } from '../../../../src/crypto/ed25519.ts';
import { baseOptions, message, silent, startSwarm } from './harness.ts';

const deps = () => ({ log: silent, signal: new AbortController().signal });
const refused = (code: string) => (e: unknown) => e instanceof BlendNetworkError && e.code === code;

test('settings out of range are refused before anything is built', async () => {
  for (const over of [
    { messageBytes: 0x10000 },
    { messageBytes: 0 },
    { signingKeySeed: new Uint8Array(31) },
    { corePeeringDegree: { start: 3, end: 2 } },
    { maxDialAttemptsPerPeer: 0 },
    { connectionMonitor: { windowMs: 0, expected: { min: 0, max: 1 } } },
  ])
    await assert.rejects(BlendSwarm.init(baseOptions(over), deps()), refused('BLEND_NETWORK_BAD_SETTINGS'));
});

test('publishing bytes that are no message, or sending as edge once closed, are typed errors', async () => {
  const closed = await BlendSwarm.init(baseOptions(), deps());
  await closed.close();
  await assert.rejects(closed.sendAsEdge(message(), []), refused('BLEND_NETWORK_NOT_STARTED'));
  const s = await startSwarm();
  try {
    assert.throws(
      () => s.swarm.publish(message('undecodable')),
      refused('BLEND_NETWORK_UNIDENTIFIED_MESSAGE'),
    );
    // a message with nobody to send to goes nowhere, and may be published later
    const m = message();
    assert.equal(s.swarm.publish(m), 0);
    assert.equal(s.swarm.listenAddresses().length, 1);
    assert.match(s.swarm.listenAddresses()[0]!.toString(), /\/ip4\/127\.0\.0\.1\/udp\/\d+\/quic-v1\/p2p\//);
  } finally {
    await s.swarm.close();
  }
});

test('the peer id is the one of the signing key (the SDP provider id)', async () => {
  const seed = new Uint8Array(32).fill(7);
  const a = await BlendSwarm.init(baseOptions({ signingKeySeed: seed }), deps());
  const b = await BlendSwarm.init(baseOptions({ signingKeySeed: seed }), deps());
  assert.equal(a.peerId, b.peerId);
  assert.match(a.peerId, /^12D3KooW/);
  assert.deepEqual(peerIdFromString(a.peerId).publicKey?.raw, ed25519PublicKey(seed));
  await Promise.all([a.close(), b.close()]);
});

test('a listening address already in use is a typed error', async () => {
  const a = await startSwarm();
  try {
    const taken = a.swarm.listenAddresses()[0]!.decapsulateCode(421);
    await assert.rejects(
      BlendSwarm.init(baseOptions({ listenAddress: taken }), deps()),
      refused('BLEND_NETWORK_LISTEN_FAILED'),
    );
  } finally {
    await a.swarm.close();
  }
});
