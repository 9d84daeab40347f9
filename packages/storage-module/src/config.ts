/**
 * The storage module's `init` configuration (operator.md §3.3 keys and documented defaults, §3.4 Mix
 * options): a JSON object whose keys overwrite the defaults. Every key is checked for its type and
 * range; an unknown key is refused (inferred: the reference's confutils-based parser refuses unknown
 * options too), except `config-version`, which the reference module strips before the node reads
 * the config. `data-dir` resolves against the daemon's working directory; `net-privkey` against
 * `data-dir`; `mix-pool` is a file read at `init`. SPRs (`bootstrap-node`, `dht-mix-proxy`) are decoded
 * and verified here, so a bad one fails `init` and changes nothing.
 */
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { isAbsolute, resolve } from 'node:path';
import { bool, ConfigError, int, ip, mapping, only, str, strings } from '@logos-ts/shared/config-fields';
import { multiaddr } from '@multiformats/multiaddr';
import { PRESET_BOOTSTRAP } from './presets.ts';
import { type DecodedSpr, decodeSpr } from './spr.ts';

export const LOG_LEVELS = ['TRACE', 'DEBUG', 'INFO', 'NOTICE', 'WARN', 'ERROR', 'FATAL'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface MixRelay {
  readonly peerId: string;
  readonly mixPubKey: string;
  readonly libp2pPubKey: string;
  readonly multiAddr: string;
}

export interface StorageConfig {
  readonly logLevel: LogLevel;
  readonly logFormat: string;
  readonly metrics: boolean;
  readonly metricsAddress: string;
  readonly metricsPort: number;
  /** Absolute. */
  readonly dataDir: string;
  readonly listenIp: string;
  readonly listenPort: number;
  readonly nat: string;
  readonly discPort: number;
  /** Absolute path of the node key file. */
  readonly netPrivkey: string;
  /** Decoded bootstrap records: the explicit list, else the network preset's, none with `no-bootstrap-node`. */
  readonly bootstrapNodes: readonly DecodedSpr[];
  readonly network: string;
  readonly dhtMixProxy: readonly DecodedSpr[];
  readonly mixEnabled: boolean;
  readonly mixPool: readonly MixRelay[];
  readonly maxPeers: number;
  readonly numThreads: number;
  readonly agentString: string;
  readonly repoKind: string;
  readonly storageQuota: number;
  readonly blockTtlMs: number;
  readonly blockMaintenanceIntervalMs: number;
  readonly blockMaintenanceBatch: number;
  readonly blockRetries: number;
  readonly logFile: string;
}

/**
 * The documented defaults (operator.md §3.3; the reference's `log-file` default is a per-process name
 * in the temp folder).
 * inferred: `log-file`, `log-format`, `num-threads` and `block-retries` are checked but have no effect
 * here: the module logs through the daemon's log, runs on Node's event loop, and a fetch waits for
 * peers for its fixed 30 s instead of counting retries.
 */
export const DEFAULTS = {
  'log-level': 'info',
  'log-format': 'auto',
  metrics: false,
  'metrics-address': '127.0.0.1',
  'metrics-port': 8008,
  'data-dir': '.cache/storage',
  'listen-ip': '0.0.0.0',
  'listen-port': 0,
  nat: 'any',
  'disc-port': 8090,
  'net-privkey': 'key',
  'bootstrap-node': [] as string[],
  'no-bootstrap-node': false,
  network: 'logos.test',
  'dht-mix-proxy': [] as string[],
  'mix-enabled': false,
  'mix-pool': '',
  'mix-pool-json': '',
  'max-peers': 160,
  'num-threads': 0,
  'agent-string': 'Logos Storage',
  'repo-kind': 'fs',
  'storage-quota': 21474836480,
  'block-ttl': '30d',
  'block-mi': '10m',
  'block-mn': 1000,
  'block-retries': 300,
  'log-file': '',
} as const;

const KNOWN = [...Object.keys(DEFAULTS), 'config-version'];

/** A refusal of the `init` configuration: `Invalid configuration: <why>`. */
const invalid = (why: string) => new ConfigError(`Invalid configuration: ${why}`);
const message = (why: string) => ({ message: `Invalid configuration: ${why}` });

type Raw = Record<string, unknown>;
type Key = keyof typeof DEFAULTS;
type KeyOf<T> = { [K in Key]: (typeof DEFAULTS)[K] extends T ? K : never }[Key];

// A key given as null reads as absent (its default), as the reference's config loader treats it.
const textField = (raw: Raw, key: KeyOf<string>): string =>
  str(raw[key] ?? undefined, DEFAULTS[key], key, message(`"${key}" must be a string`));
const boolField = (raw: Raw, key: KeyOf<boolean>): boolean =>
  bool(raw[key] ?? undefined, DEFAULTS[key], key, message(`"${key}" must be true or false`));
const intField = (raw: Raw, key: KeyOf<number>, min: number, max: number): number =>
  int(raw[key] ?? undefined, DEFAULTS[key], key, min, {
    max,
    ...message(`"${key}" must be an integer from ${min} to ${max}`),
  });
const portField = (raw: Raw, key: KeyOf<number>): number => intField(raw, key, 0, 65535);
const stringsField = (raw: Raw, key: KeyOf<readonly string[]>): string[] =>
  strings(raw[key] ?? undefined, DEFAULTS[key], key, message(`"${key}" must be an array of strings`));

const UNITS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };
/** A duration as the reference writes them (`30d`, `10m`, `90s`, `1h30m`), in milliseconds. */
export function parseDuration(text: string, key: string): number {
  const re = /(\d+)\s*([smhdw])/gy;
  let total = 0;
  let matched = 0;
  for (const m of text.trim().matchAll(re)) {
    total += Number(m[1]) * UNITS[m[2]!]!;
    matched += m[0].length;
  }
  if (matched === 0 || matched !== text.trim().length || total <= 0)
    throw invalid(`"${key}" must be a duration such as "30d", "10m" or "90s"`);
  return total;
}

const HEX = (n: number) => new RegExp(`^[0-9a-fA-F]{${n}}$`);

/** Checks a Mix pool (`{"version":1,"relays":[{peerId,mixPubKey,libp2pPubKey,multiAddr}]}`). */
export function parseMixPool(text: string, source: string): MixRelay[] {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw invalid(`${source} is not valid JSON: ${(e as Error).message}`);
  }
  const pool = v as { version?: unknown; relays?: unknown };
  if (pool === null || typeof pool !== 'object' || Array.isArray(pool))
    throw invalid(`${source} must be a JSON object with "version" and "relays"`);
  if (pool.version !== 1) throw invalid(`${source}: "version" must be 1`);
  if (!Array.isArray(pool.relays)) throw invalid(`${source}: "relays" must be an array`);
  return pool.relays.map((r: unknown, i: number) => {
    const relay = r as Record<string, unknown>;
    const at = `${source}: relay ${i}`;
    if (relay === null || typeof relay !== 'object') throw invalid(`${at} must be an object`);
    const { peerId, mixPubKey, libp2pPubKey, multiAddr } = relay;
    if (typeof peerId !== 'string' || !/^16Uiu2[1-9A-HJ-NP-Za-km-z]+$/.test(peerId))
      throw invalid(`${at}: "peerId" must be a secp256k1 peer id (16Uiu2…)`);
    if (typeof mixPubKey !== 'string' || !HEX(64).test(mixPubKey))
      throw invalid(`${at}: "mixPubKey" must be 64 hex characters`);
    if (typeof libp2pPubKey !== 'string' || !HEX(66).test(libp2pPubKey))
      throw invalid(`${at}: "libp2pPubKey" must be 66 hex characters (a compressed secp256k1 key)`);
    if (typeof multiAddr !== 'string') throw invalid(`${at}: "multiAddr" must be a string`);
    try {
      multiaddr(multiAddr);
    } catch {
      throw invalid(`${at}: "multiAddr" is not a multiaddr: ${multiAddr}`);
    }
    return { peerId, mixPubKey, libp2pPubKey, multiAddr };
  });
}

async function sprs(list: readonly string[], key: string): Promise<DecodedSpr[]> {
  const out: DecodedSpr[] = [];
  for (const [i, s] of list.entries()) {
    try {
      out.push(await decodeSpr(s));
    } catch (e) {
      throw invalid(`"${key}" entry ${i}: ${(e as Error).message}`);
    }
  }
  return out;
}

/** Parses the `init` JSON text; `cwd` is the daemon's working directory. Throws `ConfigError`. */
export async function parseConfig(text: string, cwd: string): Promise<StorageConfig> {
  let parsed: unknown;
  try {
    parsed = text.trim() === '' ? {} : JSON.parse(text);
  } catch (e) {
    throw invalid(`not valid JSON: ${(e as Error).message}`);
  }
  const raw = mapping(parsed, '', { required: true, ...message('expected a JSON object') });
  only(raw, KNOWN, '', { message: (unknown) => `Invalid configuration: unknown key "${unknown[0]}"` });

  const level = textField(raw, 'log-level').toUpperCase();
  if (!(LOG_LEVELS as readonly string[]).includes(level))
    throw invalid(`"log-level" must be one of ${LOG_LEVELS.join(', ')}`);
  const logFormat = textField(raw, 'log-format').toLowerCase();
  if (!['auto', 'colors', 'nocolors', 'json', 'none'].includes(logFormat))
    throw invalid('"log-format" must be auto, colors, nocolors, json or none');
  const listenIp = ip(
    textField(raw, 'listen-ip'),
    DEFAULTS['listen-ip'],
    'listen-ip',
    message('"listen-ip" must be an IPv4 or IPv6 address'),
  );
  // inferred: this node serves no metrics endpoint, so asking for one is refused, not ignored
  if (boolField(raw, 'metrics'))
    throw invalid('"metrics" is not supported by this node (no metrics endpoint)');
  const metricsAddress = ip(
    textField(raw, 'metrics-address'),
    DEFAULTS['metrics-address'],
    'metrics-address',
    message('"metrics-address" must be an IP address'),
  );
  const nat = textField(raw, 'nat');
  // inferred: no port mapping is done here: `any`/`auto`/`none` listen as given, `extip:` announces
  // that IP; `upnp` and `pmp` are refused rather than accepted and ignored
  if (!['any', 'none', 'auto'].includes(nat.toLowerCase())) {
    if (['upnp', 'pmp'].includes(nat.toLowerCase()))
      throw invalid(`"nat" ${nat} (port mapping) is not supported by this node; use any, none or extip:<IP>`);
    if (!nat.startsWith('extip:') || isIP(nat.slice(6)) === 0)
      throw invalid('"nat" must be any, none or extip:<IP>');
  }
  const dataDirText = textField(raw, 'data-dir');
  if (dataDirText === '') throw invalid('"data-dir" must not be empty');
  const dataDir = resolve(cwd, dataDirText);
  const keyText = textField(raw, 'net-privkey');
  if (keyText === '') throw invalid('"net-privkey" must not be empty');
  const netPrivkey = isAbsolute(keyText) ? keyText : resolve(dataDir, keyText);
  const network = textField(raw, 'network');
  // inferred: a network without a preset is refused, as the reference's preset table has only these
  if (PRESET_BOOTSTRAP[network] === undefined)
    throw invalid(`"network" must be one of ${Object.keys(PRESET_BOOTSTRAP).join(', ')}`);
  const repoKind = textField(raw, 'repo-kind');
  if (!['fs', 'sqlite', 'leveldb'].includes(repoKind))
    throw invalid('"repo-kind" must be fs, sqlite or leveldb');
  // inferred: only the file-system repository is built here; the others are refused, not faked
  if (repoKind !== 'fs') throw invalid(`"repo-kind" ${repoKind} is not supported by this node (use "fs")`);

  const noBootstrap = boolField(raw, 'no-bootstrap-node');
  const explicit = stringsField(raw, 'bootstrap-node');
  const bootstrapTexts = noBootstrap
    ? []
    : explicit.length > 0
      ? explicit
      : (PRESET_BOOTSTRAP[network] ?? []);
  const bootstrapNodes = await sprs(bootstrapTexts, 'bootstrap-node');
  const dhtMixProxy = await sprs(stringsField(raw, 'dht-mix-proxy'), 'dht-mix-proxy');

  const poolPath = textField(raw, 'mix-pool');
  const poolJson = textField(raw, 'mix-pool-json');
  if (poolPath !== '' && poolJson !== '') throw invalid('give "mix-pool" or "mix-pool-json", not both');
  let mixPool: MixRelay[] = [];
  if (poolJson !== '') mixPool = parseMixPool(poolJson, '"mix-pool-json"');
  else if (poolPath !== '') {
    let text: string;
    try {
      text = readFileSync(resolve(cwd, poolPath), 'utf8');
    } catch (e) {
      throw invalid(`"mix-pool" cannot be read: ${(e as Error).message}`);
    }
    mixPool = parseMixPool(text, `"mix-pool" (${poolPath})`);
  }

  return {
    logLevel: level as LogLevel,
    logFormat,
    metrics: boolField(raw, 'metrics'),
    metricsAddress,
    metricsPort: portField(raw, 'metrics-port'),
    dataDir,
    listenIp,
    listenPort: portField(raw, 'listen-port'),
    nat,
    discPort: portField(raw, 'disc-port'),
    netPrivkey,
    bootstrapNodes,
    network,
    dhtMixProxy,
    mixEnabled: boolField(raw, 'mix-enabled'),
    mixPool,
    maxPeers: intField(raw, 'max-peers', 1, 100_000),
    numThreads: intField(raw, 'num-threads', 0, 256),
    agentString: textField(raw, 'agent-string'),
    repoKind,
    storageQuota: intField(raw, 'storage-quota', 1, Number.MAX_SAFE_INTEGER),
    blockTtlMs: parseDuration(textField(raw, 'block-ttl'), 'block-ttl'),
    blockMaintenanceIntervalMs: parseDuration(textField(raw, 'block-mi'), 'block-mi'),
    blockMaintenanceBatch: intField(raw, 'block-mn', 1, 1_000_000),
    blockRetries: intField(raw, 'block-retries', 0, 1_000_000),
    logFile: textField(raw, 'log-file'),
  };
}
