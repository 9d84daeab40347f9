/**
 * The delivery module's calls in process (operator.md §4.2): the context rules, the kernel entry
 * layer's refusals with the reference's texts, node info (0.2.x id string, Nim-style id matching,
 * extip announcement, ENR), the persisted secp256k1 key, start/stop events, and argument checks.
 */
import assert from 'node:assert/strict';
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { SignableENR } from '@chainsafe/enr';
import { EnrDecoder } from '@waku/enr';
import { createLocalEnr } from '../../src/enr.ts';
import { NODE_KEY_FILE } from '../../src/node-key.ts';
import { freeTcpPort, freeUdpPort, loopbackConfig, type TestModule, testModule } from './helpers.ts';

describe('delivery module calls', () => {
  const modules: TestModule[] = [];
  const make = async () => {
    const m = await testModule();
    modules.push(m);
    return m;
  };
  after(async () => {
    for (const m of modules) await m.close();
  });

  test('before createNode every call fails with "Context not initialized"; metrics text is empty', async () => {
    const m = await make();
    for (const [method, args] of [
      ['start', []],
      ['stop', []],
      ['send', ['/a/1/b/proto', 'x']],
      ['getAvailableNodeInfoIDs', []],
      ['getNodeInfo', ['Version']],
      ['storeQuery', ['{}', '', 1000]],
    ] as const) {
      const r = await m.call(method, ...args);
      assert.deepEqual(r, { success: false, value: null, error: 'Context not initialized' }, method);
    }
    assert.equal(await m.module.methods.collectOpenMetricsText!(), '');
  });

  test('kernel entry layer: node info, refusals of messaging and channels, events, key file', async () => {
    const m = await make();
    const { json, tcpPort, udpPort } = await loopbackConfig('kernel');
    assert.deepEqual(await m.call('createNode', json), { success: true, value: null, error: null });
    assert.equal((await m.call('createNode', json)).error, 'Context already initialized');
    // the identity exists from createNode on: key file, peer id, ENR, the addresses to announce
    assert.equal(statSync(join(m.dataDir, NODE_KEY_FILE)).mode & 0o777, 0o600);
    const createdId = (await m.call('getNodeInfo', 'MyPeerId')).value as string;
    assert.match(createdId, /^16Uiu2/);
    assert.equal(
      (await m.call('getNodeInfo', 'MyMultiaddresses')).value,
      `/ip4/127.0.0.1/tcp/${tcpPort}/p2p/${createdId}`,
    );
    assert.equal(
      (await EnrDecoder.fromString((await m.call('getNodeInfo', 'MyENR')).value as string)).tcp,
      tcpPort,
    );
    assert.deepEqual(await m.call('start'), { success: true, value: null, error: null });
    assert.match((await m.call('start')).error!, /already started/);
    const started = m.events.find((e) => e.event === 'nodeStarted');
    assert.equal(started?.payload.success, true);
    assert.equal(typeof started?.payload.timestamp, 'bigint');
    assert.equal(statSync(join(m.dataDir, NODE_KEY_FILE)).mode & 0o777, 0o600);

    assert.equal(
      (await m.call('getAvailableNodeInfoIDs')).value,
      '@[Version, Metrics, MyMultiaddresses, MyENR, MyPeerId]',
    );
    assert.equal((await m.call('getNodeInfo', 'Version')).value, 'v0.2.1-ts');
    const peerId = (await m.call('getNodeInfo', 'MyPeerId')).value as string;
    assert.equal(peerId, createdId);
    assert.equal(
      (await m.call('getNodeInfo', 'MyMultiaddresses')).value,
      `/ip4/127.0.0.1/tcp/${tcpPort}/p2p/${peerId}`,
    );
    const enr = await EnrDecoder.fromString((await m.call('getNodeInfo', 'MyENR')).value as string);
    assert.equal(enr.ip, '127.0.0.1');
    assert.equal(enr.tcp, tcpPort);
    assert.equal(enr.udp, udpPort);
    assert.equal(enr.waku2?.relay, true);
    assert.equal(enr.peerId?.toString(), peerId);
    assert.deepEqual(JSON.parse((await m.call('getNodeInfo', 'MyBoundPorts')).value as string), {
      tcp: tcpPort,
      discv5Udp: udpPort,
    });
    assert.match((await m.call('getNodeInfo', 'Metrics')).value as string, /^# HELP waku_version/);
    assert.match(await (m.module.methods.collectOpenMetricsText!() as Promise<string>), /libp2p_peers 0/);
    // Nim parseEnum: first letter exact, the rest case- and underscore-insensitive
    assert.equal((await m.call('getNodeInfo', 'My_Peer_ID')).value, peerId);
    assert.deepEqual(await m.call('getNodeInfo', 'myPeerId'), {
      success: false,
      value: null,
      error: 'Invalid node info id: myPeerId',
    });
    assert.equal((await m.call('getNodeInfo', 'Nothing')).error, 'Invalid node info id: Nothing');

    assert.equal(
      (await m.call('send', '/a/1/b/proto', 'hi')).error,
      'Send failed: node has no messaging client (kernel-only node)',
    );
    assert.equal(
      (await m.call('subscribe', '/a/1/b/proto')).error,
      'Subscribe failed: node has no messaging client (kernel-only node)',
    );
    assert.equal(
      (await m.call('unsubscribe', '/a/1/b/proto')).error,
      'Unsubscribe failed: node has no messaging client (kernel-only node)',
    );
    for (const [method, op] of [
      ['channelCreate', 'ChannelCreate'],
      ['channelExists', 'ChannelExists'],
      ['channelSend', 'ChannelSend'],
      ['channelClose', 'ChannelClose'],
    ])
      assert.equal(
        (await m.call(method!, 'c1')).error,
        `${op} failed: node has no reliable channel manager (kernel-only node)`,
      );
    assert.match((await m.call('getNodeInfo', 'Version', 'extra')).error!, /at most 1 argument/);
    assert.match((await m.call('getAvailableConfigs')).value as string, /"configOptions"/);

    assert.deepEqual(await m.call('stop'), { success: true, value: null, error: null });
    assert.equal(m.events.at(-1)?.event, 'nodeStopped');
    assert.equal(
      (await m.call('getNodeInfo', 'MyMultiaddresses')).value,
      `/ip4/127.0.0.1/tcp/${tcpPort}/p2p/${peerId}`,
    );
    // the kept key gives the same identity on the next start
    assert.equal((await m.call('start')).success, true);
    assert.equal((await m.call('getNodeInfo', 'MyPeerId')).value, peerId);
    await m.call('stop');
  });

  test('nat extip: announced in MyMultiaddresses and the ENR; nodekey fixes the peer id', async () => {
    const m = await make();
    const nodekey = '4a9d1c2b3e4f5a6b7c8d9e0f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d';
    const { json, tcpPort } = await loopbackConfig('kernel', { nat: 'extip:203.0.113.7', nodekey });
    assert.equal((await m.call('createNode', json)).success, true);
    assert.equal((await m.call('start')).success, true);
    const peerId = (await m.call('getNodeInfo', 'MyPeerId')).value as string;
    // the peer id of that secret as discv5's ENR library derives it
    assert.equal(peerId, SignableENR.createV4(Buffer.from(nodekey, 'hex')).peerId.toString());
    assert.equal(
      (await m.call('getNodeInfo', 'MyMultiaddresses')).value,
      `/ip4/203.0.113.7/tcp/${tcpPort}/p2p/${peerId}`,
    );
    const enr = await EnrDecoder.fromString((await m.call('getNodeInfo', 'MyENR')).value as string);
    assert.equal(enr.ip, '203.0.113.7');
    await m.call('stop');
  });

  test('a damaged key file: createNode fails and changes nothing; bad config too', async () => {
    const m = await make();
    const { json } = await loopbackConfig('kernel');
    assert.equal(
      (await m.call('createNode', '{"entryLayer":"kernel"}')).error,
      'entryLayer kernel needs a kernelConf object',
    );
    writeFileSync(join(m.dataDir, NODE_KEY_FILE), 'not a key\n', { mode: 0o600 });
    assert.match(
      (await m.call('createNode', json)).error!,
      /^Failed to create Delivery context: .*nodekey: not a secp256k1 secret key/,
    );
    assert.equal((await m.call('start')).error, 'Context not initialized');
    writeFileSync(join(m.dataDir, NODE_KEY_FILE), `${'22'.repeat(32)}\n`);
    assert.equal((await m.call('createNode', json)).success, true);
  });

  test('unreachable entry nodes: start does not wait for them', async () => {
    const m = await make();
    const deadPort = await freeTcpPort();
    const peer = '16Uiu2HAmTYPwA2yvziC4kLCP6fEEzXSJ9TPV2Yp6G98oaBThFLK5';
    const deadEnr = createLocalEnr({
      secret: Uint8Array.from(Buffer.from('11'.repeat(32), 'hex')),
      ip: '127.0.0.1',
      tcpPort: deadPort,
      udpPort: await freeUdpPort(),
      relay: true,
      extMultiaddrs: [],
      clusterId: 2,
      shards: [0],
    }).encodeTxt();
    const { json } = await loopbackConfig('kernel', {
      entryNodes: [
        deadEnr,
        `/ip4/192.0.2.1/tcp/30303/p2p/${peer}`,
        `/ip4/127.0.0.1/tcp/${deadPort}/p2p/${peer}`,
      ],
    });
    assert.equal((await m.call('createNode', json)).success, true);
    const t0 = Date.now();
    assert.equal((await m.call('start')).success, true);
    assert.ok(Date.now() - t0 < 2000, `start took ${Date.now() - t0} ms`);
    assert.equal((await m.call('stop')).success, true);
  });

  test('a port in use: start fails, nodeStarted reports it, nothing is left running', async () => {
    const a = await make();
    const cfg = await loopbackConfig('kernel');
    assert.equal((await a.call('createNode', cfg.json)).success, true);
    assert.equal((await a.call('start')).success, true);
    const b = await make();
    assert.equal((await b.call('createNode', cfg.json)).success, true);
    const r = await b.call('start');
    assert.equal(r.success, false);
    assert.match(r.error!, /^failed to start: /);
    assert.equal(b.events.at(-1)?.payload.success, false);
    assert.equal(b.events.filter((e) => e.event === 'nodeStarted').length, 1);
    await a.call('stop');
  });
});
