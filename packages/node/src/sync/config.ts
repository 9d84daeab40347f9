/**
 * Chain sync's settings: `cryptarchia.network` (IBD, orphans, tip polling, download fan-out) and
 * `cryptarchia.service.sync` (the block provider's batch size) of `user_config.yaml`, with the reference
 * defaults (F `nodes/node/binary/src/config/cryptarchia/serde/network.rs`,
 * `services/chain/chain-service/src/sync/config.rs`), and the chain-sync stream limits.
 */
import { bool, ConfigError, int, isObj, mapping, only, seconds } from '@logos-ts/shared/config-fields';

export interface SyncConfig {
  readonly ibd: {
    /** Peer ids (the `/p2p/<id>` part of a multiaddr is taken). */
    readonly peers: readonly string[];
    readonly discover_connected_peers: boolean;
    readonly tips_fetch_max_attempts: number;
    /** Milliseconds. */
    readonly tips_fetch_min_delay: number;
    /** Milliseconds. */
    readonly tips_fetch_max_delay: number;
    /** Milliseconds. */
    readonly round_delay: number;
  };
  readonly orphan: { readonly max_orphan_cache_size: number; readonly max_rejected_cache_size: number };
  readonly tip_poll: {
    readonly enabled: boolean;
    readonly lag_threshold_blocks: number;
    readonly max_peers_to_sample: number;
  };
  readonly network: {
    readonly max_connected_peers_to_try_download: number;
    readonly max_discovered_peers_to_try_download: number;
  };
  /** `cryptarchia.service.sync.block_provider.batch_size`. */
  readonly batch_size: number;
  /** F chain-sync `Config::peer_response_timeout` (ms), per response frame. */
  readonly peer_response_timeout: number;
  /** F chain-sync `Config::max_inbound_requests`: streams served at once. */
  readonly max_inbound_requests: number;
}

export const DEFAULT_SYNC: SyncConfig = {
  ibd: {
    peers: [],
    discover_connected_peers: false,
    tips_fetch_max_attempts: 3,
    tips_fetch_min_delay: 250,
    tips_fetch_max_delay: 1000,
    round_delay: 1000,
  },
  orphan: { max_orphan_cache_size: 1000, max_rejected_cache_size: 1000 },
  tip_poll: { enabled: true, lag_threshold_blocks: 3, max_peers_to_sample: 5 },
  network: { max_connected_peers_to_try_download: 16, max_discovered_peers_to_try_download: 16 },
  batch_size: 1000,
  peer_response_timeout: 5000,
  max_inbound_requests: 10,
};

/** A duration: `{secs, nanos}` (the reference's YAML form) or seconds; in milliseconds. */
function durationMs(v: unknown, defMs: number, path: string): number {
  if (v === undefined || v === null) return defMs;
  if (isObj(v)) {
    const secs = int(v.secs, 0, `${path}.secs`);
    const nanos = int(v.nanos, 0, `${path}.nanos`);
    return secs * 1000 + Math.floor(nanos / 1e6);
  }
  return Math.round(seconds(v, defMs / 1000, path) * 1000);
}

/**
 * An IBD peer: a peer id, or a multiaddr ending in `/p2p/<id>`.
 * inferred: F reads peer ids only; the `/p2p/` form of a multiaddr is accepted too (docs/design/fidelity.md)
 */
function peerId(v: unknown, path: string): string {
  if (typeof v !== 'string' || v === '') throw new ConfigError(`${path}: expected a peer id`);
  const m = /\/p2p\/([^/]+)$/.exec(v);
  if (m) return m[1]!;
  if (v.startsWith('/')) throw new ConfigError(`${path}: a multiaddr without /p2p/<peer id>`);
  return v;
}

/**
 * Reads the sync settings out of the `cryptarchia` section (its layout is checked by the chain's parser)
 * and the chain-sync stream limits out of `network.backend.swarm.chain_sync` (F
 * `nodes/node/binary/src/config/network/serde/chainsync.rs`: `peer_response_timeout` in milliseconds).
 */
export function parseSyncConfig(cryptarchia: unknown, chainSync?: unknown): SyncConfig {
  const D = DEFAULT_SYNC;
  const cr = mapping(cryptarchia, 'cryptarchia');
  const net = mapping(cr.network, 'cryptarchia.network');
  const ibd = mapping(
    mapping(net.bootstrap, 'cryptarchia.network.bootstrap').ibd,
    'cryptarchia.network.bootstrap.ibd',
  );
  const sync = mapping(net.sync, 'cryptarchia.network.sync');
  const orphan = mapping(sync.orphan, 'cryptarchia.network.sync.orphan');
  const tp = mapping(sync.tip_poll, 'cryptarchia.network.sync.tip_poll');
  const nn = mapping(net.network, 'cryptarchia.network.network');
  const bp = mapping(
    mapping(mapping(cr.service, 'cryptarchia.service').sync, 'cryptarchia.service.sync').block_provider,
    'cryptarchia.service.sync.block_provider',
  );
  const P = 'cryptarchia.network.bootstrap.ibd';
  const CS = 'network.backend.swarm.chain_sync';
  const cs = mapping(chainSync, CS);
  only(cs, ['peer_response_timeout', 'max_inbound_requests'], CS);
  const rawPeers = ibd.peers ?? [];
  if (!Array.isArray(rawPeers)) throw new ConfigError(`${P}.peers: expected a list`);
  return {
    ibd: {
      peers: [...new Set(rawPeers.map((p, i) => peerId(p, `${P}.peers[${i}]`)))],
      discover_connected_peers: bool(
        ibd.discover_connected_peers,
        D.ibd.discover_connected_peers,
        `${P}.discover_connected_peers`,
      ),
      tips_fetch_max_attempts: int(
        ibd.tips_fetch_max_attempts,
        D.ibd.tips_fetch_max_attempts,
        `${P}.tips_fetch_max_attempts`,
      ),
      tips_fetch_min_delay: durationMs(
        ibd.tips_fetch_min_delay,
        D.ibd.tips_fetch_min_delay,
        `${P}.tips_fetch_min_delay`,
      ),
      tips_fetch_max_delay: durationMs(
        ibd.tips_fetch_max_delay,
        D.ibd.tips_fetch_max_delay,
        `${P}.tips_fetch_max_delay`,
      ),
      round_delay: durationMs(ibd.round_delay, D.ibd.round_delay, `${P}.round_delay`),
    },
    orphan: {
      max_orphan_cache_size: int(
        orphan.max_orphan_cache_size,
        D.orphan.max_orphan_cache_size,
        'cryptarchia.network.sync.orphan.max_orphan_cache_size',
        1,
      ),
      max_rejected_cache_size: int(
        orphan.max_rejected_cache_size,
        D.orphan.max_rejected_cache_size,
        'cryptarchia.network.sync.orphan.max_rejected_cache_size',
      ),
    },
    tip_poll: {
      enabled: bool(tp.enabled, D.tip_poll.enabled, 'cryptarchia.network.sync.tip_poll.enabled'),
      lag_threshold_blocks: int(
        tp.lag_threshold_blocks,
        D.tip_poll.lag_threshold_blocks,
        'cryptarchia.network.sync.tip_poll.lag_threshold_blocks',
        1,
      ),
      max_peers_to_sample: int(
        tp.max_peers_to_sample,
        D.tip_poll.max_peers_to_sample,
        'cryptarchia.network.sync.tip_poll.max_peers_to_sample',
        1,
      ),
    },
    network: {
      max_connected_peers_to_try_download: int(
        nn.max_connected_peers_to_try_download,
        D.network.max_connected_peers_to_try_download,
        'cryptarchia.network.network.max_connected_peers_to_try_download',
      ),
      max_discovered_peers_to_try_download: int(
        nn.max_discovered_peers_to_try_download,
        D.network.max_discovered_peers_to_try_download,
        'cryptarchia.network.network.max_discovered_peers_to_try_download',
      ),
    },
    batch_size: int(bp.batch_size, D.batch_size, 'cryptarchia.service.sync.block_provider.batch_size', 1),
    peer_response_timeout: int(
      cs.peer_response_timeout,
      D.peer_response_timeout,
      `${CS}.peer_response_timeout`,
    ),
    max_inbound_requests: int(
      cs.max_inbound_requests,
      D.max_inbound_requests,
      `${CS}.max_inbound_requests`,
      1,
    ),
  };
}
