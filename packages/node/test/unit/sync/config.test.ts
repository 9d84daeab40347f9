/** The sync settings: the reference defaults, its duration forms, IBD peers, and refused values. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_SYNC, parseSyncConfig } from '../../../src/sync/index.ts';

test('defaults when the sections are absent', () => {
  assert.deepEqual(parseSyncConfig(undefined), DEFAULT_SYNC);
  assert.deepEqual(parseSyncConfig({}, {}), DEFAULT_SYNC);
});

test('the reference YAML forms are read', () => {
  const peer = '12D3KooWDpJ7As7BWAwRMfu1VU2WCqNjvq387JEYKDBj4kx6nXTN';
  const c = parseSyncConfig(
    {
      service: { sync: { block_provider: { batch_size: 64 } } },
      network: {
        bootstrap: {
          ibd: {
            peers: [peer, `/ip4/1.2.3.4/udp/3000/quic-v1/p2p/${peer}`],
            discover_connected_peers: true,
            delay_before_new_download: { secs: 10, nanos: 0 },
            tips_fetch_max_attempts: 5,
            tips_fetch_min_delay: { secs: 0, nanos: 250_000_000 },
            tips_fetch_max_delay: '2.5',
            round_delay: { secs: 1, nanos: 0 },
          },
        },
        sync: {
          orphan: { max_orphan_cache_size: 10, max_rejected_cache_size: 0 },
          tip_poll: { enabled: false, lag_threshold_blocks: 4, max_peers_to_sample: 2 },
        },
        network: { max_connected_peers_to_try_download: 3, max_discovered_peers_to_try_download: 0 },
      },
    },
    { peer_response_timeout: 1500, max_inbound_requests: 4 },
  );
  assert.deepEqual(c, {
    ibd: {
      peers: [peer],
      discover_connected_peers: true,
      tips_fetch_max_attempts: 5,
      tips_fetch_min_delay: 250,
      tips_fetch_max_delay: 2500,
      round_delay: 1000,
    },
    orphan: { max_orphan_cache_size: 10, max_rejected_cache_size: 0 },
    tip_poll: { enabled: false, lag_threshold_blocks: 4, max_peers_to_sample: 2 },
    network: { max_connected_peers_to_try_download: 3, max_discovered_peers_to_try_download: 0 },
    batch_size: 64,
    peer_response_timeout: 1500,
    max_inbound_requests: 4,
  });
});

test('bad values name their key', () => {
  const ibd = (v: unknown) => ({ network: { bootstrap: { ibd: v } } });
  assert.throws(() => parseSyncConfig(ibd({ peers: ['/ip4/1.2.3.4/udp/1/quic-v1'] })), /ibd\.peers\[0\]/);
  assert.throws(() => parseSyncConfig(ibd({ peers: 'x' })), /ibd\.peers: expected a list/);
  assert.throws(() => parseSyncConfig(ibd({ round_delay: -1 })), /ibd\.round_delay/);
  assert.throws(
    () => parseSyncConfig({ network: { sync: { orphan: { max_orphan_cache_size: 0 } } } }),
    /max_orphan_cache_size/,
  );
  assert.throws(() => parseSyncConfig({}, { max_inbound_requests: 0 }), /chain_sync\.max_inbound_requests/);
  assert.throws(() => parseSyncConfig({}, { other: 1 }), /chain_sync\.other: unknown key/);
});
