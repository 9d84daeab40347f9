/**
 * The Waku ENR of the delivery module (operator.md §4.2 `MyENR`, §6.3): read back with js-waku's own
 * decoder (`@waku/enr`), it carries the relay bit, the announced `nat: extip:` address, the TCP and UDP
 * ports and the `multiaddrs` field; records are read for their relay bit and TCP dial address.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SignableENR } from '@chainsafe/enr';
import { EnrDecoder } from '@waku/enr';
import { clusterOf, createLocalEnr, decodeEnr, hasRelay, tcpDialAddress } from '../../src/enr.ts';

const SECRET = Uint8Array.from(
  Buffer.from('4a9d1c2b3e4f5a6b7c8d9e0f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d', 'hex'),
);

describe('delivery ENR', () => {
  test('js-waku reads our record: waku2 relay, extip, ports, relay shards, multiaddrs', async () => {
    const local = createLocalEnr({
      secret: SECRET,
      ip: '203.0.113.7',
      tcpPort: 30303,
      udpPort: 9000,
      relay: true,
      extMultiaddrs: ['/dns4/node.example.org/tcp/443/wss'],
      clusterId: 2,
      shards: [0, 1, 2, 3, 4, 5, 6, 7],
    });
    const text = local.encodeTxt();
    assert.match(text, /^enr:-/);
    const w = await EnrDecoder.fromString(text);
    assert.equal(w.ip, '203.0.113.7');
    assert.equal(w.tcp, 30303);
    assert.equal(w.udp, 9000);
    assert.deepEqual(w.waku2, { relay: true, store: false, filter: false, lightPush: false });
    assert.deepEqual(
      w.multiaddrs?.map((m) => m.toString()),
      ['/dns4/node.example.org/tcp/443/wss'],
    );
    assert.deepEqual(w.rs, { clusterId: 2, shards: [0, 1, 2, 3, 4, 5, 6, 7] });
    assert.equal(clusterOf(decodeEnr(text)), 2);
    assert.equal(w.peerId?.toString(), local.peerId.toString());
    assert.match(local.peerId.toString(), /^16Uiu2/);
  });

  test('records: relay bit and the TCP address to dial', () => {
    const relay = decodeEnr(
      createLocalEnr({
        secret: SECRET,
        ip: '127.0.0.1',
        tcpPort: 4000,
        udpPort: 4001,
        relay: true,
        extMultiaddrs: [],
        clusterId: 3,
        shards: [0, 1],
      }).encodeTxt(),
    );
    assert.equal(hasRelay(relay), true);
    assert.equal(tcpDialAddress(relay), `/ip4/127.0.0.1/tcp/4000/p2p/${relay.peerId.toString()}`);
    assert.equal(clusterOf(relay), 3);
    const noRelay = decodeEnr(
      createLocalEnr({
        secret: SECRET,
        ip: null,
        tcpPort: 4000,
        udpPort: 4001,
        relay: false,
        extMultiaddrs: [],
        clusterId: 3,
        shards: [0, 1],
      }).encodeTxt(),
    );
    assert.equal(hasRelay(noRelay), false);
    assert.equal(tcpDialAddress(noRelay), undefined, 'no ip, nothing to dial');
    assert.equal(clusterOf(noRelay), undefined, 'no relay, no shards announced');
    assert.throws(() => decodeEnr('enr:-garbage'));
    // a correctly signed record whose `ip` is 3 bytes: nothing to dial, no throw
    const bad = SignableENR.createV4(SECRET);
    bad.set('ip', Uint8Array.of(1, 2, 3));
    bad.tcp = 4000;
    const badIp = decodeEnr(bad.encodeTxt());
    assert.equal(tcpDialAddress(badIp), undefined);
    assert.throws(() =>
      createLocalEnr({
        secret: SECRET,
        ip: null,
        tcpPort: 1,
        udpPort: 2,
        relay: true,
        extMultiaddrs: ['/ip4/1.2.3.4/tcp/1/p2p/16Uiu2HAmTYPwA2yvziC4kLCP6fEEzXSJ9TPV2Yp6G98oaBThFLK5'],
        clusterId: 0,
        shards: [],
      }),
    );
  });
});
