/**
 * The control tool's session directory (operator.md §1.2): `--config-dir`, else `LOGOSCTL_CONFIG_DIR`,
 * else `~/.logosctl`; its folders created mode 700; the daemon's `state.json`; the local token `auto`
 * (raw in `client/auto.json`, its SHA-256 in `daemon/tokens.json`, both mode 600, rewritten at each boot);
 * `daemon/config.yaml` read when present.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { writeFileAtomic } from '@logos-ts/shared/atomic-file';
import { parse as parseYaml } from 'yaml';
import { DaemonConfigError } from './errors.ts';
import { sha256Hex } from './token-hash.ts';
import { TokenStore } from './tokens.ts';

export const SESSION_DIRS = [
  'daemon',
  'daemon/tokens',
  'client',
  'modules',
  'plugins',
  'keyring',
  'logs',
  'cache',
  'cache/downloads',
  'data',
] as const;

/** The session folder chosen by the flag, the environment or the default. */
export function sessionDir(flag: string | undefined, env = process.env): string {
  const dir = flag || env.LOGOSCTL_CONFIG_DIR || join(homedir(), '.logosctl');
  return resolve(dir);
}

export class Session {
  constructor(readonly dir: string) {}

  get daemonDir(): string {
    return join(this.dir, 'daemon');
  }
  get statePath(): string {
    return join(this.dir, 'daemon', 'state.json');
  }
  get tokensPath(): string {
    return join(this.dir, 'daemon', 'tokens.json');
  }
  get configPath(): string {
    return join(this.dir, 'daemon', 'config.yaml');
  }
  get startupErrPath(): string {
    return join(this.dir, 'daemon', 'startup.err');
  }
  get autoTokenPath(): string {
    return join(this.dir, 'client', 'auto.json');
  }
  /** The daemon's Unix socket: inside the 700 `daemon/` folder, so only the owner reaches it. */
  get socketPath(): string {
    return join(this.dir, 'daemon', 'daemon.sock');
  }
  get modulesDir(): string {
    return join(this.dir, 'modules');
  }
  get logsDir(): string {
    return join(this.dir, 'logs');
  }
  dataDir(module: string): string {
    return join(this.dir, 'data', module);
  }

  /** Creates the session's folders (mode 700), tightening existing ones. */
  ensureLayout(): void {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    chmodSync(this.dir, 0o700);
    for (const d of SESSION_DIRS) {
      const p = join(this.dir, d);
      mkdirSync(p, { recursive: true, mode: 0o700 });
      chmodSync(p, 0o700);
    }
  }

  /** `daemon/config.yaml` as an object; `{}` when absent. A malformed file is an error naming it. */
  readConfig(): Record<string, unknown> {
    if (!existsSync(this.configPath)) return {};
    let doc: unknown;
    try {
      doc = parseYaml(readFileSync(this.configPath, 'utf8'));
    } catch (e) {
      throw new DaemonConfigError(`${this.configPath}: ${(e as Error).message}`, { path: this.configPath });
    }
    if (doc === null || doc === undefined) return {};
    if (typeof doc !== 'object' || Array.isArray(doc))
      throw new DaemonConfigError(`${this.configPath}: not a mapping`, { path: this.configPath });
    return doc as Record<string, unknown>;
  }

  /** The accepted tokens (`daemon/tokens.json`, `daemon/tokens/`). */
  get tokens(): TokenStore {
    return new TokenStore(this.daemonDir);
  }

  /**
   * Issues a fresh local token `auto`: the raw value for clients, only its hash for the daemon (beside
   * the tokens issued with `token issue`, which stay). Returns the hash.
   */
  issueAutoToken(): string {
    const token = this.tokens.issueAuto();
    writeFileAtomic(this.autoTokenPath, `${JSON.stringify({ name: 'auto', token })}\n`, false);
    return sha256Hex(token);
  }

  /** The client's token (`client/auto.json`); undefined when absent or unreadable. */
  readAutoToken(): string | undefined {
    try {
      const doc = JSON.parse(readFileSync(this.autoTokenPath, 'utf8')) as { token?: unknown };
      return typeof doc.token === 'string' ? doc.token : undefined;
    } catch {
      return undefined;
    }
  }

  writeState(state: DaemonState): void {
    writeFileAtomic(this.statePath, `${JSON.stringify(state, null, 2)}\n`, false);
  }

  readState(): DaemonState | undefined {
    try {
      const s = JSON.parse(readFileSync(this.statePath, 'utf8')) as DaemonState;
      return typeof s.pid === 'number' && typeof s.socket === 'string' ? s : undefined;
    } catch {
      return undefined;
    }
  }

  removeState(): void {
    rmSync(this.statePath, { force: true });
    rmSync(this.socketPath, { force: true });
  }
}

/** `daemon/state.json`: the live daemon instance. */
export interface DaemonState {
  readonly pid: number;
  readonly instance_id: string;
  readonly socket: string;
  readonly started_at: string;
  readonly version: string;
}

/** Whether a process with this pid exists. */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
