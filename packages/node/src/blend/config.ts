/**
 * The Blend service's section of `user_config.yaml` (`blend`), with the reference's defaults
 * (F: nodes/node/binary/src/config/blend/serde/{mod,core,edge}.rs):
 *
 * ```yaml
 * blend:
 *   non_ephemeral_signing_key_id: <KMS id of an Ed25519 key>   # its public key is the SDP provider id
 *   core:
 *     zk: { secret_key_kms_id: <KMS id of a Zk key> }         # its public key is the SDP zk id
 *     backend:
 *       listening_address: /ip4/0.0.0.0/udp/3400/quic-v1
 *       core_peering_degree: { start: 3, end: 5 }
 *       edge_node_connection_timeout: 1                          # seconds
 *       max_edge_node_incoming_connections: 300
 *       max_dial_attempts_per_peer: 3
 *       peering_degree_check_interval: 60                        # seconds; null: never
 *   edge:
 *     backend: { max_dial_attempts_per_peer_per_message: 1, replication_factor: 1 }
 * ```
 *
 * The key layout is checked with the other sections (node/config.ts).
 */
import { ConfigError, hex64, int, mapping, multiaddr, seconds } from '@logos-ts/shared/config-fields';

/** The core role's swarm (F `BackendConfig` of the core settings). */
export interface BlendCoreBackend {
  /** Where the Blend swarm listens (QUIC). */
  readonly listening_address: string;
  /** How many other core nodes to stay connected to: at least `start`, at most `end`. */
  readonly core_peering_degree: { readonly start: number; readonly end: number };
  /** An edge node's connection is closed after this long (ms). */
  readonly edge_node_connection_timeout_ms: number;
  readonly max_edge_node_incoming_connections: number;
  readonly max_dial_attempts_per_peer: number;
  /** How often the peering degree is checked and topped up (ms); null: only at epoch changes. */
  readonly peering_degree_check_interval_ms: number | null;
}

/** The edge role's sends (F `edge::BackendConfig`). */
export interface BlendEdgeBackend {
  readonly max_dial_attempts_per_peer_per_message: number;
  /** Φ_EC: the core nodes an edge node sends each message to. */
  readonly replication_factor: number;
}

export interface BlendSection {
  /** KMS id of the Ed25519 key: the Blend swarm's identity and the SDP provider id. */
  readonly non_ephemeral_signing_key_id: string | null;
  /** KMS id of the Zk key declared as the SDP zk id; it proves the core quota. */
  readonly core_zk_secret_key_kms_id: string | null;
  readonly core: BlendCoreBackend;
  readonly edge: BlendEdgeBackend;
}

export const DEFAULT_BLEND: BlendSection = {
  non_ephemeral_signing_key_id: null,
  core_zk_secret_key_kms_id: null,
  core: {
    listening_address: '/ip4/0.0.0.0/udp/3400/quic-v1',
    core_peering_degree: { start: 3, end: 5 },
    edge_node_connection_timeout_ms: 1000,
    max_edge_node_incoming_connections: 300,
    max_dial_attempts_per_peer: 3,
    peering_degree_check_interval_ms: 60_000,
  },
  edge: { max_dial_attempts_per_peer_per_message: 1, replication_factor: 1 },
};

/** A KMS key id: the reference's ids are strings (this node's KMS names keys by 64 hex characters). */
function keyId(v: unknown, path: string): string | null {
  if (v == null) return null;
  if (typeof v === 'bigint') return hex64(v, path);
  if (typeof v !== 'string' || v === '') throw new ConfigError(`${path}: expected a KMS key id`);
  return /^[0-9a-fA-F]{64}$/.test(v) ? v.toLowerCase() : v;
}

/** Reads `blend` (its key layout is checked with the other sections, node/config.ts). */
export function parseBlendSection(raw: unknown): BlendSection {
  const blend = mapping(raw, 'blend');
  const core = mapping(blend.core, 'blend.core');
  const zk = mapping(core.zk, 'blend.core.zk');
  const b = mapping(core.backend, 'blend.core.backend');
  const e = mapping(mapping(blend.edge, 'blend.edge').backend, 'blend.edge.backend');
  const D = DEFAULT_BLEND;
  const p = 'blend.core.backend';
  const degree = mapping(b.core_peering_degree, `${p}.core_peering_degree`);
  const start = int(degree.start, D.core.core_peering_degree.start, `${p}.core_peering_degree.start`);
  const end = int(degree.end, D.core.core_peering_degree.end, `${p}.core_peering_degree.end`);
  if (end < start) throw new ConfigError(`${p}.core_peering_degree: end ${end} is below start ${start}`);
  const ms = (v: unknown, def: number, path: string, min: number): number => {
    const s = seconds(v, def / 1000, path);
    if (s < min) throw new ConfigError(`${path}: must be at least ${min} s`);
    return Math.round(s * 1000);
  };
  return {
    non_ephemeral_signing_key_id: keyId(
      blend.non_ephemeral_signing_key_id,
      'blend.non_ephemeral_signing_key_id',
    ),
    core_zk_secret_key_kms_id: keyId(zk.secret_key_kms_id, 'blend.core.zk.secret_key_kms_id'),
    core: {
      listening_address:
        b.listening_address === undefined
          ? D.core.listening_address
          : multiaddr(b.listening_address, `${p}.listening_address`),
      core_peering_degree: { start, end },
      // F: `MinimalBoundedDuration<1, SECOND>`: at least one second.
      edge_node_connection_timeout_ms: ms(
        b.edge_node_connection_timeout,
        D.core.edge_node_connection_timeout_ms,
        `${p}.edge_node_connection_timeout`,
        1,
      ),
      max_edge_node_incoming_connections: int(
        b.max_edge_node_incoming_connections,
        D.core.max_edge_node_incoming_connections,
        `${p}.max_edge_node_incoming_connections`,
      ),
      max_dial_attempts_per_peer: int(
        b.max_dial_attempts_per_peer,
        D.core.max_dial_attempts_per_peer,
        `${p}.max_dial_attempts_per_peer`,
        1,
      ),
      peering_degree_check_interval_ms:
        b.peering_degree_check_interval === null
          ? null
          : ms(
              b.peering_degree_check_interval,
              D.core.peering_degree_check_interval_ms!,
              `${p}.peering_degree_check_interval`,
              1,
            ),
    },
    edge: {
      max_dial_attempts_per_peer_per_message: int(
        e.max_dial_attempts_per_peer_per_message,
        D.edge.max_dial_attempts_per_peer_per_message,
        'blend.edge.backend.max_dial_attempts_per_peer_per_message',
        1,
      ),
      replication_factor: int(
        e.replication_factor,
        D.edge.replication_factor,
        'blend.edge.backend.replication_factor',
        1,
      ),
    },
  };
}
