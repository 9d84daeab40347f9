/**
 * The storage module's `init` configuration (operator.md §3.3, §3.4): documented defaults, paths
 * resolved against the working directory and `data-dir`, network presets, and clear refusals of bad
 * JSON, unknown keys, mistyped values, bad SPRs and bad Mix pools; SPRs round-trip and a tampered
 * one is refused.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { generateKeyPair } from '@libp2p/crypto/keys';
import { peerIdFromPrivateKey } from '@libp2p/peer-id';
import { ConfigError } from '@logos-ts/shared/config-fields';
import { multiaddr } from '@multiformats/multiaddr';
import { parseConfig, parseDuration } from '../../src/config.ts';
import { PRESET_BOOTSTRAP } from '../../src/presets.ts';
import { decodeSpr, encodeSpr } from '../../src/spr.ts';

const dir = mkdtempSync(join(tmpdir(), 'storage-config-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const POOL = {
  version: 1,
  relays: [
    {
      peerId: '16Uiu2HAm3xPbYz2zsq5XVGDCMqKhhNXZWyYV6WLVv3yzzUiRJWnW',
      mixPubKey: '7da7478099878e16e1ae64d8d92f3ac5a033d309202672f38c4b23580029c935',
      libp2pPubKey: '027ebbf9c3c5903a6ac9e4c48c33db86d37c354c6df52fa78817394112f2736c6b',
      multiAddr: '/ip4/178.128.140.206/tcp/8070',
    },
  ],
};

describe('storage config', () => {
  test('the guide config: documented defaults for the rest, paths resolved, the preset bootstrap records', async () => {
    const c = await parseConfig(
      '{"data-dir":"./storage-data","log-level":"INFO","listen-port":8091,"disc-port":8090,"network":"logos.test"}',
      dir,
    );
    assert.equal(c.dataDir, join(dir, 'storage-data'));
    assert.equal(c.netPrivkey, join(dir, 'storage-data', 'key'));
    assert.equal(c.listenIp, '0.0.0.0');
    assert.equal(c.listenPort, 8091);
    assert.equal(c.discPort, 8090);
    assert.equal(c.logLevel, 'INFO');
    assert.equal(c.storageQuota, 21474836480);
    assert.equal(c.maxPeers, 160);
    assert.equal(c.agentString, 'Logos Storage');
    assert.equal(c.blockTtlMs, 30 * 86_400_000);
    assert.equal(c.blockMaintenanceIntervalMs, 10 * 60_000);
    assert.equal(c.mixEnabled, false);
    assert.equal(c.bootstrapNodes.length, PRESET_BOOTSTRAP['logos.test']!.length);
    assert.ok(c.bootstrapNodes.every((b) => b.peerId.startsWith('16Uiu2')));
  });

  test('empty text is all defaults; no-bootstrap-node drops the preset; an explicit list replaces it', async () => {
    const d = await parseConfig('', dir);
    assert.equal(d.dataDir, join(dir, '.cache/storage'));
    assert.equal(d.discPort, 8090);
    assert.equal((await parseConfig('{"no-bootstrap-node":true}', dir)).bootstrapNodes.length, 0);
    const one = PRESET_BOOTSTRAP['logos.dev']![0]!;
    const c = await parseConfig(JSON.stringify({ 'bootstrap-node': [one] }), dir);
    assert.deepEqual(
      c.bootstrapNodes.map((b) => b.text),
      [one],
    );
  });

  test('bad input is refused with a message naming the key', async () => {
    const bad: [string, RegExp][] = [
      ['{"data-dir":', /Invalid configuration: not valid JSON/],
      ['[1,2]', /expected a JSON object/],
      ['{"listen-prt":8091}', /unknown key "listen-prt"/],
      ['{"listen-port":"8091"}', /"listen-port" must be an integer from 0 to 65535/],
      ['{"disc-port":70000}', /"disc-port" must be an integer/],
      ['{"log-level":"LOUD"}', /"log-level" must be one of TRACE/],
      ['{"listen-ip":"localhost"}', /"listen-ip" must be an IPv4 or IPv6 address/],
      ['{"nat":"extip:nope"}', /"nat" must be/],
      ['{"network":"logos.main"}', /"network" must be one of logos.test, logos.dev/],
      ['{"bootstrap-node":["spr:AAAA"]}', /"bootstrap-node" entry 0: invalid SPR/],
      ['{"bootstrap-node":"spr:x"}', /"bootstrap-node" must be an array of strings/],
      ['{"dht-mix-proxy":["enr:abc"]}', /"dht-mix-proxy" entry 0: invalid SPR: must start with "spr:"/],
      ['{"mix-pool-json":"{nope"}', /"mix-pool-json" is not valid JSON/],
      ['{"mix-pool-json":"{\\"version\\":2,\\"relays\\":[]}"}', /"version" must be 1/],
      ['{"block-ttl":"30 days"}', /"block-ttl" must be a duration/],
      ['{"repo-kind":"sqlite"}', /not supported by this node/],
      ['{"storage-quota":0}', /"storage-quota" must be an integer/],
      ['{"mix-pool":"missing.json"}', /"mix-pool" cannot be read/],
    ];
    for (const [text, re] of bad) await assert.rejects(parseConfig(text, dir), re, text);
  });

  test('refusals are the shared ConfigError (CONFIG_INVALID) with the whole message; null reads as the default', async () => {
    const exactly = (message: string) => (e: unknown) =>
      e instanceof ConfigError && e.code === 'CONFIG_INVALID' && e.message === message;
    await assert.rejects(
      parseConfig('{"listen-port":"8091"}', dir),
      exactly('Invalid configuration: "listen-port" must be an integer from 0 to 65535'),
    );
    await assert.rejects(parseConfig('null', dir), exactly('Invalid configuration: expected a JSON object'));
    await assert.rejects(
      parseConfig('{"a":1,"listen-prt":2}', dir),
      exactly('Invalid configuration: unknown key "a"'),
    );
    await assert.rejects(
      parseConfig('{"mix-enabled":"yes"}', dir),
      exactly('Invalid configuration: "mix-enabled" must be true or false'),
    );
    await assert.rejects(
      parseConfig('{"agent-string":1}', dir),
      exactly('Invalid configuration: "agent-string" must be a string'),
    );
    await assert.rejects(
      parseConfig('{"listen-ip":"::1x"}', dir),
      exactly('Invalid configuration: "listen-ip" must be an IPv4 or IPv6 address'),
    );
    const c = await parseConfig(
      '{"listen-port":null,"log-level":null,"bootstrap-node":null,"listen-ip":"::1"}',
      dir,
    );
    assert.equal(c.listenPort, 0);
    assert.equal(c.logLevel, 'INFO');
    assert.equal(c.listenIp, '::1');
    assert.equal(c.bootstrapNodes.length, PRESET_BOOTSTRAP['logos.test']!.length);
  });

  test('Mix pools: the JSON string, or a file; a bad relay is refused', async () => {
    const c = await parseConfig(
      JSON.stringify({ 'mix-enabled': true, 'mix-pool-json': JSON.stringify(POOL) }),
      dir,
    );
    assert.deepEqual(c.mixPool, POOL.relays);
    writeFileSync(join(dir, 'pool.json'), JSON.stringify(POOL));
    assert.deepEqual((await parseConfig('{"mix-pool":"pool.json"}', dir)).mixPool, POOL.relays);
    const badRelay = { version: 1, relays: [{ ...POOL.relays[0], libp2pPubKey: 'xyz' }] };
    await assert.rejects(
      parseConfig(JSON.stringify({ 'mix-pool-json': JSON.stringify(badRelay) }), dir),
      /libp2pPubKey/,
    );
    await assert.rejects(
      parseConfig(JSON.stringify({ 'mix-pool': 'pool.json', 'mix-pool-json': JSON.stringify(POOL) }), dir),
      /not both/,
    );
  });

  test('durations', () => {
    assert.equal(parseDuration('1h30m', 'x'), 90 * 60_000);
    assert.equal(parseDuration('90s', 'x'), 90_000);
    assert.throws(() => parseDuration('', 'x'));
    assert.throws(() => parseDuration('5y', 'x'));
  });
});

describe('storage SPRs', () => {
  test('a secp256k1 record round-trips: peer id 16Uiu2…, addresses, sequence number', async () => {
    const key = await generateKeyPair('secp256k1');
    const addrs = [multiaddr('/ip4/127.0.0.1/tcp/8091'), multiaddr('/ip4/127.0.0.1/udp/8090')];
    const text = await encodeSpr(key, addrs, 1_700_000_000);
    assert.ok(text.startsWith('spr:CiUIAhIh'), text);
    const d = await decodeSpr(text);
    assert.equal(d.peerId, peerIdFromPrivateKey(key).toString());
    assert.ok(d.peerId.startsWith('16Uiu2'));
    assert.deepEqual(d.multiaddrs.map(String), addrs.map(String));
    assert.equal(d.seq, 1_700_000_000);
  });

  test('a tampered record, a record of someone else and junk are refused', async () => {
    const key = await generateKeyPair('secp256k1');
    const text = await encodeSpr(key, [multiaddr('/ip4/10.0.0.1/tcp/1')], 5);
    const b = Buffer.from(text.slice(4), 'base64url');
    b[b.length - 80] = b[b.length - 80]! ^ 1; // inside the payload
    await assert.rejects(decodeSpr(`spr:${b.toString('base64url')}`), /invalid SPR/);
    await assert.rejects(decodeSpr('spr:'), /invalid SPR/);
    await assert.rejects(decodeSpr(`spr:${'A'.repeat(5000)}`), /too long/);
    await assert.rejects(decodeSpr('16Uiu2HAm'), /must start with "spr:"/);
  });

  test('the reference presets decode (their mix addresses skipped) and verify', async () => {
    for (const s of PRESET_BOOTSTRAP['logos.test']!) {
      const d = await decodeSpr(s);
      assert.ok(
        d.multiaddrs.some((a) => a.toString().endsWith('/tcp/8070')),
        d.multiaddrs.map(String).join(),
      );
    }
  });
});
