/**
 * The delivery node on the network, in process on loopback (operator.md §4.2, §6.3): relay between two
 * messaging-layer nodes (`send` → `messageReceived` with the message hash), a peer relaying garbage on a
 * shard is refused and disconnected, Waku Metadata is answered (another cluster is disconnected),
 * discv5 finds a node only known to the entry node, a discv5 peer's malformed record is ignored, and
 * the Store client against a small store responder (an answer, a silent peer, bad queries).
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { Discv5 } from '@chainsafe/discv5';
import { SignableENR } from '@chainsafe/enr';
import { noise } from '@chainsafe/libp2p-noise';
import { yamux } from '@chainsafe/libp2p-yamux';
import { generateKeyPair } from '@libp2p/crypto/keys';
import { type GossipSub, gossipsub, StrictNoSign } from '@libp2p/gossipsub';
import { identify } from '@libp2p/identify';
import type { Stream } from '@libp2p/interface';
import { tcp } from '@libp2p/tcp';
import { multiaddr } from '@multiformats/multiaddr';
import { encodeWaku2 } from '@waku/enr';
import { proto_store } from '@waku/proto';
import { contentTopicToPubsubTopic } from '@waku/utils';
import { createLibp2p, type Libp2p } from 'libp2p';
import { lengthPrefixed, readLengthPrefixed } from '../../src/length-prefixed.ts';
import { messageHash, to0xHex } from '../../src/message.ts';
import { requestMetadata } from '../../src/metadata.ts';
import { RELAY_PROTOCOL } from '../../src/relay-node.ts';
import { MAX_STORE_RPC_BYTES, STORE_QUERY_PROTOCOL } from '../../src/store-client.ts';
import { freeTcpPort, freeUdpPort, loopbackConfig, type TestModule, testModule, waitFor } from './helpers.ts';

const TOPIC = '/delivery-test/1/chat/proto';

describe('delivery node on loopback', () => {
  const modules: TestModule[] = [];
  const nodes: Libp2p[] = [];
  const started = async (layer: string, extra: Record<string, unknown> = {}) => {
    const m = await testModule();
    modules.push(m);
    const cfg = await loopbackConfig(layer, extra as never);
    assert.equal((await m.call('createNode', cfg.json)).success, true);
    const r = await m.call('start');
    assert.equal(r.success, true, r.error ?? '');
    return m;
  };
  /** A plain libp2p node on loopback TCP (noise, yamux) with the given services. */
  const bareNode = async (listen: string, services?: Record<string, unknown>) => {
    const n = await createLibp2p({
      addresses: { listen: [listen] },
      transports: [tcp()],
      connectionEncrypters: [noise()],
      streamMuxers: [yamux()],
      ...(services ? { services: services as never } : {}),
    });
    nodes.push(n as unknown as Libp2p);
    return n as unknown as Libp2p<Record<string, unknown>>;
  };
  const info = async (m: TestModule, id: string) => (await m.call('getNodeInfo', id)).value as string;
  const peers = async (m: TestModule) => Number(/^libp2p_peers (\d+)$/m.exec(await info(m, 'Metrics'))?.[1]);
  after(async () => {
    for (const m of modules) await m.close();
    for (const n of nodes) await n.stop();
  });

  test('relay: B subscribes, A sends, B gets messageReceived with the Waku message hash', async () => {
    const a = await started('messaging', { discv5Discovery: false });
    const b = await started('messaging', {
      discv5Discovery: false,
      entryNodes: [await info(a, 'MyMultiaddresses')],
    });
    assert.deepEqual(await b.call('subscribe', TOPIC), { success: true, value: null, error: null });
    await waitFor('A and B connected', async () => (await peers(a)) === 1);
    let got: Record<string, unknown> | undefined;
    let requestId: unknown;
    // gossipsub forms its mesh on heartbeats: resend until one arrives
    await waitFor('messageReceived on B', async () => {
      requestId = (await a.call('send', TOPIC, 'hello relay')).value;
      await new Promise((r) => setTimeout(r, 300));
      got = b.events.find((e) => e.event === 'messageReceived')?.payload;
      return got !== undefined;
    });
    assert.equal(got!.contentTopic, TOPIC);
    assert.equal(Buffer.from(got!.payload as string, 'base64').toString(), 'hello relay');
    const pubsubTopic = contentTopicToPubsubTopic(TOPIC, 2, 8);
    assert.equal(got!.pubsubTopic, pubsubTopic);
    const hash = to0xHex(
      messageHash(pubsubTopic, {
        payload: Buffer.from('hello relay'),
        contentTopic: TOPIC,
        timestamp: got!.timestamp as bigint,
      }),
    );
    assert.equal(got!.messageHash, hash);
    await waitFor('messageSent on A', () =>
      a.events.some((e) => e.event === 'messageSent' && e.payload.requestId === requestId),
    );
    assert.ok(a.events.some((e) => e.event === 'messagePropagated' && e.payload.messageHash !== ''));
    assert.match((await a.call('send', '/bad', 'x')).error!, /^Send failed: Content topic format is invalid/);
    assert.equal(
      (await a.call('send', TOPIC, 'x'.repeat(150 * 1024))).error,
      'Send failed: message exceeds 153600 bytes',
    );
    assert.deepEqual(
      a.events.find((e) => e.event === 'connectionStateChanged')?.payload.connectionStatus,
      'Connected',
    );
    assert.deepEqual(await b.call('unsubscribe', TOPIC), { success: true, value: null, error: null });
    assert.match((await b.call('unsubscribe', TOPIC)).error!, /not subscribed/);
    assert.match(await info(b, 'Metrics'), /waku_relay_messages_received_total [1-9]/);
  });

  test('a peer relaying garbage on a shard is refused and disconnected', async () => {
    const a = await started('kernel', { discv5Discovery: false });
    const g = await bareNode('/ip4/127.0.0.1/tcp/0', {
      identify: identify(),
      pubsub: gossipsub({
        protocols: [RELAY_PROTOCOL],
        globalSignaturePolicy: StrictNoSign,
        allowPublishToZeroTopicPeers: true,
      }),
    });
    const pubsub = g.services.pubsub as unknown as GossipSub;
    const shard = '/waku/2/rs/2/0';
    pubsub.subscribe(shard);
    await g.dial(multiaddr(await info(a, 'MyMultiaddresses')));
    await waitFor('A subscribed to the shard', () => pubsub.getSubscribers(shard).length === 1);
    await waitFor('garbage refused and peer dropped', async () => {
      if (g.getConnections().length > 0)
        await pubsub.publish(shard, Uint8Array.of(0xff, 0xff, 0xff, 0x0f)).catch(() => {});
      await new Promise((r) => setTimeout(r, 200));
      return g.getConnections().length === 0;
    });
    assert.match(await info(a, 'Metrics'), /waku_relay_messages_dropped_total\{reason="invalid"\} [1-9]/);
  });

  test('metadata: the node answers its cluster and shards; a peer of another cluster is disconnected', async () => {
    const a = await started('kernel', { discv5Discovery: false });
    const n = await bareNode('/ip4/127.0.0.1/tcp/0');
    const addrA = multiaddr(await info(a, 'MyMultiaddresses'));
    const same = await requestMetadata(await n.dial(addrA), { clusterId: 2, shards: [0] });
    assert.deepEqual(same, { clusterId: 2, shards: [0, 1, 2, 3, 4, 5, 6, 7] });
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(n.getConnections().length, 1, 'same cluster: kept');
    await requestMetadata(n.getConnections()[0]!, { clusterId: 5, shards: [0] });
    await waitFor('peer of cluster 5 disconnected', () => n.getConnections().length === 0, 5000);
  });

  test('discv5: B finds C, which only the entry node A knows, and connects to it', async () => {
    const a = await started('kernel');
    const enrA = await info(a, 'MyENR');
    const c = await started('kernel', { entryNodes: [enrA] });
    const b = await started('kernel', { entryNodes: [enrA] });
    const peerC = await info(c, 'MyPeerId');
    await waitFor('B connected to A and C', async () => (await peers(b)) >= 2, 25_000);
    assert.match(await info(b, 'Metrics'), /waku_discv5_discovered_peers_total [1-9]/);
    assert.ok(peerC.startsWith('16Uiu2'));
  });

  test('discv5: a signed record with a malformed ip from a peer is ignored; a good one is still dialled', async () => {
    const c = await started('kernel', { discv5Discovery: false });
    const enrC = await info(c, 'MyENR');
    // a bare discv5 node answering FINDNODE with C's record and a relay record whose `ip` is 3 bytes
    const key = await generateKeyPair('secp256k1');
    const udp = await freeUdpPort();
    const own = SignableENR.createV4(key.raw);
    own.ip = '127.0.0.1';
    own.udp = udp;
    const evil = SignableENR.createV4((await generateKeyPair('secp256k1')).raw);
    evil.set('ip', Uint8Array.of(127, 0, 1));
    evil.tcp = 4000;
    evil.udp = 4001;
    evil.set(
      'waku2',
      Uint8Array.of(encodeWaku2({ relay: true, store: false, filter: false, lightPush: false })),
    );
    const m = Discv5.create({
      enr: own,
      privateKey: key as never,
      bindAddrs: { ip4: own.getLocationMultiaddr('udp') as never },
    });
    await m.start();
    try {
      m.addEnr(evil.encodeTxt());
      m.addEnr(enrC);
      const b = await started('kernel', { entryNodes: [own.encodeTxt()] });
      await waitFor('B connected to C', async () => (await peers(b)) >= 1, 15_000);
      // more lookups bring the malformed record again (events and lookup results): B stays up
      await new Promise((r) => setTimeout(r, 2500));
      assert.equal((await b.call('getNodeInfo', 'MyPeerId')).success, true);
    } finally {
      await m.stop();
    }
  });

  test('storeQuery: a store responder answers; a silent one times out; bad queries fail', async () => {
    const client = await started('kernel', { discv5Discovery: false });
    const stored = {
      payload: Uint8Array.of(1, 2, 3),
      contentTopic: TOPIC,
      timestamp: 1_700_000_000_000_000_000n,
    };
    const hash = messageHash('/waku/2/rs/2/4', stored);
    let seen: proto_store.StoreQueryRequest | undefined;
    const responder = await bareNode(`/ip4/127.0.0.1/tcp/${await freeTcpPort()}`);
    await responder.handle(STORE_QUERY_PROTOCOL, async (stream: Stream) => {
      seen = proto_store.StoreQueryRequest.decode(await readLengthPrefixed(stream, MAX_STORE_RPC_BYTES));
      if (seen.requestId === 'silent') return; // never answers
      const res = proto_store.StoreQueryResponse.encode({
        requestId: seen.requestId,
        statusCode: 200,
        statusDesc: 'OK',
        messages: [{ messageHash: hash, message: stored, pubsubTopic: '/waku/2/rs/2/4' }],
        paginationCursor: hash,
      });
      stream.send(lengthPrefixed(res));
      await stream.close();
    });
    const addr = responder.getMultiaddrs()[0]!.toString();
    const query = {
      requestId: 'q1',
      includeData: true,
      paginationForward: true,
      contentTopics: [TOPIC],
      timeStart: '1',
      paginationLimit: 20,
      messageHashes: [to0xHex(hash)],
    };
    const r = await client.call('storeQuery', JSON.stringify(query), addr, 5000);
    assert.equal(r.success, true, r.error ?? '');
    assert.deepEqual(r.value, {
      requestId: 'q1',
      statusCode: 200,
      statusDesc: 'OK',
      messages: [
        {
          messageHash: to0xHex(hash),
          message: {
            payload: [1, 2, 3],
            contentTopic: TOPIC,
            meta: [],
            version: 0,
            timestamp: 1_700_000_000_000_000_000n,
            ephemeral: false,
            proof: [],
          },
          pubsubTopic: '/waku/2/rs/2/4',
        },
      ],
      paginationCursor: to0xHex(hash),
    });
    assert.deepEqual(seen?.contentTopics, [TOPIC]);
    assert.equal(seen?.paginationLimit, 20n);
    assert.equal(seen?.timeStart, 1n);
    const t0 = Date.now();
    const silent = await client.call(
      'storeQuery',
      JSON.stringify({ ...query, requestId: 'silent' }),
      addr,
      700,
    );
    assert.equal(silent.error, 'StoreRequest failed store query: timeout after 700 ms');
    assert.ok(Date.now() - t0 < 3000);
    assert.match(
      (await client.call('storeQuery', '{bad', addr, 1000)).error!,
      /^StoreRequest failed parsing store request/,
    );
    assert.match(
      (await client.call('storeQuery', '{"requestId":"x"}', addr, 1000)).error!,
      /includeData is required/,
    );
    assert.match(
      (await client.call('storeQuery', JSON.stringify(query), '/ip4/127.0.0.1/tcp/1', 1000)).error!,
      /no \/p2p/,
    );
    assert.match((await client.call('storeQuery', JSON.stringify(query), addr, 0)).error!, /timeoutMs/);
  });
});
