/**
 * The daemon's handle on one module host process (operator.md §1.1: each module in its own process,
 * leading its own process group). It forks `module-host.ts`, waits for the module's `ready`, forwards
 * calls and events, and tells the daemon when the process ends without being asked to (a crash).
 */
import { type ChildProcess, fork } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { fileURLToPath } from 'node:url';
import type { Json } from '@logos-ts/shared/json';
import { parseJson } from '@logos-ts/shared/json';
import { childExecArgv, siblingModule } from '@logos-ts/shared/runtime';
import { CallTimeout, ModuleStartError } from './errors.ts';
import type { FromHost, ToHost } from './ipc.ts';
import { dumpSorted } from './output.ts';

export { CallTimeout };

const HOST = fileURLToPath(siblingModule(import.meta.url, 'module-host'));
/** Node flags of every module host: none for a build, tsx and the source condition from source. */
export const HOST_EXEC_ARGV = childExecArgv();

const READY_TIMEOUT_MS = 60_000;
const CLOSE_TIMEOUT_MS = 10_000;

export interface ModuleStats {
  readonly cpuMicros: number;
  readonly uptimeMicros: number;
  readonly rssBytes: number;
}

export interface ModuleDescription {
  readonly name: string;
  readonly version: string;
  readonly dependencies: readonly string[];
  readonly methods: readonly string[];
  readonly events: readonly string[];
}

/** Events: `event` (name, payload), `exit` (description of an unexpected end). */
/** How long a method call may take before the daemon gives up on it (a download may take minutes). */
export const CALL_TIMEOUT_MS = 300_000;
/** How long the host may take to report its CPU and memory use. */
export const STATS_TIMEOUT_MS = 5_000;

export class ModuleProcess extends EventEmitter {
  private child: ChildProcess | undefined;
  private nextId = 1;
  private readonly pending = new Map<number, (v: Json | null) => void>();
  private readonly pendingStats = new Map<number, (s: ModuleStats | null) => void>();
  private closing = false;
  description: ModuleDescription | undefined;

  private constructor(
    readonly name: string,
    private readonly onLog: (line: string) => void,
    private readonly callTimeoutMs: number,
    private readonly statsTimeoutMs: number,
  ) {
    super();
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Starts the host for `file` and resolves once the module is ready; rejects with its init error. */
  static async start(
    name: string,
    file: string,
    opts: {
      cwd: string;
      dataDir: string;
      onLog: (line: string) => void;
      callTimeoutMs?: number;
      statsTimeoutMs?: number;
    },
  ): Promise<ModuleProcess> {
    const p = new ModuleProcess(
      name,
      opts.onLog,
      opts.callTimeoutMs ?? CALL_TIMEOUT_MS,
      opts.statsTimeoutMs ?? STATS_TIMEOUT_MS,
    );
    await p.spawn(file, opts.cwd, opts.dataDir);
    return p;
  }

  private spawn(file: string, cwd: string, dataDir: string): Promise<void> {
    const child = fork(HOST, [file, this.name, dataDir], {
      cwd,
      execArgv: HOST_EXEC_ARGV,
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      detached: true,
      serialization: 'json',
    });
    this.child = child;
    const forward = (chunk: Buffer): void => {
      for (const line of chunk.toString('utf8').split('\n')) if (line.trim() !== '') this.onLog(line);
    };
    child.stdout?.on('data', forward);
    child.stderr?.on('data', forward);
    return new Promise((resolve, reject) => {
      let ready = false;
      const timer = setTimeout(() => {
        reject(
          new ModuleStartError(
            this.name,
            `module ${this.name} did not start within ${READY_TIMEOUT_MS / 1000} s`,
          ),
        );
        child.kill('SIGKILL');
      }, READY_TIMEOUT_MS);
      child.on('message', (m: FromHost) => {
        switch (m.type) {
          case 'ready':
            ready = true;
            clearTimeout(timer);
            this.description = m;
            resolve();
            return;
          case 'init_failed':
            clearTimeout(timer);
            reject(new ModuleStartError(this.name, m.message));
            return;
          case 'result':
            this.pending.get(m.id)?.(m.value === null ? null : parseJson(m.value));
            this.pending.delete(m.id);
            return;
          case 'event':
            this.emit('event', m.event, parseJson(m.payload));
            return;
          case 'stats':
            this.pendingStats.get(m.id)?.(m);
            this.pendingStats.delete(m.id);
            return;
          case 'closed':
            return;
        }
      });
      child.on('exit', (code, signal) => {
        clearTimeout(timer);
        for (const done of this.pending.values()) done(null);
        this.pending.clear();
        for (const done of this.pendingStats.values()) done(null);
        this.pendingStats.clear();
        const how = signal === null ? `exited with code ${code}` : `killed by ${signal}`;
        if (!ready) reject(new ModuleStartError(this.name, `module ${this.name} ${how} while starting`));
        else if (!this.closing) this.emit('exit', how);
        this.child = undefined;
      });
      child.on('error', (e) => this.onLog(`host process error: ${e.message}`));
    });
  }

  /**
   * Calls a method; null when the module returned nothing, has no such method, or its process died;
   * rejects with `CallTimeout` when no answer comes within the call timeout (the entry is dropped).
   */
  call(method: string, args: readonly Json[]): Promise<Json | null> {
    const child = this.child;
    if (child === undefined || !child.connected) return Promise.resolve(null);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(
          new CallTimeout(`${this.name}.${method} did not answer within ${this.callTimeoutMs / 1000} s`),
        );
      }, this.callTimeoutMs);
      const done = (v: Json | null): void => {
        clearTimeout(timer);
        resolve(v);
      };
      this.pending.set(id, done);
      const msg: ToHost = { type: 'call', id, method, args: dumpSorted([...args]) };
      child.send(msg, (err) => {
        if (err) {
          this.pending.delete(id);
          done(null);
        }
      });
    });
  }

  /** The host's CPU and memory use; null when its process is gone or does not answer in time. */
  stats(): Promise<ModuleStats | null> {
    const child = this.child;
    if (child === undefined || !child.connected) return Promise.resolve(null);
    const id = this.nextId++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.pendingStats.delete(id);
        resolve(null);
      }, this.statsTimeoutMs);
      const done = (v: ModuleStats | null): void => {
        clearTimeout(timer);
        resolve(v);
      };
      this.pendingStats.set(id, done);
      child.send({ type: 'stats', id } satisfies ToHost, (err) => {
        if (err) {
          this.pendingStats.delete(id);
          done(null);
        }
      });
    });
  }

  /** Asks the module to close, then ends its process (its whole group after the grace period). */
  async close(): Promise<void> {
    const child = this.child;
    if (child === undefined) return;
    this.closing = true;
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    if (child.connected) child.send({ type: 'close' } satisfies ToHost, () => {});
    const timer = setTimeout(() => killGroup(child), CLOSE_TIMEOUT_MS);
    await exited;
    clearTimeout(timer);
  }

  /** Ends the process group at once (daemon shutdown when a module hangs). */
  kill(): void {
    if (this.child) {
      this.closing = true;
      killGroup(this.child);
    }
  }
}

function killGroup(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    child.kill('SIGKILL');
  }
}
