/**
 * Client tokens of the daemon (operator.md §1.1, §1.2, §1.3 `token issue --name N [--expires D] [--replace]
 * [--local-only] | token ls | token revoke NAME`; logos-logoscore-cli `src/daemon/token_store.cpp`,
 * `issue_token_command.cpp`): `daemon/tokens.json` maps each name to `{sha256, issued_at, expires_at,
 * local_only}` (only the hash of a token is kept), and `daemon/tokens/<name>.json` holds the raw token
 * (`{version, name, token, issued_at}`) for the operator to copy; both mode 600. The daemon checks every
 * request against `tokens.json` as it is at that moment, so a revoked or expired token is refused at once.
 * Issuing and revoking work with or without a running daemon, as in the reference. Names: letters,
 * digits, `_`, `-`, `.`, at most 64, not starting with `.` or `-`, no `..`. `--expires`: `<N>s|m|h|d` from
 * now, or an ISO 8601 UTC date or timestamp. `local_only` is recorded; this daemon only listens on its
 * local socket, so every transport is local.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '@logos-ts/shared/atomic-file';
import { LogosError } from '@logos-ts/shared/errors';
import { sha256Hex, tokenMatches } from './token-hash.ts';

export interface TokenEntry {
  readonly sha256: string;
  readonly issued_at: string;
  readonly expires_at?: string | null;
  readonly local_only: boolean;
}

/** A refused token operation; `code` is the reply code the CLI prints (`TOKEN_EXISTS`, `TOKENS_BUSY`…). */
export class TokenError extends LogosError {}
LogosError.register(TokenError);

const SAFE = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$/;
const isSafeName = (n: string): boolean => SAFE.test(n) && !n.includes('..') && n !== '__proto__';

/** How long an edit waits for another one's `tokens.json.lock`, and when such a lock counts as abandoned. */
const LOCK_WAIT_MS = 3000;
const LOCK_STALE_MS = 10_000;

const sleepSync = (ms: number): void => {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
};

/** `--expires` as an ISO 8601 UTC deadline; '' for none; undefined when it does not parse. */
export function resolveExpires(s: string, now = Date.now()): string | undefined {
  if (s === '') return '';
  const rel = /^(\d+)([smhd])$/.exec(s);
  if (rel) {
    const mult = { s: 1, m: 60, h: 3600, d: 86400 }[rel[2] as 's' | 'm' | 'h' | 'd'];
    const t = new Date(now + Number(rel[1]) * mult * 1000);
    return Number.isNaN(t.getTime()) ? undefined : `${t.toISOString().slice(0, 19)}Z`;
  }
  if (/^\d{4}-\d{2}-\d{2}$/.test(s) && !Number.isNaN(Date.parse(`${s}T00:00:00Z`))) return `${s}T00:00:00Z`;
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/.test(s) && !Number.isNaN(Date.parse(s))) return s;
  return undefined;
}

export class TokenStore {
  readonly tokensPath: string;
  readonly rawDir: string;

  constructor(
    daemonDir: string,
    private readonly lockWaitMs = LOCK_WAIT_MS,
  ) {
    this.tokensPath = join(daemonDir, 'tokens.json');
    this.rawDir = join(daemonDir, 'tokens');
  }

  /**
   * The entries of `tokens.json` ({} when there is none). A file that exists but does not parse is an
   * error, never read as empty: the next write would otherwise drop every issued token.
   */
  read(): Record<string, TokenEntry> {
    let text: string;
    try {
      text = readFileSync(this.tokensPath, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return Object.create(null);
      throw new TokenError('TOKENS_UNREADABLE', `Cannot read ${this.tokensPath}: ${(e as Error).message}`);
    }
    let j: unknown;
    try {
      j = JSON.parse(text);
    } catch {
      j = undefined;
    }
    if (!j || typeof j !== 'object' || Array.isArray(j))
      throw new TokenError(
        'TOKENS_CORRUPT',
        `${this.tokensPath} is not a JSON object of tokens; fix or remove it (removing it drops every issued token).`,
      );
    return Object.assign(Object.create(null) as Record<string, TokenEntry>, j);
  }

  private write(t: Record<string, TokenEntry>): void {
    writeFileAtomic(this.tokensPath, `${JSON.stringify(t, null, 2)}\n`, false);
  }

  /** Runs a read-modify-write of `tokens.json` holding `tokens.json.lock`, so concurrent edits do not lose one. */
  private edit<T>(fn: () => T): T {
    const lock = `${this.tokensPath}.lock`;
    const deadline = Date.now() + this.lockWaitMs;
    for (;;) {
      try {
        closeSync(openSync(lock, 'wx', 0o600));
        break;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      }
      let age = 0;
      try {
        age = Date.now() - statSync(lock).mtimeMs;
      } catch {
        continue; // just released
      }
      if (age > LOCK_STALE_MS) {
        rmSync(lock, { force: true });
        continue;
      }
      if (Date.now() > deadline)
        throw new TokenError('TOKENS_BUSY', `Another token edit holds ${lock}; try again.`);
      sleepSync(20);
    }
    try {
      return fn();
    } finally {
      rmSync(lock, { force: true });
    }
  }

  rawPath(name: string): string {
    return join(this.rawDir, `${name}.json`);
  }

  /** Replaces the `auto` token (daemon boot); keeps the issued ones. Returns the raw token. */
  issueAuto(): string {
    const token = randomBytes(32).toString('hex');
    this.edit(() => {
      const t = this.read();
      t.auto = { sha256: sha256Hex(token), local_only: true, issued_at: new Date().toISOString() };
      this.write(t);
    });
    return token;
  }

  issue(
    name: string,
    expires: string,
    localOnly: boolean,
    replace: boolean,
  ): { token: string; expiresAt: string } {
    if (!isSafeName(name) || name === 'auto')
      throw new TokenError(
        'INVALID_ARGS',
        `Invalid token name '${name}': letters, digits, _ - . (at most 64), not starting with . or -, not 'auto'`,
      );
    const expiresAt = resolveExpires(expires);
    if (expiresAt === undefined)
      throw new TokenError(
        'INVALID_EXPIRES',
        `Could not parse --expires '${expires}'. Use Ns/Nm/Nh/Nd or ISO 8601 UTC.`,
      );
    mkdirSync(this.rawDir, { recursive: true, mode: 0o700 });
    return this.edit(() => {
      const t = this.read();
      if (Object.hasOwn(t, name) && !replace)
        throw new TokenError('TOKEN_EXISTS', `Token '${name}' already exists. Use --replace to overwrite.`);
      const token = randomBytes(32).toString('base64url');
      const issuedAt = new Date().toISOString();
      t[name] = {
        sha256: sha256Hex(token),
        issued_at: issuedAt,
        expires_at: expiresAt || null,
        local_only: localOnly,
      };
      writeFileAtomic(
        this.rawPath(name),
        `${JSON.stringify({ version: 1, name, token, issued_at: issuedAt }, null, 4)}\n`,
        false,
      );
      this.write(t);
      return { token, expiresAt };
    });
  }

  revoke(name: string): void {
    if (!isSafeName(name)) throw new TokenError('INVALID_ARGS', `Invalid token name '${name}'`);
    this.edit(() => {
      const t = this.read();
      if (!Object.hasOwn(t, name)) throw new TokenError('TOKEN_NOT_FOUND', `No token named '${name}'.`);
      delete t[name];
      this.write(t);
      rmSync(this.rawPath(name), { force: true });
    });
  }

  list(): {
    name: string;
    issued_at: string;
    expires_at: string | null;
    local_only: boolean;
    file_present: boolean;
  }[] {
    return Object.entries(this.read())
      .map(([name, e]) => ({
        name,
        issued_at: e.issued_at,
        expires_at: e.expires_at ?? null,
        local_only: e.local_only === true,
        file_present: name !== 'auto' && existsSync(this.rawPath(name)),
      }))
      .sort((a, b) => a.name.localeCompare(b.name));
  }

  /** The name of the token `token` is, when accepted now (known, not expired). */
  accepts(token: string, now = Date.now()): string | undefined {
    let entries: Record<string, TokenEntry>;
    try {
      entries = this.read();
    } catch {
      return undefined; // an unreadable store accepts nothing
    }
    for (const [name, e] of Object.entries(entries)) {
      if (typeof e?.sha256 !== 'string' || !tokenMatches(token, e.sha256)) continue;
      if (e.expires_at && Date.parse(e.expires_at) <= now) return undefined;
      return name;
    }
    return undefined;
  }
}
