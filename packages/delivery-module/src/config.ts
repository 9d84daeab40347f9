/**
 * The `createNode` configuration of the `delivery_module` (operator.md §4.1): the layered grammar
 * (`entryLayer` kernel|messaging|channels, `kernelConf` with `preset` and WakuNodeConf keys,
 * `messagingOverrides`, `channelsOverrides`, the app shape `{mode, preset}`) and the flat legacy shape
 * (any bare WakuNodeConf key at top level switches to it and boots the full stack). Keys match as the
 * reference's parser matches them: case-insensitive, and a CLI switch name (`cluster-id`) is the same key
 * as its field name (`clusterId`). Presets `logos.test` (cluster 2) and `logos.dev` (cluster 3), 8
 * autoshards, also spelled without the dot. Every error names the key; nothing is half-applied.
 */
import { isIP } from 'node:net';
import {
  ConfigError,
  ip,
  mapping,
  bool as readBool,
  int as readInt,
  strings as readStrings,
} from '@logos-ts/shared/config-fields';
import type { Json } from '@logos-ts/shared/json';
import { multiaddr } from '@multiformats/multiaddr';

export type EntryLayer = 'kernel' | 'messaging' | 'channels';
export type LogLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal';

/** The node settings `createNode` resolves. */
export interface DeliveryConfig {
  readonly entryLayer: EntryLayer;
  readonly preset: string | null;
  readonly clusterId: number;
  readonly numShardsInNetwork: number;
  readonly relay: boolean;
  readonly logLevel: LogLevel;
  readonly listenAddress: string;
  readonly tcpPort: number;
  readonly discv5UdpPort: number;
  readonly discv5Discovery: boolean;
  /** The announced IPv4 of `nat: extip:<ip>`, else null (`any`/`none`). */
  readonly extIp: string | null;
  readonly extMultiaddrs: readonly string[];
  /** `enr:` records and multiaddrs (with `/p2p/`) to bootstrap discovery and dials from. */
  readonly entryNodes: readonly string[];
  /** The secp256k1 secret (32 bytes hex), or null to use the key kept in the module's data folder. */
  readonly nodekey: string | null;
  readonly maxConnections: number;
  /** The largest WakuMessage accepted or sent, in bytes. */
  readonly maxMessageSize: number;
}

/** Both presets: 150 KiB messages (operator.md §4.1 preset table). */
export const MAX_MESSAGE_BYTES = 150 * 1024;

interface Preset {
  readonly clusterId: number;
  readonly numShardsInNetwork: number;
}
const PRESETS: Readonly<Record<string, Preset>> = {
  'logos.test': { clusterId: 2, numShardsInNetwork: 8 },
  'logos.dev': { clusterId: 3, numShardsInNetwork: 8 },
};
const PRESET_ALIASES: Readonly<Record<string, string>> = { logostest: 'logos.test', logosdev: 'logos.dev' };

/** The layered grammar's own top-level keys (normalised); any other top-level key means the flat shape. */
const LAYER_KEYS = new Set([
  'entrylayer',
  'mode',
  'preset',
  'kernelconf',
  'messagingoverrides',
  'channelsoverrides',
]);

/** `clusterId`, `cluster-id` and `cluster_id` are one key. */
export function normaliseKey(k: string): string {
  return k.toLowerCase().replace(/[-_]/g, '');
}

type Settings = {
  -readonly [K in keyof Omit<DeliveryConfig, 'entryLayer' | 'preset' | 'maxMessageSize'>]: DeliveryConfig[K];
};

/** nwaku's WakuNodeConf defaults for the keys this node reads (relay on, cluster 0, one shard). */
function defaults(): Settings {
  return {
    clusterId: 0,
    numShardsInNetwork: 1,
    relay: true,
    logLevel: 'info',
    listenAddress: '0.0.0.0',
    tcpPort: 60000,
    discv5UdpPort: 9000,
    discv5Discovery: false,
    extIp: null,
    extMultiaddrs: [],
    entryNodes: [],
    nodekey: null,
    maxConnections: 50,
  };
}

// The value readers of a present key (`v` is never absent here): digit text reads as a number and
// `"true"`/`"false"` as bools, as the reference's parser converts them.
const int = (key: string, v: Json, min: number, max: number): number =>
  readInt(v, min, key, min, {
    max,
    digits: true,
    message: `${key} must be an integer from ${min} to ${max}`,
  });
const bool = (key: string, v: Json): boolean =>
  readBool(v, false, key, { words: true, message: `${key} must be true or false` });
const strings = (key: string, v: Json): string[] =>
  readStrings(v, [], key, {
    single: true,
    trim: true,
    nonEmpty: true,
    message: `${key} must be an array of non-empty strings`,
  });

const LOG_LEVELS: Readonly<Record<string, LogLevel>> = {
  trace: 'trace',
  debug: 'debug',
  info: 'info',
  notice: 'info',
  warn: 'warn',
  error: 'error',
  fatal: 'fatal',
};

function entryNode(key: string, s: string): string {
  if (s.startsWith('enr:')) return s;
  if (s.startsWith('enrtree:'))
    throw new ConfigError(
      `${key}: DNS discovery (enrtree://) entry nodes are not supported; give enr: records or multiaddrs`,
    );
  let ma: ReturnType<typeof multiaddr>;
  try {
    ma = multiaddr(s);
  } catch {
    throw new ConfigError(`${key}: "${s}" is neither an enr: record nor a multiaddr`);
  }
  if (ma.getComponents().find((c) => c.name === 'p2p') === undefined)
    throw new ConfigError(`${key}: multiaddr "${s}" has no /p2p/<peer id>`);
  return s;
}

/**
 * One WakuNodeConf key applied to `s`. A key this node cannot serve is refused when it asks for a
 * service (`store: true`, `mix: true`…) and accepted when it only turns one off or tunes what is not
 * there; an unknown key is refused.
 */
function applyKey(s: Settings, rawKey: string, v: Json): void {
  const k = normaliseKey(rawKey);
  const off = (what: string) => {
    if (bool(rawKey, v)) throw new ConfigError(`${rawKey}: ${what} is not supported by this node`);
  };
  switch (k) {
    case 'clusterid':
      s.clusterId = int(rawKey, v, 0, 65535);
      return;
    case 'numshardsinnetwork':
      s.numShardsInNetwork = int(rawKey, v, 1, 1024);
      return;
    case 'relay':
      s.relay = bool(rawKey, v);
      return;
    case 'loglevel': {
      const level = typeof v === 'string' ? LOG_LEVELS[v.toLowerCase()] : undefined;
      if (level === undefined)
        throw new ConfigError(`${rawKey} must be one of TRACE, DEBUG, INFO, NOTICE, WARN, ERROR, FATAL`);
      s.logLevel = level;
      return;
    }
    case 'listenaddress':
      s.listenAddress = ip(v, s.listenAddress, rawKey, {
        family: 4,
        message: `${rawKey} must be an IPv4 address`,
      });
      return;
    case 'tcpport':
      s.tcpPort = int(rawKey, v, 0, 65535);
      return;
    case 'discv5udpport':
      s.discv5UdpPort = int(rawKey, v, 0, 65535);
      return;
    case 'discv5discovery':
      s.discv5Discovery = bool(rawKey, v);
      return;
    case 'nat': {
      const t = typeof v === 'string' ? v.trim() : '';
      const lower = t.toLowerCase();
      if (lower === 'any' || lower === 'none') s.extIp = null;
      else if (lower.startsWith('extip:') && isIP(t.slice(6)) === 4) s.extIp = t.slice(6);
      else if (lower === 'upnp' || lower === 'pmp')
        throw new ConfigError(`${rawKey}: ${t} is not supported; use any, none or extip:<ip>`);
      else throw new ConfigError(`${rawKey} must be any, none or extip:<IPv4 address>`);
      return;
    }
    case 'extmultiaddrs':
      s.extMultiaddrs = strings(rawKey, v).map((a) => {
        try {
          multiaddr(a);
        } catch {
          throw new ConfigError(`${rawKey}: "${a}" is not a multiaddr`);
        }
        return a;
      });
      return;
    case 'entrynodes':
    case 'discv5bootstrapnode':
    case 'staticnode':
      s.entryNodes = [...s.entryNodes, ...strings(rawKey, v).map((e) => entryNode(rawKey, e))];
      return;
    case 'nodekey':
      if (typeof v !== 'string' || !/^(0x)?[0-9a-fA-F]{64}$/.test(v))
        throw new ConfigError(`${rawKey} must be a secp256k1 secret key of 64 hex characters`);
      s.nodekey = v.replace(/^0x/, '').toLowerCase();
      return;
    case 'maxconnections':
      s.maxConnections = int(rawKey, v, 1, 10_000);
      return;
    case 'store':
      off('the store service');
      return;
    case 'filter':
      off('the filter service');
      return;
    case 'lightpush':
      off('the lightpush service');
      return;
    case 'websocketsupport':
      off('websocket transport');
      return;
    case 'mix':
      off('mix');
      return;
    case 'pluginkaddiscovery':
      off('Kademlia discovery');
      return;
    case 'rlnrelay':
      off('RLN relay');
      return;
    case 'peerexchange':
      off('peer exchange');
      return;
    // inferred: tuning keys of services this node does not run are accepted and have no effect
    case 'websocketport':
    case 'mixkey':
    case 'metricsserverport':
    case 'metricsserver':
    case 'localstoragepath':
      return;
    default:
      throw new ConfigError(`unknown configuration key: ${rawKey}`);
  }
}

function object(key: string, v: Json | undefined): Record<string, Json> {
  return mapping(v, key, { required: true, message: `${key} must be a JSON object` }) as Record<string, Json>;
}

function presetOf(key: string, v: Json): string {
  const name = typeof v === 'string' ? v.trim().toLowerCase() : '';
  const canonical = PRESET_ALIASES[name] ?? name;
  if (PRESETS[canonical] === undefined)
    throw new ConfigError(`${key}: unknown preset ${JSON.stringify(v)} (logos.test or logos.dev)`);
  return canonical;
}

/** Applies a WakuNodeConf object (a `kernelConf`, the overrides, or a flat config): its `preset` first. */
function applyConf(s: Settings, conf: Record<string, Json>, where: string): string | null {
  let preset: string | null = null;
  const rest: [string, Json][] = [];
  for (const [k, v] of Object.entries(conf)) {
    if (normaliseKey(k) === 'preset') preset = presetOf(`${where}${k}`, v);
    else rest.push([k, v]);
  }
  if (preset !== null) applyPreset(s, preset);
  for (const [k, v] of rest) {
    try {
      applyKey(s, k, v);
    } catch (e) {
      throw new ConfigError(`${where}${(e as Error).message}`);
    }
  }
  return preset;
}

function applyPreset(s: Settings, name: string): void {
  const p = PRESETS[name]!;
  s.clusterId = p.clusterId;
  s.numShardsInNetwork = p.numShardsInNetwork;
  // Both presets run discv5 (operator.md §4.1 preset table).
  s.discv5Discovery = true;
}

/** The JSON text (or the JSON object) `createNode` receives → the node's settings. */
export function parseDeliveryConfig(input: Json | undefined): DeliveryConfig {
  let root: Json;
  if (typeof input === 'string') {
    try {
      root = JSON.parse(input) as Json;
    } catch {
      throw new ConfigError('Invalid JSON config');
    }
  } else root = input ?? null;
  const top = mapping(root, '', { required: true, message: 'Invalid JSON config' }) as Record<string, Json>;
  const s = defaults();
  const flat = Object.keys(top).some((k) => !LAYER_KEYS.has(normaliseKey(k)));
  if (flat) {
    // The pre-layered shape: bare WakuNodeConf keys (and `mode`) at top level, the full stack.
    const conf: Record<string, Json> = {};
    for (const [k, v] of Object.entries(top)) {
      if (normaliseKey(k) === 'mode') applyMode(s, v);
      else conf[k] = v;
    }
    const preset = applyConf(s, conf, '');
    return { ...s, entryLayer: 'channels', preset, maxMessageSize: MAX_MESSAGE_BYTES };
  }
  const get = (name: string): [string, Json] | undefined =>
    Object.entries(top).find(([k]) => normaliseKey(k) === name);
  const layerEntry = get('entrylayer');
  let entryLayer: EntryLayer = 'channels';
  if (layerEntry !== undefined) {
    const l = typeof layerEntry[1] === 'string' ? layerEntry[1].toLowerCase() : '';
    if (l !== 'kernel' && l !== 'messaging' && l !== 'channels')
      throw new ConfigError(`${layerEntry[0]} must be kernel, messaging or channels`);
    entryLayer = l;
  }
  let preset: string | null = null;
  const presetEntry = get('preset');
  if (presetEntry !== undefined) {
    preset = presetOf(presetEntry[0], presetEntry[1]);
    applyPreset(s, preset);
  }
  const modeEntry = get('mode');
  // The reference applies `mode` to the messaging and channels layers only.
  if (modeEntry !== undefined && entryLayer !== 'kernel') applyMode(s, modeEntry[1]);
  else if (modeEntry !== undefined) modeOf(modeEntry[1]);
  const kernelEntry = get('kernelconf');
  if (kernelEntry !== undefined)
    preset = applyConf(s, object(kernelEntry[0], kernelEntry[1]), `${kernelEntry[0]}.`) ?? preset;
  else if (entryLayer === 'kernel') throw new ConfigError('entryLayer kernel needs a kernelConf object');
  const messagingEntry = get('messagingoverrides');
  if (messagingEntry !== undefined) {
    if (entryLayer === 'kernel')
      throw new ConfigError(`${messagingEntry[0]} has no effect on the kernel entry layer`);
    const o = { ...object(messagingEntry[0], messagingEntry[1]) };
    for (const k of Object.keys(o)) {
      if (normaliseKey(k) !== 'anonymitylevel') continue;
      if (o[k] !== 'None')
        throw new ConfigError(
          `${messagingEntry[0]}.${k}: only None is supported (Preferred and Required need mix)`,
        );
      delete o[k];
    }
    applyConf(s, o, `${messagingEntry[0]}.`);
  }
  const channelsEntry = get('channelsoverrides');
  if (channelsEntry !== undefined) {
    if (entryLayer !== 'channels')
      throw new ConfigError(`${channelsEntry[0]} needs the channels entry layer`);
    // inferred: reliable-channel tuning is accepted and has no effect (this node has no channel manager)
    object(channelsEntry[0], channelsEntry[1]);
  }
  return { ...s, entryLayer, preset, maxMessageSize: MAX_MESSAGE_BYTES };
}

function modeOf(v: Json): 'Core' | 'Edge' {
  const m = typeof v === 'string' ? v.toLowerCase() : '';
  if (m === 'core') return 'Core';
  if (m === 'edge') return 'Edge';
  throw new ConfigError('mode must be Core or Edge');
}

function applyMode(s: Settings, v: Json): void {
  if (modeOf(v) === 'Edge')
    throw new ConfigError(
      'mode Edge (a light node using filter and lightpush peers) is not supported; use Core',
    );
  s.relay = true;
}
