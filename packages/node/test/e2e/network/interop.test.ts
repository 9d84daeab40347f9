/**
 * The wire as rust-libp2p nodes speak it (F `libp2p/src/behaviour/mod.rs`, `libp2p/src/config/identify.rs`):
 * identify on `/ipfs/id/1.0.0` (and push) with the deployment's identify name as `protocolVersion`,
 * the AutoNAT v2 protocols served, and gossipsub without peer scoring (many peers behind one address
 * are not graylisted). Two network services on loopback QUIC (ephemeral ports).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { peerIdFromPrivateKey } from '@libp2p/peer-id';
import { DEFAULT_NETWORK, type NetworkService } from '../../../src/network/index.ts';
import {
  GOSSIP_NO_SCORING,
  gossipsubOptions,
  IDENTIFY_PROTOCOL,
  IDENTIFY_PUSH_PROTOCOL,
  nodeIdentity,
} from '../../../src/network/libp2p-node.ts';
import { waitUntil } from '../../utils/api-node.ts';
import { libp2pOf, TEST_PROTOCOLS as PROTOCOLS, startLoopbackNetwork } from './nodes.ts';

let a: NetworkService;
let b: NetworkService;

before(async () => {
  a = await startLoopbackNetwork();
  b = await startLoopbackNetwork([`${a.info().listen_addresses[0]}/p2p/${a.peerId}`]);
  await waitUntil(() => a.connectedPeers().includes(b.peerId), 10_000, 'b connected to a', 50);
});

after(async () => {
  await Promise.all([a?.close(), b?.close()]);
});

/** What `of` learnt of `peer` through identify (protocols and its protocol version). */
async function identified(of: NetworkService, peer: NetworkService) {
  const store = libp2pOf(of).peerStore;
  const id = libp2pOf(peer).peerId;
  const known = async () => store.get(id).catch(() => undefined);
  await waitUntil(
    async () => {
      const p = await known();
      return p !== undefined && p.protocols.length > 0 && p.metadata.has('ProtocolVersion');
    },
    10_000,
    'identify done',
    50,
  );
  const p = await store.get(id);
  return { protocols: p.protocols, version: Buffer.from(p.metadata.get('ProtocolVersion') ?? []).toString() };
}

test('identify runs on /ipfs/id/1.0.0 and sends the deployment identify name as its protocol version', async () => {
  for (const [x, y] of [
    [a, b],
    [b, a],
  ] as const) {
    const { protocols, version } = await identified(x, y);
    assert.ok(protocols.includes(IDENTIFY_PROTOCOL), `${protocols}`);
    assert.ok(protocols.includes(IDENTIFY_PUSH_PROTOCOL), `${protocols}`);
    assert.ok(protocols.includes(PROTOCOLS.kademlia), 'Kademlia learns the peer from its protocols');
    assert.ok(!protocols.includes(PROTOCOLS.identify), 'the identify name is not a stream protocol');
    assert.equal(version, PROTOCOLS.identify);
  }
  assert.ok(libp2pOf(a).getProtocols().includes('/ipfs/id/1.0.0'));
});

// F `services/network/src/backends/libp2p/swarm/identify.rs`: a peer goes into Kademlia when it lists a
// Kademlia protocol name; its protocol version is not looked at (nor by rust-libp2p identify itself).
test('a peer whose identify protocol version differs is still identified and added to Kademlia', async () => {
  const c = await startLoopbackNetwork([`${a.info().listen_addresses[0]}/p2p/${a.peerId}`], undefined, {
    ...PROTOCOLS,
    identify: '/another-deployment/identify/1.0.0',
  });
  try {
    const { version, protocols } = await identified(a, c);
    assert.equal(version, '/another-deployment/identify/1.0.0');
    assert.ok(protocols.includes(PROTOCOLS.kademlia));
    const dht = libp2pOf(a).services.dht as {
      routingTable: { find(p: unknown): Promise<unknown> };
    };
    const cId = libp2pOf(c).peerId;
    await waitUntil(
      async () => (await dht.routingTable.find(cId)) !== undefined,
      10_000,
      'c in the routing table of a',
      100,
    );
    assert.ok(a.connectedPeers().includes(c.peerId));
  } finally {
    await c.close();
  }
});

test('the AutoNAT v2 dial-request and dial-back protocols are served', () => {
  const served = libp2pOf(a).getProtocols();
  assert.ok(served.includes('/libp2p/autonat/2/dial-request'), `${served}`);
  assert.ok(served.includes('/libp2p/autonat/2/dial-back'), `${served}`);
});

test('gossipsub options: no peer scoring, as F (no with_peer_score)', () => {
  const o = gossipsubOptions(DEFAULT_NETWORK.backend.swarm.gossipsub);
  assert.equal(o.scoreParams?.IPColocationFactorWeight, 0);
  assert.equal(o.scoreParams?.behaviourPenaltyWeight, 0);
  assert.equal(o.scoreParams?.appSpecificWeight, 0);
  assert.deepEqual(o.scoreParams?.topics, {});
  assert.equal(o.scoreThresholds?.graylistThreshold, Number.NEGATIVE_INFINITY);
  assert.equal(o.scoreThresholds?.publishThreshold, Number.NEGATIVE_INFINITY);
  assert.equal(o.scoreThresholds?.gossipThreshold, Number.NEGATIVE_INFINITY);
  assert.deepEqual(o.scoreParams, GOSSIP_NO_SCORING.scoreParams);
  // the configured parameters are still passed
  assert.equal(o.D, 6);
  assert.equal(o.Dhi, 12);
});

test('20 peers behind one IP address are neither penalised nor graylisted', async () => {
  const gs = libp2pOf(a).services.pubsub as unknown as {
    score: { addPeer(id: string): void; addIP(id: string, ip: string): void; score(id: string): number };
    acceptFrom(id: string): boolean;
  };
  const ids: string[] = [];
  for (let i = 0; i < 20; i++) ids.push(peerIdFromPrivateKey(await nodeIdentity(null)).toString());
  for (const id of ids) {
    gs.score.addPeer(id);
    gs.score.addIP(id, '127.0.0.1');
  }
  for (const id of ids) {
    assert.equal(gs.score.score(id), 0);
    assert.equal(gs.acceptFrom(id), true);
  }
});
