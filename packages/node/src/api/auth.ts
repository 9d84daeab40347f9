/**
 * Optional authentication of the API (`api.backend.auth`), beyond the reference, which has none (its
 * users put a proxy with Basic auth in front). Bearer tokens and Basic credentials, both kept in the
 * configuration as hashes only: a token as its SHA-256 (`sha256:<hex>`; tokens are long and random,
 * so a fast hash is enough), a password as scrypt (`scrypt:<N>:<r>:<p>:<salt hex>:<key hex>`; computed
 * off the event loop, and a verdict on the same header is remembered for a minute so that a client
 * sending its credentials on every request pays the hash once). `mode: all` asks every request for
 * credentials, `mode: writes` only those of state-changing routes; the API's own documentation (the
 * OpenAPI document and the Swagger UI) stays open, so that the UI can load and ask for them. A refusal
 * is a 401 `{"code":401,"message":…}` with a `WWW-Authenticate` challenge for each scheme configured.
 * No secret, no hash and no presented credential is ever logged or put in an answer.
 * inferred: this node's own (docs/design/fidelity.md "API authentication")
 */
import { createHash, randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { ConfigError, mapping, oneOf, only, str } from '@logos-ts/shared/config-fields';

export type AuthMode = 'all' | 'writes';

export interface BasicUser {
  readonly name: string;
  /** `scrypt:<N>:<r>:<p>:<salt hex>:<key hex>`. */
  readonly password_hash: string;
}

/** `api.backend.auth`. */
export interface ApiAuthConfig {
  readonly mode: AuthMode;
  /** `sha256:<64 hex>` of each accepted bearer token. */
  readonly bearer_token_hashes: readonly string[];
  readonly basic_users: readonly BasicUser[];
}

const SHA256 = /^sha256:[0-9a-f]{64}$/;
const SCRYPT = /^scrypt:(\d+):(\d+):(\d+):([0-9a-f]{16,128}):([0-9a-f]{32,128})$/;
/** The scrypt parameters of new password hashes: about 30 ms and 16 MiB. */
const NEW_SCRYPT = { N: 16384, r: 8, p: 1, keyLen: 32 } as const;
/** How long a verdict on one Authorization header is remembered, and how many are. */
const VERDICT_MS = 60_000;
const MAX_VERDICTS = 1024;

/** Parses `api.backend.auth`; absent: none. */
export function parseAuth(raw: unknown): ApiAuthConfig | null {
  if (raw === undefined || raw === null) return null;
  const P = 'api.backend.auth';
  const m = mapping(raw, P);
  only(m, ['mode', 'bearer_token_hashes', 'basic_users'], P);
  const mode = oneOf<AuthMode>(m.mode, 'all', `${P}.mode`, ['all', 'writes']);
  const tokens = m.bearer_token_hashes ?? [];
  if (!Array.isArray(tokens)) throw new ConfigError(`${P}.bearer_token_hashes: expected a list`);
  tokens.forEach((t, i) => {
    if (typeof t !== 'string' || !SHA256.test(t))
      throw new ConfigError(
        `${P}.bearer_token_hashes[${i}]: expected sha256:<64 hex digits> (made by \`logos-node auth token\`)`,
      );
  });
  const users = m.basic_users ?? [];
  if (!Array.isArray(users)) throw new ConfigError(`${P}.basic_users: expected a list`);
  const basic = users.map((u, i): BasicUser => {
    const at = `${P}.basic_users[${i}]`;
    const e = mapping(u, at);
    only(e, ['name', 'password_hash'], at);
    const name = str(e.name, '', `${at}.name`);
    if (name === '' || name.includes(':'))
      throw new ConfigError(`${at}.name: expected a non-empty name without ':'`);
    const hash = str(e.password_hash, '', `${at}.password_hash`);
    const s = SCRYPT.exec(hash);
    if (!s || !validScrypt(Number(s[1]), Number(s[2]), Number(s[3])))
      throw new ConfigError(
        `${at}.password_hash: expected scrypt:<N>:<r>:<p>:<salt hex>:<key hex> (made by \`logos-node auth password\`)`,
      );
    return { name, password_hash: hash };
  });
  if (new Set(basic.map((u) => u.name)).size !== basic.length)
    throw new ConfigError(`${P}.basic_users: a name is listed twice`);
  if (tokens.length === 0 && basic.length === 0)
    throw new ConfigError(`${P}: no credentials: list bearer_token_hashes or basic_users`);
  return { mode, bearer_token_hashes: tokens as string[], basic_users: basic };
}

/** N a power of two from 2 to 2^20, r and p small: what Node's scrypt takes within its memory bound. */
function validScrypt(N: number, r: number, p: number): boolean {
  return N >= 2 && N <= 2 ** 20 && (N & (N - 1)) === 0 && r >= 1 && r <= 32 && p >= 1 && p <= 16;
}

/** The configuration form of a bearer token. */
export function hashToken(token: string): string {
  return `sha256:${createHash('sha256').update(token, 'utf8').digest('hex')}`;
}

/** A new random bearer token (256 bits, base64url). */
export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

function scryptAsync(password: string, salt: Buffer, keyLen: number, N: number, r: number, p: number) {
  return new Promise<Buffer>((resolve, reject) =>
    scrypt(password, salt, keyLen, { N, r, p, maxmem: 256 * N * r + 1024 * 1024 }, (e, key) =>
      e ? reject(e) : resolve(key),
    ),
  );
}

/** The configuration form of a password (scrypt, a fresh salt). */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const { N, r, p, keyLen } = NEW_SCRYPT;
  const key = await scryptAsync(password, salt, keyLen, N, r, p);
  return `scrypt:${N}:${r}:${p}:${salt.toString('hex')}:${key.toString('hex')}`;
}

async function passwordMatches(password: string, hash: string): Promise<boolean> {
  const s = SCRYPT.exec(hash);
  if (!s) return false;
  const want = Buffer.from(s[5]!, 'hex');
  const got = await scryptAsync(password, Buffer.from(s[4]!, 'hex'), want.length, +s[1]!, +s[2]!, +s[3]!);
  return timingSafeEqual(got, want);
}

/** Whether `a` equals one of `list` (SHA-256 forms), each compared in constant time. */
function oneOfHashes(a: string, list: readonly string[]): boolean {
  const x = Buffer.from(a);
  let found = false;
  for (const h of list) {
    const y = Buffer.from(h);
    if (x.length === y.length && timingSafeEqual(x, y)) found = true;
  }
  return found;
}

export class ApiAuth {
  /** Verdicts by SHA-256 of the Authorization header (oldest first). */
  private readonly verdicts = new Map<string, { ok: boolean; at: number }>();
  /** Headers checked in full (not from a remembered verdict) so far. */
  private checked = 0;

  constructor(
    readonly config: ApiAuthConfig,
    private readonly now: () => number = Date.now,
  ) {}

  /** Whether a request needs credentials: every one in `all` mode, state-changing ones in `writes`. */
  required(mutates: boolean): boolean {
    return this.config.mode === 'all' || mutates;
  }

  /** The `WWW-Authenticate` value: a challenge for each scheme configured. */
  challenge(): string {
    const c: string[] = [];
    if (this.config.bearer_token_hashes.length > 0) c.push('Bearer realm="logos-node"');
    if (this.config.basic_users.length > 0) c.push('Basic realm="logos-node", charset="UTF-8"');
    return c.join(', ');
  }

  /** How many headers were checked in full (a password hashed) rather than from a remembered verdict. */
  get fullChecks(): number {
    return this.checked;
  }

  /** Whether an Authorization header carries valid credentials. */
  async check(header: string | undefined): Promise<boolean> {
    if (header === undefined || header.length > 4096) return false;
    const key = createHash('sha256').update(header).digest('hex');
    const now = this.now();
    const known = this.verdicts.get(key);
    if (known !== undefined && now - known.at < VERDICT_MS) return known.ok;
    this.checked++;
    const ok = await this.verify(header);
    this.verdicts.delete(key);
    this.verdicts.set(key, { ok, at: now });
    if (this.verdicts.size > MAX_VERDICTS) this.verdicts.delete(this.verdicts.keys().next().value!);
    return ok;
  }

  private async verify(header: string): Promise<boolean> {
    const sp = header.indexOf(' ');
    if (sp < 0) return false;
    const scheme = header.slice(0, sp).toLowerCase();
    const value = header.slice(sp + 1).trim();
    if (scheme === 'bearer') return oneOfHashes(hashToken(value), this.config.bearer_token_hashes);
    if (scheme !== 'basic') return false;
    const decoded = Buffer.from(value, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) return false;
    const user = this.config.basic_users.find((u) => u.name === decoded.slice(0, colon));
    if (user === undefined) return false;
    return passwordMatches(decoded.slice(colon + 1), user.password_hash);
  }
}

/** Whether a listen host is a loopback address (only this machine can reach it). */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}
