/**
 * The `network` section of `user_config.yaml` (the reference's key layout, F
 * `nodes/node/binary/src/config/network/serde/*.rs`): where the libp2p node listens, its identity key,
 * the gossipsub parameters, the chain-sync stream limits and the peers dialled at start. Kademlia,
 * identify and NAT settings are checked for their layout and not read (libp2p defaults apply).
 */

import {
  bool,
  ConfigError,
  host,
  int,
  mapping,
  multiaddr,
  type Obj,
  only,
  port,
} from '@logos-ts/shared/config-fields';
import { hexToBytesOrUndefined } from '../codec/hex.ts';

/** Gossipsub parameters (F: rust-libp2p 0.49 defaults, `nodes/node/standalone-node-config.yaml`). */
export interface GossipsubSettings {
  readonly history_length: number;
  readonly history_gossip: number;
  readonly mesh_n: number;
  readonly mesh_n_low: number;
  readonly mesh_n_high: number;
  readonly gossip_lazy: number;
  readonly gossip_factor: number;
  readonly heartbeat_interval_ms: number;
  readonly fanout_ttl_ms: number;
  readonly duplicate_cache_time_ms: number;
  readonly do_px: boolean;
  readonly prune_peers: number;
  readonly prune_backoff_ms: number;
  readonly unsubscribe_backoff_ms: number;
  readonly flood_publish: boolean;
  readonly graft_flood_threshold_ms: number;
  readonly mesh_outbound_min: number;
  readonly opportunistic_graft_ticks: number;
  readonly opportunistic_graft_peers: number;
  readonly iwant_followup_time_ms: number;
}

export interface NetworkSection {
  readonly backend: {
    readonly swarm: {
      readonly host: string;
      readonly port: number;
      /** The 32-byte Ed25519 secret; null: a random identity at each start. */
      readonly node_key: Uint8Array | null;
      readonly gossipsub: GossipsubSettings;
    };
    readonly initial_peers: readonly string[];
  };
}

export const DEFAULT_GOSSIPSUB: GossipsubSettings = {
  history_length: 5,
  history_gossip: 3,
  mesh_n: 6,
  mesh_n_low: 5,
  mesh_n_high: 12,
  gossip_lazy: 6,
  gossip_factor: 0.25,
  heartbeat_interval_ms: 1000,
  fanout_ttl_ms: 60_000,
  duplicate_cache_time_ms: 60_000,
  do_px: false,
  prune_peers: 0,
  prune_backoff_ms: 60_000,
  unsubscribe_backoff_ms: 10_000,
  flood_publish: true,
  graft_flood_threshold_ms: 10_000,
  mesh_outbound_min: 2,
  opportunistic_graft_ticks: 60,
  opportunistic_graft_peers: 2,
  iwant_followup_time_ms: 3000,
};

/** F: `libp2p/src/config/mod.rs` (host 0.0.0.0, port 3000), chain sync 5000 ms and 10 streams. */
export const DEFAULT_NETWORK: NetworkSection = {
  backend: {
    swarm: {
      host: '0.0.0.0',
      port: 3000,
      node_key: null,
      gossipsub: DEFAULT_GOSSIPSUB,
    },
    initial_peers: [],
  },
};

/** Keys of the gossipsub mapping the reference writes out; those without a field above are not read. */
const GOSSIPSUB_KEYS = [
  'history_length',
  'history_gossip',
  'mesh_n',
  'mesh_n_low',
  'mesh_n_high',
  'retain_scores',
  'gossip_lazy',
  'gossip_factor',
  'heartbeat_initial_delay',
  'heartbeat_interval',
  'fanout_ttl',
  'check_explicit_peers_ticks',
  'duplicate_cache_time',
  'validate_messages',
  'allow_self_origin',
  'do_px',
  'prune_peers',
  'prune_backoff',
  'unsubscribe_backoff',
  'backoff_slack',
  'flood_publish',
  'graft_flood_threshold',
  'mesh_outbound_min',
  'opportunistic_graft_ticks',
  'opportunistic_graft_peers',
  'gossip_retransimission',
  'max_messages_per_rpc',
  'max_ihave_length',
  'max_ihave_messages',
  'iwant_followup_time',
  'published_message_ids_cache_time',
];

/** A duration: seconds as a number or string, or the reference's `{secs, nanos}` mapping; in ms. */
function durationMs(v: unknown, defMs: number, path: string): number {
  if (v === undefined) return defMs;
  if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
    const o = v as Obj;
    only(o, ['secs', 'nanos'], path);
    return int(o.secs, 0, `${path}.secs`) * 1000 + Math.floor(int(o.nanos, 0, `${path}.nanos`) / 1e6);
  }
  const n = typeof v === 'string' ? Number(v) : typeof v === 'bigint' ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isFinite(n) || n < 0)
    throw new ConfigError(`${path}: expected a duration in seconds or {secs, nanos}`);
  return Math.round(n * 1000);
}

function ratio(v: unknown, def: number, path: string): number {
  if (v === undefined) return def;
  const n = typeof v === 'bigint' ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isFinite(n) || n < 0 || n > 1)
    throw new ConfigError(`${path}: expected a number from 0 to 1`);
  return n;
}

function parseGossipsub(v: unknown, path: string): GossipsubSettings {
  const g = mapping(v, path);
  only(g, GOSSIPSUB_KEYS, path);
  const D = DEFAULT_GOSSIPSUB;
  const n = (k: keyof GossipsubSettings & string, min = 0) => int(g[k], D[k] as number, `${path}.${k}`, min);
  const ms = (k: string, d: number) => durationMs(g[k], d, `${path}.${k}`);
  const s: GossipsubSettings = {
    history_length: n('history_length', 1),
    history_gossip: n('history_gossip'),
    mesh_n: n('mesh_n', 1),
    mesh_n_low: n('mesh_n_low'),
    mesh_n_high: n('mesh_n_high', 1),
    gossip_lazy: n('gossip_lazy'),
    gossip_factor: ratio(g.gossip_factor, D.gossip_factor, `${path}.gossip_factor`),
    heartbeat_interval_ms: ms('heartbeat_interval', D.heartbeat_interval_ms),
    fanout_ttl_ms: ms('fanout_ttl', D.fanout_ttl_ms),
    duplicate_cache_time_ms: ms('duplicate_cache_time', D.duplicate_cache_time_ms),
    do_px: bool(g.do_px, D.do_px, `${path}.do_px`),
    prune_peers: n('prune_peers'),
    prune_backoff_ms: ms('prune_backoff', D.prune_backoff_ms),
    unsubscribe_backoff_ms: ms('unsubscribe_backoff', D.unsubscribe_backoff_ms),
    flood_publish: bool(g.flood_publish, D.flood_publish, `${path}.flood_publish`),
    graft_flood_threshold_ms: ms('graft_flood_threshold', D.graft_flood_threshold_ms),
    mesh_outbound_min: n('mesh_outbound_min'),
    opportunistic_graft_ticks: n('opportunistic_graft_ticks', 1),
    opportunistic_graft_peers: n('opportunistic_graft_peers'),
    iwant_followup_time_ms: ms('iwant_followup_time', D.iwant_followup_time_ms),
  };
  if (s.heartbeat_interval_ms === 0) throw new ConfigError(`${path}.heartbeat_interval: must be above 0`);
  // F: rust-libp2p's ConfigBuilder::build refuses these meshes (mesh_n_low ≤ mesh_n ≤ mesh_n_high).
  if (!(s.mesh_n_low <= s.mesh_n && s.mesh_n <= s.mesh_n_high))
    throw new ConfigError(`${path}: expected mesh_n_low ≤ mesh_n ≤ mesh_n_high`);
  // js gossipsub refuses these too (mesh_outbound_min < mesh_n_low and ≤ mesh_n / 2), as rust-libp2p does.
  if (!(s.mesh_outbound_min < s.mesh_n_low && s.mesh_outbound_min <= s.mesh_n / 2))
    throw new ConfigError(
      `${path}: expected mesh_outbound_min < mesh_n_low and mesh_outbound_min ≤ mesh_n / 2`,
    );
  if (s.history_gossip > s.history_length)
    throw new ConfigError(`${path}: expected history_gossip ≤ history_length`);
  return s;
}

/** The Ed25519 secret of `node_key`: 64 hex characters (an all-digit key reads as a YAML integer). */
function nodeKey(raw: unknown, path: string): Uint8Array | null {
  if (raw === undefined || raw === null) return null;
  const v = typeof raw === 'bigint' && raw >= 0n ? raw.toString().padStart(64, '0') : raw;
  const bytes = typeof v === 'string' && v.length === 64 ? hexToBytesOrUndefined(v) : undefined;
  if (bytes === undefined)
    throw new ConfigError(`${path}: expected the 32-byte Ed25519 secret key as 64 hex characters`);
  return bytes;
}

export function parseNetworkSection(v: unknown): NetworkSection {
  const root = mapping(v, 'network');
  only(root, ['backend'], 'network');
  const backend = mapping(root.backend, 'network.backend');
  only(backend, ['swarm', 'initial_peers'], 'network.backend');
  const p = 'network.backend.swarm';
  const swarm = mapping(backend.swarm, p);
  only(swarm, ['host', 'port', 'node_key', 'gossipsub', 'kademlia', 'identify', 'chain_sync', 'nat'], p);
  // Kademlia, identify and NAT settings: libp2p defaults apply (their mappings are accepted as they are).
  // `chain_sync` is the sync service's (src/sync/config.ts reads and checks it).
  for (const k of ['kademlia', 'identify', 'nat']) mapping(swarm[k], `${p}.${k}`);
  const D = DEFAULT_NETWORK.backend;
  const peersRaw = backend.initial_peers ?? [];
  if (!Array.isArray(peersRaw))
    throw new ConfigError('network.backend.initial_peers: expected a list of multiaddrs');
  const initial_peers = peersRaw.map((a, i) => multiaddr(a, `network.backend.initial_peers[${i}]`));
  return {
    backend: {
      swarm: {
        host: swarm.host === undefined ? D.swarm.host : host(swarm.host, `${p}.host`),
        port: swarm.port === undefined ? D.swarm.port : port(swarm.port, `${p}.port`),
        node_key: nodeKey(swarm.node_key, `${p}.node_key`),
        gossipsub: parseGossipsub(swarm.gossipsub, `${p}.gossipsub`),
      },
      initial_peers,
    },
  };
}
