/** The `network` section: defaults as the reference, its YAML forms, bad values named by their key. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError } from '@logos-ts/shared/config-fields';
import { parse } from 'yaml';
import { DEFAULT_NETWORK, parseNetworkSection } from '../../../src/network/index.ts';

const yaml = (s: string) => parseNetworkSection(parse(s, { intAsBigInt: true }));

test('defaults: 0.0.0.0:3000, random identity, the reference gossipsub parameters', () => {
  const n = parseNetworkSection(undefined);
  assert.deepEqual(n, DEFAULT_NETWORK);
  assert.equal(n.backend.swarm.host, '0.0.0.0');
  assert.equal(n.backend.swarm.port, 3000);
  assert.equal(n.backend.swarm.node_key, null);
  assert.equal(n.backend.swarm.gossipsub.mesh_n, 6);
});

test('the reference layout: {secs, nanos} durations, node_key, initial peers, kademlia/identify/nat kept', () => {
  const n = yaml(`
backend:
  swarm:
    host: 127.0.0.1
    port: 3001
    node_key: e01039077e592ce1c454c5e8ffe2f571f6fad6106ff0e1895c9a403c126ba80f
    gossipsub: { mesh_n: 8, mesh_n_high: 12, heartbeat_interval: { secs: 2, nanos: 500000000 }, retain_scores: 4 }
    kademlia: { query_timeout_secs: 60 }
    identify: { hide_listen_addrs: true }
    chain_sync: { peer_response_timeout: 3000, max_inbound_requests: 4 }
    nat: { type: traversal }
  initial_peers: [/ip4/10.0.0.1/udp/3000/quic-v1/p2p/12D3KooWHaiB8Vj69kBWbbRVCwSbk9ZbQZPFAZr1nmaV6YLyXkEo]
`);
  const s = n.backend.swarm;
  assert.equal(s.port, 3001);
  assert.equal(s.node_key?.length, 32);
  assert.equal(s.node_key?.[0], 0xe0);
  assert.equal(s.gossipsub.mesh_n, 8);
  assert.equal(s.gossipsub.heartbeat_interval_ms, 2500);
  assert.equal(n.backend.initial_peers.length, 1);
});

test('bad values are refused with their key', () => {
  const bad = (s: string, key: RegExp) =>
    assert.throws(
      () => yaml(s),
      (e) => e instanceof ConfigError && key.test(e.message),
    );
  bad('backend: { swarm: { node_key: abcd } }', /network\.backend\.swarm\.node_key: expected the 32-byte/);
  bad(`backend: { swarm: { node_key: ${'zz'.repeat(32)} } }`, /node_key/);
  bad('backend: { swarm: { port: 70000 } }', /network\.backend\.swarm\.port: expected a port/);
  bad('backend: { swarm: { port: -1 } }', /swarm\.port/);
  bad('backend: { swarm: { host: "not a host!" } }', /swarm\.host/);
  bad('backend: { swarm: { gossipsub: { mesh_n: 3, mesh_n_low: 5 } } }', /mesh_n_low ≤ mesh_n/);
  bad('backend: { swarm: { gossipsub: { mesh_outbound_min: 5 } } }', /mesh_outbound_min < mesh_n_low/);
  bad('backend: { swarm: { gossipsub: { history_gossip: 6 } } }', /history_gossip ≤ history_length/);
  bad('backend: { swarm: { gossipsub: { typo: 1 } } }', /gossipsub\.typo: unknown key/);
  bad('backend: { initial_peers: [nope] }', /initial_peers\[0\]/);
});
