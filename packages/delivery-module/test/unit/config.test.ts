/**
 * The `createNode` grammar of the delivery module (operator.md §4.1): the layered shapes (operator
 * kernel config, app shape, overrides), the flat legacy shape, presets and their dotless spellings,
 * key spellings, and the refusals of bad JSON, bad values, unknown keys and services this node lacks.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ConfigError } from '@logos-ts/shared/config-fields';
import { MAX_MESSAGE_BYTES, parseDeliveryConfig } from '../../src/config.ts';

const refuses = (cfg: unknown, pattern: RegExp): void => {
  assert.throws(
    () => parseDeliveryConfig(typeof cfg === 'string' ? cfg : JSON.stringify(cfg)),
    (e: Error) => e instanceof ConfigError && pattern.test(e.message),
    JSON.stringify(cfg),
  );
};

describe('delivery createNode config', () => {
  test('the operator kernel config of the v0.2.1 guide', () => {
    const c = parseDeliveryConfig(
      JSON.stringify({
        entryLayer: 'kernel',
        kernelConf: {
          preset: 'logos.test',
          relay: true,
          logLevel: 'INFO',
          tcpPort: 30303,
          discv5UdpPort: 9000,
          discv5Discovery: true,
          nat: 'extip:203.0.113.7',
        },
      }),
    );
    assert.equal(c.entryLayer, 'kernel');
    assert.equal(c.preset, 'logos.test');
    assert.equal(c.clusterId, 2);
    assert.equal(c.numShardsInNetwork, 8);
    assert.equal(c.relay, true);
    assert.equal(c.logLevel, 'info');
    assert.equal(c.tcpPort, 30303);
    assert.equal(c.discv5UdpPort, 9000);
    assert.equal(c.discv5Discovery, true);
    assert.equal(c.extIp, '203.0.113.7');
    assert.equal(c.maxMessageSize, MAX_MESSAGE_BYTES);
  });

  test('the app shape defaults to the channels layer; logos.dev is cluster 3; dotless spellings', () => {
    const app = parseDeliveryConfig('{"mode":"Core","preset":"logos.dev"}');
    assert.equal(app.entryLayer, 'channels');
    assert.equal(app.clusterId, 3);
    assert.equal(app.numShardsInNetwork, 8);
    assert.equal(parseDeliveryConfig('{"preset":"logostest"}').clusterId, 2);
    assert.equal(
      parseDeliveryConfig('{"entryLayer":"messaging","kernelConf":{"preset":"LOGOSDEV"}}').clusterId,
      3,
    );
  });

  test('kernelConf as a raw WakuNodeConf; overrides apply over it; key spellings are one key', () => {
    const c = parseDeliveryConfig(
      JSON.stringify({
        entryLayer: 'messaging',
        kernelConf: { 'cluster-id': 42, numShardsInNetwork: 4, relay: true },
        messagingOverrides: { clusterid: 43, anonymityLevel: 'None' },
      }),
    );
    assert.equal(c.clusterId, 43);
    assert.equal(c.numShardsInNetwork, 4);
    assert.equal(c.preset, null);
  });

  test('a single bare top-level key switches to the flat shape, which boots the full stack', () => {
    const c = parseDeliveryConfig('{"logLevel":"DEBUG"}');
    assert.equal(c.entryLayer, 'channels');
    assert.equal(c.logLevel, 'debug');
    assert.equal(c.clusterId, 0);
    const v02 = parseDeliveryConfig(
      '{"preset":"logos.test","mode":"Core","logLevel":"INFO","tcpPort":30303,"discv5UdpPort":9000,"discv5Discovery":true,"nat":"extip:198.51.100.1"}',
    );
    assert.equal(v02.clusterId, 2);
    assert.equal(v02.extIp, '198.51.100.1');
    assert.equal(v02.entryLayer, 'channels');
  });

  test('entry nodes: enr records and multiaddrs with a peer id', () => {
    const ma = '/ip4/127.0.0.1/tcp/30303/p2p/16Uiu2HAmTYPwA2yvziC4kLCP6fEEzXSJ9TPV2Yp6G98oaBThFLK5';
    const c = parseDeliveryConfig(JSON.stringify({ entryNodes: ['enr:-abc', ma] }));
    assert.deepEqual(c.entryNodes, ['enr:-abc', ma]);
    refuses({ entryNodes: ['/ip4/127.0.0.1/tcp/1'] }, /has no \/p2p/);
    refuses({ entryNodes: ['enrtree://x@nodes.example'] }, /enrtree/);
    refuses({ entryNodes: 'not an address' }, /neither an enr/);
  });

  test('bad JSON and bad shapes fail clearly', () => {
    refuses('{not json', /^Invalid JSON config$/);
    refuses('[1,2]', /^Invalid JSON config$/);
    refuses({ entryLayer: 'kernel' }, /needs a kernelConf/);
    refuses({ entryLayer: 'transport', kernelConf: {} }, /kernel, messaging or channels/);
    refuses({ entryLayer: 'kernel', kernelConf: 5 }, /kernelConf must be a JSON object/);
    refuses({ preset: 'twn.prod' }, /unknown preset/);
    refuses({ mode: 'Edge', preset: 'logos.test' }, /Edge/);
    refuses({ mode: 'Fast' }, /Core or Edge/);
    refuses({ preset: 'logos.test', messagingOverrides: { anonymityLevel: 'Required' } }, /mix/);
    refuses({ entryLayer: 'kernel', kernelConf: {}, messagingOverrides: {} }, /no effect on the kernel/);
  });

  test('bad values name their key', () => {
    refuses(
      { entryLayer: 'kernel', kernelConf: { tcpPort: 70000 } },
      /^kernelConf\.tcpPort must be an integer from 0 to 65535$/,
    );
    refuses({ tcpPort: 'abc' }, /tcpPort must be an integer/);
    refuses({ relay: 'yes' }, /relay must be true or false/);
    refuses({ nat: 'extip:999.1.1.1' }, /nat must be any, none or extip/);
    refuses({ nat: 'upnp' }, /upnp is not supported/);
    refuses({ logLevel: 'LOUD' }, /logLevel must be one of/);
    refuses({ nodekey: 'abcd' }, /64 hex/);
    refuses({ clusterId: -1 }, /clusterId/);
  });

  test('services this node lacks are refused when asked for, accepted when off; unknown keys refused', () => {
    refuses({ store: true }, /store service is not supported/);
    refuses({ filter: true }, /filter service/);
    refuses({ lightpush: true }, /lightpush/);
    refuses({ mix: true }, /mix is not supported/);
    refuses({ websocketSupport: true }, /websocket/);
    refuses({ colour: 'blue' }, /^unknown configuration key: colour$/);
    const c = parseDeliveryConfig(
      '{"store":false,"filter":false,"lightpush":false,"mix":false,"metricsServerPort":8008}',
    );
    assert.equal(c.relay, true);
  });

  test('a JSON object argument is read as the config itself', () => {
    assert.equal(parseDeliveryConfig({ preset: 'logos.dev' }).clusterId, 3);
  });
});
