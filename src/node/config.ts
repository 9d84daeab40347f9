/**
 * `user_config.yaml`: the node operator's configuration, in the reference node's key layout.
 * Strict: an unknown key or a value of the wrong type is an error naming the key. Missing keys take
 * the reference defaults. Durations are seconds, as numbers or strings such as '3600.000000000'.
 *
 * Sections of services this node does not run yet (network, blend, time, sdp, pow) are checked for
 * their key layout (unknown keys are refused) so that a reference configuration loads and a typo is
 * caught; their values are read when the services they configure exist.
 */
import { parse } from 'yaml';
import { LogosError } from '../errors/base.ts';

export class ConfigError extends LogosError {
  constructor(message: string) {
    super('INVALID_CONFIG', message);
  }
}

export interface UserConfig {
  readonly api: {
    readonly backend: {
      readonly listen_address: string;
      readonly cors_origins: readonly string[];
      readonly timeout: number;
      readonly max_body_size: number;
      readonly max_concurrent_requests: number;
    };
  };
  readonly state: { readonly base_folder: string };
  readonly storage: { readonly backend: { readonly folder_name: string; readonly read_only: boolean } };
  readonly cryptarchia: {
    readonly service: {
      readonly bootstrap: {
        /** Seconds. */
        readonly prolonged_bootstrap_period: number;
        readonly force_bootstrap: boolean;
        readonly offline_grace_period: {
          readonly grace_period: number;
          readonly state_recording_interval: number;
        };
      };
    };
    readonly leader: { readonly wallet: { readonly max_tx_fee: bigint; readonly funding_pk: string | null } };
  };
  readonly wallet: {
    /** key id (hex) → ZK public key (hex). */
    readonly known_keys: Readonly<Record<string, string>>;
    readonly voucher_master_key_id: string | null;
    readonly pending_note_expiry_blocks: number;
  };
  readonly kms: {
    readonly backend: { readonly keys: Readonly<Record<string, { kind: 'Zk' | 'Ed25519'; secret: string }>> };
  };
  readonly tracing: { readonly level: string };
}

export const DEFAULT_CONFIG: UserConfig = {
  api: {
    backend: {
      listen_address: '127.0.0.1:8080',
      cors_origins: [],
      timeout: 30,
      max_body_size: 10_485_760,
      max_concurrent_requests: 500,
    },
  },
  state: { base_folder: './state' },
  storage: { backend: { folder_name: './db', read_only: false } },
  cryptarchia: {
    service: {
      bootstrap: {
        prolonged_bootstrap_period: 3600,
        force_bootstrap: false,
        offline_grace_period: { grace_period: 1200, state_recording_interval: 60 },
      },
    },
    leader: { wallet: { max_tx_fee: 0xffffffffffffffffn, funding_pk: null } },
  },
  wallet: { known_keys: {}, voucher_master_key_id: null, pending_note_expiry_blocks: 10 },
  kms: { backend: { keys: {} } },
  tracing: { level: 'INFO' },
};

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function mapping(v: unknown, path: string): Obj {
  if (v === undefined || v === null) return {};
  if (!isObj(v)) throw new ConfigError(`${path}: expected a mapping`);
  return v;
}

function only(o: Obj, allowed: readonly string[], path: string): void {
  for (const k of Object.keys(o)) {
    if (!allowed.includes(k))
      throw new ConfigError(
        `${path ? `${path}.` : ''}${k}: unknown key (expected one of ${allowed.join(', ')})`,
      );
  }
}

function seconds(v: unknown, def: number, path: string): number {
  if (v === undefined) return def;
  const n = typeof v === 'string' ? Number(v) : typeof v === 'bigint' ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isFinite(n) || n < 0)
    throw new ConfigError(`${path}: expected a duration in seconds`);
  return n;
}

function int(v: unknown, def: number, path: string, min = 0): number {
  if (v === undefined) return def;
  const n = typeof v === 'bigint' ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < min)
    throw new ConfigError(`${path}: expected an integer ≥ ${min}`);
  return n;
}

function u64(v: unknown, def: bigint, path: string): bigint {
  if (v === undefined) return def;
  const b =
    typeof v === 'bigint' ? v : typeof v === 'number' && Number.isSafeInteger(v) ? BigInt(v) : undefined;
  if (b === undefined || b < 0n || b > 0xffffffffffffffffn)
    throw new ConfigError(`${path}: expected an unsigned 64-bit integer`);
  return b;
}

function bool(v: unknown, def: boolean, path: string): boolean {
  if (v === undefined) return def;
  if (typeof v !== 'boolean') throw new ConfigError(`${path}: expected true or false`);
  return v;
}

/**
 * `storage.backend.read_only`: only false. The node keeps its block tree in memory, read once from
 * storage at start, and stores every block it imports or produces: a read-only node would neither follow
 * the writer's new blocks nor run, so the setting is refused rather than accepted and ignored.
 */
function notReadOnly(v: unknown): false {
  if (bool(v, false, 'storage.backend.read_only'))
    throw new ConfigError(
      'storage.backend.read_only: true is not supported: this node has no read-only mode (it stores every ' +
        "block it imports or produces, and a read-only copy would not follow another node's new blocks); " +
        'set it to false or remove it',
    );
  return false;
}

function str(v: unknown, def: string, path: string): string {
  if (v === undefined) return def;
  if (typeof v !== 'string') throw new ConfigError(`${path}: expected a string`);
  return v;
}

function hex64(raw: unknown, path: string): string {
  // An all-digit hex string reads as a YAML integer; its digits are the hex text (zero-padded).
  const v =
    typeof raw === 'bigint' && raw >= 0n && raw.toString().length <= 64
      ? raw.toString().padStart(64, '0')
      : raw;
  if (typeof v !== 'string' || !/^[0-9a-fA-F]{64}$/.test(v))
    throw new ConfigError(`${path}: expected 64 hex characters`);
  return v.toLowerCase();
}

/** Key layout of the sections read later: `true` = any value below this key. */
type Layout = { readonly [key: string]: true | Layout };
const LATER: Readonly<Record<string, Layout>> = {
  network: {
    backend: {
      swarm: {
        host: true,
        port: true,
        node_key: true,
        gossipsub: true,
        kademlia: true,
        identify: true,
        chain_sync: true,
        nat: true,
      },
      initial_peers: true,
    },
  },
  blend: {
    non_ephemeral_signing_key_id: true,
    core: {
      backend: {
        listening_address: true,
        max_dial_attempts_per_peer: true,
        peering_degree_check_interval: true,
      },
      zk: { secret_key_kms_id: true },
    },
    edge: { backend: { max_dial_attempts_per_peer_per_message: true, replication_factor: true } },
    abstain_on_failure: true,
  },
  time: {
    backend: { server: true, client: { timeout: true, listening_interface: true }, update_interval: true },
  },
  sdp: {
    declaration_id: true,
    wallet: { max_tx_fee: true, funding_pk: true },
    active_message_tracker: { status_check_interval_in_tip_changes: true },
  },
  pow: {
    mining: { max_threads: true, max_tickets_per_block: true },
    auto_claim: { targets: true, tick: true },
  },
};

function checkLayout(v: unknown, layout: Layout, path: string): void {
  const o = mapping(v, path);
  only(o, Object.keys(layout), path);
  for (const [k, sub] of Object.entries(layout)) {
    if (sub !== true && o[k] !== undefined && o[k] !== null) checkLayout(o[k], sub, `${path}.${k}`);
  }
}

const TOP = [
  'network',
  'blend',
  'cryptarchia',
  'time',
  'sdp',
  'api',
  'storage',
  'kms',
  'wallet',
  'tracing',
  'state',
  'pow',
];

/** Reads the `!Zk <hex>` and `!Ed25519 <hex>` tags of the reference keystore. */
const keyTags = [
  { tag: '!Zk', resolve: (s: string) => ({ __key: 'Zk', secret: s }) },
  { tag: '!Ed25519', resolve: (s: string) => ({ __key: 'Ed25519', secret: s }) },
];

export function parseUserConfig(text: string, source = 'user_config.yaml'): UserConfig {
  let doc: unknown;
  try {
    doc = parse(text, { intAsBigInt: true, customTags: keyTags });
  } catch (e) {
    throw new ConfigError(`${source}: not valid YAML: ${(e as Error).message}`);
  }
  const root = mapping(doc, source);
  only(root, TOP, '');
  for (const [k, layout] of Object.entries(LATER)) checkLayout(root[k], layout, k);
  const D = DEFAULT_CONFIG;

  const api = mapping(root.api, 'api');
  only(api, ['backend'], 'api');
  const ab = mapping(api.backend, 'api.backend');
  only(
    ab,
    ['listen_address', 'cors_origins', 'timeout', 'max_body_size', 'max_concurrent_requests'],
    'api.backend',
  );
  const listen = str(ab.listen_address, D.api.backend.listen_address, 'api.backend.listen_address');
  if (!/^[^:\s]+:\d{1,5}$/.test(listen) && !/^\[[0-9a-fA-F:]+\]:\d{1,5}$/.test(listen)) {
    throw new ConfigError('api.backend.listen_address: expected host:port');
  }
  const cors = ab.cors_origins === undefined ? [] : ab.cors_origins;
  if (!Array.isArray(cors) || cors.some((c) => typeof c !== 'string'))
    throw new ConfigError('api.backend.cors_origins: expected a list of strings');

  const state = mapping(root.state, 'state');
  only(state, ['base_folder'], 'state');
  const storage = mapping(root.storage, 'storage');
  only(storage, ['backend'], 'storage');
  const sb = mapping(storage.backend, 'storage.backend');
  only(sb, ['folder_name', 'read_only', 'column_family'], 'storage.backend');

  const cr = mapping(root.cryptarchia, 'cryptarchia');
  only(cr, ['service', 'network', 'leader'], 'cryptarchia');
  const svc = mapping(cr.service, 'cryptarchia.service');
  only(svc, ['bootstrap', 'sync'], 'cryptarchia.service');
  const bs = mapping(svc.bootstrap, 'cryptarchia.service.bootstrap');
  only(
    bs,
    ['prolonged_bootstrap_period', 'force_bootstrap', 'offline_grace_period'],
    'cryptarchia.service.bootstrap',
  );
  const og = mapping(bs.offline_grace_period, 'cryptarchia.service.bootstrap.offline_grace_period');
  only(
    og,
    ['grace_period', 'state_recording_interval'],
    'cryptarchia.service.bootstrap.offline_grace_period',
  );
  mapping(cr.network, 'cryptarchia.network');
  const leader = mapping(cr.leader, 'cryptarchia.leader');
  only(leader, ['wallet'], 'cryptarchia.leader');
  const lw = mapping(leader.wallet, 'cryptarchia.leader.wallet');
  only(lw, ['max_tx_fee', 'funding_pk'], 'cryptarchia.leader.wallet');

  const wallet = mapping(root.wallet, 'wallet');
  only(wallet, ['known_keys', 'voucher_master_key_id', 'pending_note_expiry_blocks'], 'wallet');
  const kk = mapping(wallet.known_keys, 'wallet.known_keys');
  const known: Record<string, string> = {};
  for (const [id, pk] of Object.entries(kk))
    known[hex64(id, `wallet.known_keys.${id}`)] = hex64(pk, `wallet.known_keys.${id}`);

  const kms = mapping(root.kms, 'kms');
  only(kms, ['backend'], 'kms');
  const kb = mapping(kms.backend, 'kms.backend');
  only(kb, ['keys'], 'kms.backend');
  const keys: Record<string, { kind: 'Zk' | 'Ed25519'; secret: string }> = {};
  for (const [id, v] of Object.entries(mapping(kb.keys, 'kms.backend.keys'))) {
    const path = `kms.backend.keys.${id}`;
    if (!isObj(v) || (v.__key !== 'Zk' && v.__key !== 'Ed25519'))
      throw new ConfigError(`${path}: expected !Zk <hex> or !Ed25519 <hex>`);
    keys[hex64(id, path)] = { kind: v.__key, secret: hex64(v.secret, path) };
  }

  const tracing = mapping(root.tracing, 'tracing');
  only(tracing, ['logger', 'tracing', 'filter', 'metrics', 'console', 'level'], 'tracing');
  const level = str(tracing.level, D.tracing.level, 'tracing.level').toUpperCase();
  if (!['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR'].includes(level))
    throw new ConfigError('tracing.level: expected TRACE, DEBUG, INFO, WARN or ERROR');

  const funding = lw.funding_pk;
  return {
    api: {
      backend: {
        listen_address: listen,
        cors_origins: cors as string[],
        timeout: seconds(ab.timeout, D.api.backend.timeout, 'api.backend.timeout'),
        max_body_size: int(ab.max_body_size, D.api.backend.max_body_size, 'api.backend.max_body_size', 1),
        max_concurrent_requests: int(
          ab.max_concurrent_requests,
          D.api.backend.max_concurrent_requests,
          'api.backend.max_concurrent_requests',
          1,
        ),
      },
    },
    state: { base_folder: str(state.base_folder, D.state.base_folder, 'state.base_folder') },
    storage: {
      backend: {
        folder_name: str(sb.folder_name, D.storage.backend.folder_name, 'storage.backend.folder_name'),
        read_only: notReadOnly(sb.read_only),
      },
    },
    cryptarchia: {
      service: {
        bootstrap: {
          prolonged_bootstrap_period: seconds(
            bs.prolonged_bootstrap_period,
            3600,
            'cryptarchia.service.bootstrap.prolonged_bootstrap_period',
          ),
          force_bootstrap: bool(bs.force_bootstrap, false, 'cryptarchia.service.bootstrap.force_bootstrap'),
          offline_grace_period: {
            grace_period: seconds(
              og.grace_period,
              1200,
              'cryptarchia.service.bootstrap.offline_grace_period.grace_period',
            ),
            state_recording_interval: seconds(
              og.state_recording_interval,
              60,
              'cryptarchia.service.bootstrap.offline_grace_period.state_recording_interval',
            ),
          },
        },
      },
      leader: {
        wallet: {
          max_tx_fee: u64(lw.max_tx_fee, 0xffffffffffffffffn, 'cryptarchia.leader.wallet.max_tx_fee'),
          funding_pk:
            funding === undefined || funding === null
              ? null
              : hex64(funding, 'cryptarchia.leader.wallet.funding_pk'),
        },
      },
    },
    wallet: {
      known_keys: known,
      voucher_master_key_id:
        wallet.voucher_master_key_id == null
          ? null
          : hex64(wallet.voucher_master_key_id, 'wallet.voucher_master_key_id'),
      pending_note_expiry_blocks: int(
        wallet.pending_note_expiry_blocks,
        10,
        'wallet.pending_note_expiry_blocks',
      ),
    },
    kms: { backend: { keys } },
    tracing: { level },
  };
}
