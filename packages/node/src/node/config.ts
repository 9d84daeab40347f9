/**
 * `user_config.yaml`: the node operator's configuration, in the reference node's key layout.
 * Strict: an unknown key or a value of the wrong type is an error naming the key. Missing keys take
 * the reference defaults. Durations are seconds, as numbers or strings such as '3600.000000000'.
 *
 * Sections of services this node does not run yet (blend, time, sdp, and the sync and
 * network parts of cryptarchia) are checked for their key layout (unknown keys are refused) so that a
 * reference configuration loads and a typo is caught; their addresses (hosts, ports, multiaddrs) are
 * checked too, so that a bad one stops the node before it touches its storage. Their other values are
 * read when the services they configure exist. The field readers are in `@logos-ts/shared/config-fields`.
 *
 * This file composes the sections: each service parses its own in its `config.ts` (`api/`, `chain/` for
 * `cryptarchia`, `storage/` for `state` and `storage`, `wallet/` for `wallet` and `kms`, `mempool/` for
 * `mempool`, `ops/` for `sdp` and the key ids of `blend`, a section of this node's own, `network/` for
 * `network`, `pow/` for `pow`, `zk/` for `proofs`, a section of this node's own, `metrics/` for
 * `metrics`, another).
 */

import {
  ConfigError,
  checkLayout,
  host,
  type Layout,
  listenAddress,
  mapping,
  multiaddr,
  type Obj,
  only,
  str,
} from '@logos-ts/shared/config-fields';
import { parseDocument } from 'yaml';
import { type ApiBackendConfig, DEFAULT_API_BACKEND, parseApiSection } from '../api/config.ts';
import { type BlendSection, DEFAULT_BLEND, parseBlendSection } from '../blend/index.ts';
import { type CryptarchiaSection, DEFAULT_CRYPTARCHIA, parseCryptarchiaSection } from '../chain/index.ts';
import { DEFAULT_KMS, type KmsSection, parseKmsSection } from '../kms/index.ts';
import { DEFAULT_MEMPOOL, type MempoolSection, parseMempoolSection } from '../mempool/index.ts';
import { DEFAULT_METRICS, type MetricsSection, parseMetricsSection } from '../metrics/index.ts';
import { DEFAULT_NETWORK, type NetworkSection, parseNetworkSection } from '../network/index.ts';
import { DEFAULT_SDP, parseSdpSection, type SdpSection } from '../ops/index.ts';
import { checkTargetsTracked, DEFAULT_POW, type PowSection, parsePowSection } from '../pow/index.ts';
import {
  DEFAULT_STATE,
  DEFAULT_STORAGE,
  parseStateSection,
  parseStorageSection,
  type StateSection,
  type StorageSection,
} from '../storage/config.ts';
import { DEFAULT_SYNC, parseSyncConfig, type SyncConfig } from '../sync/index.ts';
import { DEFAULT_WALLET, parseWalletSection, type WalletSection } from '../wallet/index.ts';
import { DEFAULT_PROOFS, type ProofsSection, parseProofsSection } from '../zk/index.ts';

export { ConfigError } from '@logos-ts/shared/config-fields';
export interface UserConfig {
  readonly api: { readonly backend: ApiBackendConfig };
  readonly state: StateSection;
  readonly storage: StorageSection;
  readonly cryptarchia: CryptarchiaSection;
  /** Chain sync's settings, read from `cryptarchia.network` and `cryptarchia.service.sync`. */
  readonly sync: SyncConfig;
  readonly wallet: WalletSection;
  readonly kms: KmsSection;
  readonly mempool: MempoolSection;
  readonly sdp: SdpSection;
  readonly blend: BlendSection;
  readonly network: NetworkSection;
  readonly pow: PowSection;
  readonly proofs: ProofsSection;
  /** The Prometheus endpoint (this node's own section). */
  readonly metrics: MetricsSection;
  readonly tracing: { readonly level: string };
}

export const DEFAULT_CONFIG: UserConfig = {
  api: { backend: DEFAULT_API_BACKEND },
  state: DEFAULT_STATE,
  storage: DEFAULT_STORAGE,
  cryptarchia: DEFAULT_CRYPTARCHIA,
  sync: DEFAULT_SYNC,
  wallet: DEFAULT_WALLET,
  kms: DEFAULT_KMS,
  mempool: DEFAULT_MEMPOOL,
  sdp: DEFAULT_SDP,
  blend: DEFAULT_BLEND,
  network: DEFAULT_NETWORK,
  pow: DEFAULT_POW,
  proofs: DEFAULT_PROOFS,
  metrics: DEFAULT_METRICS,
  tracing: { level: 'INFO' },
};

/** Key layout of the sections read later. */
const LATER: Readonly<Record<string, Layout>> = {
  blend: {
    non_ephemeral_signing_key_id: true,
    core: {
      backend: {
        listening_address: true,
        core_peering_degree: { start: true, end: true },
        edge_node_connection_timeout: true,
        max_edge_node_incoming_connections: true,
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
  'mempool',
  'proofs',
  'metrics',
];

/** Reads the `!Zk <hex>` and `!Ed25519 <hex>` tags of the reference keystore. */
export const keyTags = [
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

/** Checks the addresses of the sections read later, so that a bad one stops the node before it starts. */
function checkLaterAddresses(root: Obj): void {
  const blendCore = section(root, 'blend', 'core', 'backend');
  if (blendCore.listening_address !== undefined)
    multiaddr(blendCore.listening_address, 'blend.core.backend.listening_address');
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
  const api = parseApiSection(root.api);
  const state = parseStateSection(root.state);
  const storage = parseStorageSection(root.storage);
  const cryptarchia = parseCryptarchiaSection(root.cryptarchia);
  const sync = parseSyncConfig(root.cryptarchia, section(root, 'network', 'backend', 'swarm').chain_sync);
  const wallet = parseWalletSection(root.wallet);
  const kms = parseKmsSection(root.kms);
  const mempool = parseMempoolSection(root.mempool);
  const sdp = parseSdpSection(root.sdp);
  const blend = parseBlendSection(root.blend);
  const network = parseNetworkSection(root.network);
  const pow = parsePowSection(root.pow);
  const proofs = parseProofsSection(root.proofs);
  const metrics = parseMetricsSection(root.metrics);
  // Before anything starts: a target the wallet does not track stops the node.
  checkTargetsTracked(pow, Object.values(wallet.known_keys));

  const tracing = mapping(root.tracing, 'tracing');
  checkLayout(tracing, TRACING, 'tracing');
  const level = str(tracing.level, D.tracing.level, 'tracing.level').toUpperCase();
  if (!['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR'].includes(level))
    throw new ConfigError('tracing.level: expected TRACE, DEBUG, INFO, WARN or ERROR');

  return {
    api,
    state,
    storage,
    cryptarchia,
    sync,
    wallet,
    kms,
    mempool,
    sdp,
    blend,
    network,
    pow,
    proofs,
    metrics,
    tracing: { level },
  };
}
