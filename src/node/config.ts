/**
 * `user_config.yaml`: the node operator's configuration, in the reference node's key layout.
 * Strict: an unknown key or a value of the wrong type is an error naming the key. Missing keys take
 * the reference defaults. Durations are seconds, as numbers or strings such as '3600.000000000'.
 *
 * Sections of services this node does not run yet (network, blend, time, sdp, pow, and the sync and
 * network parts of cryptarchia) are checked for their key layout (unknown keys are refused) so that a
 * reference configuration loads and a typo is caught; their addresses (hosts, ports, multiaddrs) are
 * checked too, so that a bad one stops the node before it touches its storage. Their other values are
 * read when the services they configure exist. The field readers are in src/util/config-fields.ts.
 */
import { parseDocument } from 'yaml';
import {
  bool,
  ConfigError,
  checkLayout,
  hex64,
  host,
  int,
  isObj,
  type Layout,
  listenAddress,
  mapping,
  multiaddr,
  type Obj,
  only,
  port,
  seconds,
  str,
  u64,
} from '../util/config-fields.ts';

export { ConfigError } from '../util/config-fields.ts';
export interface UserConfig {
  readonly api: {
    readonly backend: {
      readonly listen_address: string;
      readonly cors_origins: readonly string[];
      /** Not in the reference: extra `Host` names the API answers for (see src/api/guard.ts). */
      readonly allowed_hosts: readonly string[];
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
      allowed_hosts: [],
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

/** Key layout of the sections read later. */
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

/** `cryptarchia.network`: the chain's network settings (IBD, orphans, tip polling), read by sync. */
const CRYPTARCHIA_NETWORK: Layout = {
  bootstrap: {
    ibd: {
      peers: true,
      delay_before_new_download: true,
      tips_fetch_max_attempts: true,
      tips_fetch_min_delay: true,
      tips_fetch_max_delay: true,
      round_delay: true,
    },
  },
  sync: {
    orphan: { max_orphan_cache_size: true, max_rejected_cache_size: true },
    tip_poll: { enabled: true, lag_threshold_blocks: true, max_peers_to_sample: true },
  },
  network: { max_connected_peers_to_try_download: true, max_discovered_peers_to_try_download: true },
};

/** `tracing`: only `level` is read; the other keys are the reference's log sinks and filters. */
const TRACING: Layout = {
  logger: { file: true, loki: true, gelf: true, otlp: true, stdout: true, stderr: true },
  tracing: true,
  filter: true,
  metrics: true,
  console: true,
  level: true,
};

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

/** Where a YAML problem is, without the text around it (the line may hold a secret key). */
function yamlError(
  source: string,
  e: { message: string; code?: string; linePos?: { line: number; col: number }[] },
): ConfigError {
  const what = e.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
  const at = e.linePos?.[0];
  return new ConfigError(
    `${source}: not valid YAML${at ? ` at line ${at.line}, column ${at.col}` : ''}: ${what}`,
  );
}

/** The mapping at `keys` below `root` (empty when absent). */
function section(root: Obj, ...keys: string[]): Obj {
  let o = root;
  for (let i = 0; i < keys.length; i++) o = mapping(o[keys[i]!], keys.slice(0, i + 1).join('.'));
  return o;
}

function multiaddrList(v: unknown, path: string): void {
  if (v === undefined || v === null) return;
  if (!Array.isArray(v)) throw new ConfigError(`${path}: expected a list of multiaddrs`);
  for (const [i, a] of v.entries()) multiaddr(a, `${path}[${i}]`);
}

/** Checks the addresses of the sections read later, so that a bad one stops the node before it starts. */
function checkLaterAddresses(root: Obj): void {
  const swarm = section(root, 'network', 'backend', 'swarm');
  if (swarm.host !== undefined) host(swarm.host, 'network.backend.swarm.host');
  if (swarm.port !== undefined) port(swarm.port, 'network.backend.swarm.port');
  multiaddrList(section(root, 'network', 'backend').initial_peers, 'network.backend.initial_peers');
  const blendCore = section(root, 'blend', 'core', 'backend');
  if (blendCore.listening_address !== undefined)
    multiaddr(blendCore.listening_address, 'blend.core.backend.listening_address');
  multiaddrList(
    section(root, 'cryptarchia', 'network', 'bootstrap', 'ibd').peers,
    'cryptarchia.network.bootstrap.ibd.peers',
  );
  const tb = section(root, 'time', 'backend');
  if (tb.server !== undefined) listenAddress(tb.server, '', 'time.backend.server');
  const client = section(root, 'time', 'backend', 'client');
  if (client.listening_interface !== undefined)
    host(client.listening_interface, 'time.backend.client.listening_interface');
}

/**
 * Parses and checks `user_config.yaml`. Every error is a `ConfigError` naming the key (or, for YAML
 * syntax, the line and column); no error message quotes the file's text, which holds secret keys.
 */
export function parseUserConfig(text: string, source = 'user_config.yaml'): UserConfig {
  let doc: unknown;
  try {
    // Silent: the YAML library's warnings quote the surrounding lines.
    const parsed = parseDocument(text, { intAsBigInt: true, customTags: keyTags, logLevel: 'silent' });
    const err = parsed.errors[0];
    if (err !== undefined) throw yamlError(source, err);
    doc = parsed.toJS();
  } catch (e) {
    if (e instanceof ConfigError) throw e;
    throw yamlError(source, e as Error);
  }
  const root = mapping(doc, source);
  only(root, TOP, '');
  for (const [k, layout] of Object.entries(LATER)) checkLayout(root[k], layout, k);
  checkLaterAddresses(root);
  const D = DEFAULT_CONFIG;

  const api = mapping(root.api, 'api');
  only(api, ['backend'], 'api');
  const ab = mapping(api.backend, 'api.backend');
  only(
    ab,
    [
      'listen_address',
      'cors_origins',
      'allowed_hosts',
      'timeout',
      'max_body_size',
      'max_concurrent_requests',
    ],
    'api.backend',
  );
  const listen = listenAddress(ab.listen_address, D.api.backend.listen_address, 'api.backend.listen_address');
  const cors = ab.cors_origins === undefined ? [] : ab.cors_origins;
  if (!Array.isArray(cors) || cors.some((c) => typeof c !== 'string'))
    throw new ConfigError('api.backend.cors_origins: expected a list of strings');
  const hosts = ab.allowed_hosts === undefined ? [] : ab.allowed_hosts;
  if (
    !Array.isArray(hosts) ||
    hosts.some((h) => typeof h !== 'string' || !/^([A-Za-z0-9.-]+|\[[0-9a-fA-F:.]+\])(:\d{1,5})?$/.test(h))
  )
    throw new ConfigError(
      'api.backend.allowed_hosts: expected a list of host names or host:port ([v6] in brackets)',
    );

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
  checkLayout(svc.sync, { block_provider: { batch_size: true } }, 'cryptarchia.service.sync');
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
  checkLayout(cr.network, CRYPTARCHIA_NETWORK, 'cryptarchia.network');
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
  checkLayout(tracing, TRACING, 'tracing');
  const level = str(tracing.level, D.tracing.level, 'tracing.level').toUpperCase();
  if (!['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR'].includes(level))
    throw new ConfigError('tracing.level: expected TRACE, DEBUG, INFO, WARN or ERROR');

  const funding = lw.funding_pk;
  return {
    api: {
      backend: {
        listen_address: listen,
        cors_origins: cors as string[],
        allowed_hosts: hosts as string[],
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
