/**
 * Field readers for configuration files: each takes a parsed YAML (or JSON) value, a default and the
 * value's dotted path, and returns the typed value or throws a `ConfigError` that names the path. Also
 * the key layout check for sections read later, and the checks of network addresses (host:port listen
 * addresses, hosts, ports, multiaddrs) that must hold before the node touches its storage.
 * A parser whose refusals are worded otherwise (the operator modules' configurations, operator.md §1.2,
 * §3.3, §4.1) passes its own `message`; the options that widen what a reader accepts (`digits`,
 * `words`, `single`) are for inputs typed as text, as the module calls' are.
 */
import { isIP } from 'node:net';
import { LogosError } from './errors.ts';

export class ConfigError extends LogosError {
  constructor(message: string) {
    super('CONFIG_INVALID', message);
  }
}

export type Obj = Record<string, unknown>;

/** The wording of a reader's refusal, for a parser whose messages differ from the readers' own. */
export interface Worded {
  /** The whole message of the `ConfigError` (instead of the reader's `<path>: expected …`). */
  readonly message?: string;
}

export function isObj(v: unknown): v is Obj {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** A mapping (absent or null reads as empty, unless `required`). */
export function mapping(v: unknown, path: string, opts?: Worded & { readonly required?: boolean }): Obj {
  if ((v === undefined || v === null) && opts?.required !== true) return {};
  if (!isObj(v)) throw new ConfigError(opts?.message ?? `${path}: expected a mapping`);
  return v;
}

/**
 * Refuses any key of `o` not in `allowed`; `message` words the refusal from the unknown keys (all of
 * them, in the mapping's order).
 */
export function only(
  o: Obj,
  allowed: readonly string[],
  path: string,
  opts?: { readonly message?: (unknown: readonly string[]) => string },
): void {
  const message = opts?.message;
  if (message !== undefined) {
    const unknown = Object.keys(o).filter((k) => !allowed.includes(k));
    if (unknown.length > 0) throw new ConfigError(message(unknown));
    return;
  }
  for (const k of Object.keys(o)) {
    if (!allowed.includes(k))
      throw new ConfigError(
        `${path ? `${path}.` : ''}${k}: unknown key (expected one of ${allowed.join(', ')})`,
      );
  }
}

export function seconds(v: unknown, def: number, path: string): number {
  if (v === undefined) return def;
  const n = typeof v === 'string' ? Number(v) : typeof v === 'bigint' ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isFinite(n) || n < 0)
    throw new ConfigError(`${path}: expected a duration in seconds`);
  return n;
}

/**
 * An integer from `min` (to `max` when given); with `digits`, a text of decimal digits (spaces around
 * it ignored) reads as its number.
 */
export function int(
  v: unknown,
  def: number,
  path: string,
  min = 0,
  opts?: Worded & { readonly max?: number; readonly digits?: boolean },
): number {
  if (v === undefined) return def;
  const n =
    typeof v === 'bigint'
      ? Number(v)
      : opts?.digits === true && typeof v === 'string' && /^\d+$/.test(v.trim())
        ? Number(v.trim())
        : v;
  const max = opts?.max;
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < min || (max !== undefined && n > max))
    throw new ConfigError(
      opts?.message ??
        (max === undefined
          ? `${path}: expected an integer ≥ ${min}`
          : `${path}: expected an integer from ${min} to ${max}`),
    );
  return n;
}

export function u64(v: unknown, def: bigint, path: string): bigint {
  if (v === undefined) return def;
  const b =
    typeof v === 'bigint' ? v : typeof v === 'number' && Number.isSafeInteger(v) ? BigInt(v) : undefined;
  if (b === undefined || b < 0n || b > 0xffffffffffffffffn)
    throw new ConfigError(`${path}: expected an unsigned 64-bit integer`);
  return b;
}

/** `true` or `false`; with `words`, also their text (`"true"`, `"false"`). */
export function bool(
  v: unknown,
  def: boolean,
  path: string,
  opts?: Worded & { readonly words?: boolean },
): boolean {
  if (v === undefined) return def;
  if (typeof v === 'boolean') return v;
  if (opts?.words === true && (v === 'true' || v === 'false')) return v === 'true';
  throw new ConfigError(opts?.message ?? `${path}: expected true or false`);
}

export function str(v: unknown, def: string, path: string, opts?: Worded): string {
  if (v === undefined) return def;
  if (typeof v !== 'string') throw new ConfigError(opts?.message ?? `${path}: expected a string`);
  return v;
}

/** One of `choices` (compared exactly). */
export function oneOf<T extends string>(
  v: unknown,
  def: T,
  path: string,
  choices: readonly T[],
  opts?: Worded,
): T {
  if (v === undefined) return def;
  if (typeof v !== 'string' || !(choices as readonly string[]).includes(v))
    throw new ConfigError(opts?.message ?? `${path}: expected one of ${choices.join(', ')}`);
  return v as T;
}

/**
 * A list of strings. With `single`, one string reads as the list of it; with `trim`, each is trimmed;
 * with `nonEmpty`, an empty one (after trimming) is refused.
 */
export function strings(
  v: unknown,
  def: readonly string[],
  path: string,
  opts?: Worded & { readonly single?: boolean; readonly trim?: boolean; readonly nonEmpty?: boolean },
): string[] {
  if (v === undefined) return [...def];
  const list = opts?.single === true && typeof v === 'string' ? [v] : v;
  if (!Array.isArray(list) || !list.every((s) => typeof s === 'string'))
    throw new ConfigError(opts?.message ?? `${path}: expected a list of strings`);
  const out = opts?.trim === true ? list.map((s: string) => s.trim()) : (list as string[]);
  if (opts?.nonEmpty === true && out.some((s) => s === ''))
    throw new ConfigError(opts?.message ?? `${path}: expected a list of non-empty strings`);
  return out;
}

/** An IP address (of `family` 4 or 6 when given). */
export function ip(
  v: unknown,
  def: string,
  path: string,
  opts?: Worded & { readonly family?: 4 | 6 },
): string {
  if (v === undefined) return def;
  const family = opts?.family;
  if (typeof v !== 'string' || (family === undefined ? isIP(v) === 0 : isIP(v) !== family))
    throw new ConfigError(
      opts?.message ?? `${path}: expected an ${family === undefined ? 'IP' : `IPv${family}`} address`,
    );
  return v;
}

export function hex64(raw: unknown, path: string): string {
  // An all-digit hex string reads as a YAML integer; its digits are the hex text (zero-padded).
  const v =
    typeof raw === 'bigint' && raw >= 0n && raw.toString().length <= 64
      ? raw.toString().padStart(64, '0')
      : raw;
  if (typeof v !== 'string' || !/^[0-9a-fA-F]{64}$/.test(v))
    throw new ConfigError(`${path}: expected 64 hex characters`);
  return v.toLowerCase();
}

/** A DNS name (RFC 1123 labels). */
function isHostName(s: string): boolean {
  return (
    s.length <= 253 && s.split('.').every((l) => /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/.test(l))
  );
}

/** An IP address or a host name. */
function isHost(s: string): boolean {
  return isIP(s) !== 0 || (!/^[0-9.]+$/.test(s) && isHostName(s));
}

/** A TCP/UDP port, 0 to 65535. */
export function port(v: unknown, path: string): number {
  const n = typeof v === 'bigint' ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 0 || n > 65535)
    throw new ConfigError(`${path}: expected a port number from 0 to 65535, got ${String(v)}`);
  return n;
}

/** An IP address or host name. */
export function host(v: unknown, path: string): string {
  if (typeof v !== 'string' || !isHost(v))
    throw new ConfigError(`${path}: expected an IP address or host name, got ${JSON.stringify(v)}`);
  return v;
}

/** `host:port` (an IPv6 host in brackets), with a valid host and a port from 0 to 65535. */
export function listenAddress(v: unknown, def: string, path: string): string {
  const s = str(v, def, path);
  const m = /^\[([0-9a-fA-F:.]+)\]:(\d{1,5})$/.exec(s) ?? /^([^:\s[\]]+):(\d{1,5})$/.exec(s);
  if (m === null) throw new ConfigError(`${path}: expected host:port, got ${JSON.stringify(s)}`);
  const h = m[1]!;
  if (s.startsWith('[') ? isIP(h) !== 6 : !isHost(h))
    throw new ConfigError(`${path}: ${JSON.stringify(h)} is not an IP address or host name`);
  port(Number(m[2]), path);
  return s;
}

const MULTIADDR_ARGS: Readonly<Record<string, (a: string) => boolean>> = {
  ip4: (a) => isIP(a) === 4,
  ip6: (a) => isIP(a) === 6,
  dns: isHostName,
  dns4: isHostName,
  dns6: isHostName,
  dnsaddr: isHostName,
  tcp: (a) => /^\d{1,5}$/.test(a) && Number(a) <= 65535,
  udp: (a) => /^\d{1,5}$/.test(a) && Number(a) <= 65535,
  p2p: (a) => /^[1-9A-HJ-NP-Za-km-z]{20,128}$/.test(a),
};
const MULTIADDR_FLAGS = new Set(['quic', 'quic-v1', 'ws', 'wss', 'tls', 'webtransport', 'p2p-circuit']);

/** A multiaddr in text form, e.g. `/ip4/0.0.0.0/udp/3400/quic-v1` or `/dns4/h/tcp/3000/p2p/12D3…`. */
export function multiaddr(v: unknown, path: string): string {
  const bad = (why: string) =>
    new ConfigError(`${path}: expected a multiaddr such as /ip4/1.2.3.4/udp/3400/quic-v1 (${why})`);
  if (typeof v !== 'string' || !v.startsWith('/')) throw bad(`got ${JSON.stringify(v)}`);
  const parts = v.split('/').slice(1);
  for (let i = 0; i < parts.length; i++) {
    const proto = parts[i]!;
    if (MULTIADDR_FLAGS.has(proto)) continue;
    const check = MULTIADDR_ARGS[proto];
    if (check === undefined) throw bad(`unknown protocol ${JSON.stringify(proto)}`);
    const arg = parts[++i];
    if (arg === undefined || !check(arg)) throw bad(`bad ${proto} value ${JSON.stringify(arg ?? '')}`);
  }
  if (parts.length === 0 || !/^(ip4|ip6|dns|dns4|dns6|dnsaddr|p2p)$/.test(parts[0]!))
    throw bad('it must start with an address');
  return v;
}

/** A libp2p peer id in its text form (base58btc, e.g. `12D3KooW…`), as a `/p2p/` multiaddr part is. */
export function peerId(v: unknown, path: string): string {
  if (typeof v !== 'string' || !MULTIADDR_ARGS.p2p!(v))
    throw new ConfigError(`${path}: expected a peer id such as 12D3KooW… (got ${JSON.stringify(v)})`);
  return v;
}

/** Key layout of a section read later: `true` = any value below this key. */
export type Layout = { readonly [key: string]: true | Layout };

/** Refuses keys outside `layout`, at every level the layout describes. */
export function checkLayout(v: unknown, layout: Layout, path: string): void {
  const o = mapping(v, path);
  only(o, Object.keys(layout), path);
  for (const [k, sub] of Object.entries(layout)) {
    if (sub !== true && o[k] !== undefined && o[k] !== null) checkLayout(o[k], sub, `${path}.${k}`);
  }
}
