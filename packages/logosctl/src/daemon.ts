/**
 * The control tool's daemon (operator.md §1.1-§1.6; `core_service_impl.cpp` of logos-logoscore-cli
 * @1a4f56fe): one process serving the local RPC on the session's Unix socket, owning the module host
 * processes. At boot it issues the `auto` token, loads the bundled modules, then publishes
 * `daemon/state.json`. It answers `status`, `ls`, `show`, `load` (dependencies first, transitively),
 * `unload` (dependents first), `call` (the `{"method","module","result","status":"ok"}` envelope, or
 * `MODULE_NOT_LOADED` / `METHOD_FAILED` when the module returned nothing), `watch` and `stop`.
 *
 * A module process that ends on its own is `crashed`: its pending calls fail, `restart_count` grows, and
 * it is restarted after `backoff_ms` × 2^(n-1) (1 s, 2 s, 4 s) up to `max_restarts` (3) times in a row;
 * both settable under `restart_policy:` in `daemon/config.yaml` (a key of this implementation; the
 * reference's `modules:` holds per-module transports). A run of 60 s without a crash clears
 * the series. The daemon itself never ends with a module.
 *
 * One daemon per session: `daemon/daemon.lock` is created exclusively at start (a stale lock of a dead
 * process is taken over) and removed at stop, so of two starts at the same instant exactly one wins.
 * Every request must carry a token `daemon/tokens.json` accepts at that moment (the boot's `auto` token
 * or one issued with `token issue`, unexpired and not revoked). Package operations (`package_plan`,
 * `package_apply`, `package_download`, package-ops.ts) run one at a time with loads and unloads.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server, type Socket } from 'node:net';
import { PassThrough } from 'node:stream';
import { isJsonObject, type Json, JsonFloat } from '@logos-ts/shared/json';
import pino, { type Logger } from 'pino';
import { configuredModulesDirs, MAX_TIMER_MS, type RestartPolicy, restartPolicy } from './daemon-config.ts';
import { AlreadyRunning } from './errors.ts';
import { DaemonLock } from './lock.ts';
import { loggingConfig, RotatingLog } from './log-file.ts';
import { CallTimeout, ModuleProcess } from './module-process.ts';
import { apply, download, type Op, type PackageBackend, plan, readOptions } from './package-ops.ts';
import { BUNDLED, type ModuleInfo, scanModules } from './registry.ts';
import { dial, LineTooLong, readLines, writeLine } from './rpc.ts';
import { processAlive, type Session } from './session.ts';
import { LOGOSCTL_VERSION } from './version.ts';

interface Slot {
  info: ModuleInfo;
  proc?: ModuleProcess | undefined;
  status: 'loaded' | 'crashed' | 'not_loaded';
  startedAt?: number | undefined;
  restartCount: number;
  lastError?: string | undefined;
  restartTimer?: NodeJS.Timeout | undefined;
}

const STABLE_MS = 60_000;
/** The longest request line (characters) a client may send; room for `call … @file` chunk uploads. */
const MAX_REQUEST_LINE = 16 * 1024 * 1024;
/** The most bytes of events queued for one `watch` connection before it is dropped. */
const MAX_WATCH_BACKLOG = 8 * 1024 * 1024;
/** How long `daemon stop` waits for a running package operation. */
const STOP_QUEUE_WAIT_MS = 30_000;
/** How long a new connection may take to send its request line. */
const REQUEST_IDLE_MS = 30_000;

type Reply = { [k: string]: Json };
const err = (code: string, message: string, extra: Reply = {}): Reply => ({
  ...extra,
  status: 'error',
  code,
  message,
});

export class Daemon {
  private readonly slots = new Map<string, Slot>();
  private readonly badManifests = new Set<string>();
  private server: Server | undefined;
  private readonly startedAt = Date.now();
  private readonly instanceId = randomUUID();
  private stopping: Promise<void> | undefined;
  /** Loads and unloads run one at a time, so two clients never start the same module twice. */
  private queue: Promise<unknown> = Promise.resolve();
  private readonly watchers = new Set<{ module: string; event: string | undefined; socket: Socket }>();

  private constructor(
    private readonly session: Session,
    private readonly log: Logger,
    private readonly policy: RestartPolicy,
    private readonly modulesDirs: readonly string[],
    private readonly onStopped: () => void,
    private readonly lock: DaemonLock,
  ) {}

  /**
   * Boots a daemon on `session`: refuses when `state.json` names a live process or a daemon answers on
   * the socket (a stale state from a daemon that died is replaced); throws on a bad
   * configuration. Resolves once `state.json` is published.
   */
  static async start(session: Session, onStopped: () => void): Promise<Daemon> {
    session.ensureLayout();
    const lock = DaemonLock.acquire(session.daemonDir, session.dir);
    try {
      return await Daemon.boot(session, onStopped, lock);
    } catch (e) {
      lock.release();
      throw e;
    }
  }

  private static async boot(session: Session, onStopped: () => void, lock: DaemonLock): Promise<Daemon> {
    const config = session.readConfig();
    const existing = session.readState();
    const owner = existing !== undefined && existing.pid !== process.pid && processAlive(existing.pid);
    if (owner || (await answers(session.socketPath))) {
      throw new AlreadyRunning(
        `A daemon is already running for ${session.dir}${existing ? ` (pid ${existing.pid})` : ''}.`,
      );
    }
    session.removeState();
    const lc = loggingConfig(config);
    const streams = lc.enabled
      ? new RotatingLog(session.logsDir, lc)
      : lc.console
        ? process.stderr
        : new PassThrough().resume();
    // the file sink swallows its own write errors; anything else it emits must not end the daemon
    if (streams instanceof RotatingLog)
      streams.on('error', (e: Error) => process.stderr.write(`daemon log: ${e.message}\n`));
    const log = pino({ base: { pid: process.pid } }, streams);
    const dirs = [...configuredModulesDirs(config, process.cwd()), session.modulesDir];
    const d = new Daemon(session, log, restartPolicy(config), dirs, onStopped, lock);
    await d.bootModules();
    return d;
  }

  private async bootModules(): Promise<void> {
    this.session.issueAutoToken();
    this.rescan();
    this.server = createServer((s) => this.serve(s));
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(this.session.socketPath, () => resolve());
    });
    for (const m of BUNDLED) {
      const r = await this.load(m.name);
      if (r.status === 'error')
        this.log.error({ module: m.name, reason: r.message }, 'bundled module failed to load');
    }
    this.session.writeState({
      pid: process.pid,
      instance_id: this.instanceId,
      socket: this.session.socketPath,
      started_at: new Date(this.startedAt).toISOString(),
      version: LOGOSCTL_VERSION,
    });
    this.log.info({ socket: this.session.socketPath, instance_id: this.instanceId }, 'daemon started');
  }

  /** Re-reads the known modules, keeping the state of loaded ones. */
  private rescan(): void {
    const known = scanModules(this.modulesDirs, (dir, e) => {
      // each bad manifest is logged once, not at every scan
      if (this.badManifests.has(`${dir}\n${e.message}`)) return;
      this.badManifests.add(`${dir}\n${e.message}`);
      this.log.warn({ dir, reason: e.message }, 'module manifest skipped');
    });
    for (const [name, info] of known) {
      const slot = this.slots.get(name);
      if (slot === undefined) this.slots.set(name, { info, status: 'not_loaded', restartCount: 0 });
      else if (slot.status === 'not_loaded') slot.info = info;
    }
    for (const [name, slot] of this.slots)
      if (!known.has(name) && slot.status === 'not_loaded') this.slots.delete(name);
  }

  private serve(socket: Socket): void {
    socket.on('error', () => socket.destroy());
    // a connection that sends no request line in time is closed (so `daemon stop` does not wait on it)
    socket.setTimeout(REQUEST_IDLE_MS, () => socket.destroy());
    readLines(
      socket,
      (j) => {
        socket.setTimeout(0);
        void this.handle(j, socket).catch((e: unknown) => {
          this.log.error({ err: (e as Error).message }, 'request failed');
          writeLine(socket, err('INTERNAL_ERROR', (e as Error).message));
          socket.end();
        });
      },
      (e) => {
        socket.setTimeout(0);
        if (e instanceof LineTooLong) {
          this.log.warn('request line too long; connection dropped');
          socket.destroy();
          return;
        }
        writeLine(socket, err('INVALID_REQUEST', 'The request is not JSON.'));
        socket.end();
      },
      { maxLine: MAX_REQUEST_LINE, once: true },
    );
  }

  private async handle(j: Json, socket: Socket): Promise<void> {
    const reply = (r: Reply): void => {
      writeLine(socket, r);
      socket.end();
    };
    if (!isJsonObject(j) || typeof j.cmd !== 'string' || !isJsonObject(j.params ?? {})) {
      reply(err('INVALID_REQUEST', 'Malformed request.'));
      return;
    }
    if (typeof j.token !== 'string' || this.session.tokens.accepts(j.token) === undefined) {
      reply(err('UNAUTHORIZED', 'Invalid or missing token.'));
      return;
    }
    const p = (j.params ?? {}) as Reply;
    const str = (k: string): string => (typeof p[k] === 'string' ? (p[k] as string) : '');
    switch (j.cmd) {
      case 'status':
        return reply(this.status());
      case 'ls':
        return reply({ status: 'ok', modules: this.list(p.loaded === true) });
      case 'show':
        return reply(this.show(str('name')));
      case 'load':
        return reply(await this.serial(() => this.load(str('name'))));
      case 'unload':
        return reply(await this.serial(() => this.unload(str('name'), p.dependents !== false)));
      case 'reload':
        return reply(await this.serial(() => this.reload(str('name'))));
      case 'stats':
        return reply({ status: 'ok', stats: await this.stats() });
      case 'call':
        return reply(await this.call(str('module'), str('method'), Array.isArray(p.args) ? p.args : []));
      case 'watch':
        return this.watch(str('module'), typeof p.event === 'string' ? p.event : undefined, socket);
      case 'package_plan':
      case 'package_apply':
        return reply(await this.serial(() => this.packageOp(j.cmd === 'package_apply', p)));
      case 'package_download':
        return reply(await this.packageDownload(p));
      case 'stop':
        reply({ status: 'ok', message: `daemon ${process.pid} stopping` });
        void this.stop();
        return;
      default:
        return reply(err('INVALID_REQUEST', `Unknown command ${j.cmd}.`));
    }
  }

  /** The daemon as the package operations see it. */
  private readonly backend: PackageBackend = {
    call: async (module, method, args) => {
      const slot = this.slots.get(module);
      if (slot?.proc === undefined || slot.status !== 'loaded') return null;
      return slot.proc.call(method, args).catch((e: unknown) => {
        this.log.warn({ module, method, err: (e as Error).message }, 'module call failed');
        return null;
      });
    },
    loadedModules: () =>
      [...this.slots.values()].filter((s) => s.status === 'loaded').map((s) => s.info.name),
    unloadModule: async (name) => {
      const slot = this.slots.get(name);
      if (slot === undefined || slot.status === 'not_loaded') return [];
      const r = await this.unload(name, true);
      return r.status === 'ok' ? [...(r.dependents_unloaded as string[]), name] : [];
    },
    loadModule: async (name) => (await this.load(name)).status === 'ok',
    refreshModules: () => this.rescan(),
  };

  /** The `opts` of a package request, or the error reply for mistyped ones. */
  private packageOptions(p: Reply): { opts: ReturnType<typeof readOptions> } | { error: Reply } {
    try {
      return { opts: readOptions((p.opts ?? {}) as Reply) };
    } catch (e) {
      return { error: err('INVALID_ARGS', (e as Error).message) };
    }
  }

  private async packageOp(doApply: boolean, p: Reply): Promise<Reply> {
    const op = p.op;
    if (op !== 'install' && op !== 'upgrade' && op !== 'remove')
      return err('INVALID_ARGS', 'op: expected install, upgrade or remove');
    const names = p.names ?? [];
    if (!Array.isArray(names) || !names.every((n) => typeof n === 'string'))
      return err('INVALID_ARGS', 'names: expected a list of package names');
    const o = this.packageOptions(p);
    if ('error' in o) return o.error;
    const run = doApply ? apply : plan;
    const r = await run(this.backend, op as Op, names as string[], o.opts);
    this.log.info({ op, names, apply: doApply, status: r.status, code: r.code }, 'package operation');
    return r;
  }

  private async packageDownload(p: Reply): Promise<Reply> {
    if (typeof p.name !== 'string' || p.name === '')
      return err('INVALID_ARGS', 'name: expected a package name');
    const o = this.packageOptions(p);
    if ('error' in o) return o.error;
    return download(this.backend, p.name, o.opts, typeof p.output === 'string' ? p.output : '');
  }

  private entry(slot: Slot): Reply {
    const e: Reply = { name: slot.info.name, status: slot.status, version: slot.info.version };
    if (slot.status === 'loaded' && slot.startedAt !== undefined)
      e.uptime_seconds = Math.floor((Date.now() - slot.startedAt) / 1000);
    if (slot.restartCount > 0 || slot.status === 'crashed') e.restart_count = slot.restartCount;
    return e;
  }

  private list(loadedOnly: boolean): Reply[] {
    this.rescan();
    return [...this.slots.values()]
      .filter((s) => !loadedOnly || s.status === 'loaded')
      .map((s) => this.entry(s));
  }

  private status(): Reply {
    const modules = this.list(false);
    const count = (st: string): number => modules.filter((m) => m.status === st).length;
    return {
      daemon: {
        status: 'running',
        pid: process.pid,
        uptime_seconds: Math.floor((Date.now() - this.startedAt) / 1000),
        version: LOGOSCTL_VERSION,
        instance_id: this.instanceId,
        socket: this.session.socketPath,
      },
      modules_summary: {
        loaded: count('loaded'),
        crashed: count('crashed'),
        not_loaded: count('not_loaded'),
      },
      modules,
    };
  }

  private show(name: string): Reply {
    this.rescan();
    const slot = this.slots.get(name);
    if (slot === undefined) return err('MODULE_NOT_FOUND', `Module '${name}' not found.`);
    const d = slot.proc?.description;
    const r: Reply = {
      ...this.entry(slot),
      dependencies: [...(d?.dependencies ?? slot.info.dependencies)],
      source: slot.info.source,
      path: slot.info.main,
    };
    if (d) {
      r.methods = [...d.methods];
      r.events = [...d.events];
      if (slot.proc?.pid !== undefined) r.pid = slot.proc.pid;
    }
    if (slot.lastError !== undefined) r.crash = slot.lastError;
    return r;
  }

  private known(): Json[] {
    return [...this.slots.keys()].sort();
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Loads a module and, first, its dependencies (transitively). */
  async load(name: string): Promise<Reply> {
    this.rescan();
    const order: string[] = [];
    const visiting = new Set<string>();
    const visit = (n: string, from: string | undefined): string | undefined => {
      const slot = this.slots.get(n);
      if (slot === undefined)
        return from === undefined
          ? `Module '${n}' not found.`
          : `Module '${from}' depends on '${n}', which is not known.`;
      if (order.includes(n)) return undefined;
      if (visiting.has(n)) return `Dependency cycle through '${n}'.`;
      visiting.add(n);
      for (const dep of slot.info.dependencies) {
        const e = visit(dep, n);
        if (e) return e;
      }
      visiting.delete(n);
      order.push(n);
      return undefined;
    };
    const problem = visit(name, undefined);
    if (problem) return err('MODULE_LOAD_FAILED', problem, { known_modules: this.known() });
    const loadedDeps: Json[] = [];
    for (const n of order) {
      const slot = this.slots.get(n)!;
      if (slot.status === 'loaded') continue;
      try {
        await this.startSlot(slot);
      } catch (e) {
        return err('MODULE_LOAD_FAILED', `Failed to load module '${n}': ${(e as Error).message}`, {
          known_modules: this.known(),
        });
      }
      if (n !== name) loadedDeps.push(n);
    }
    const slot = this.slots.get(name)!;
    return { status: 'ok', module: name, version: slot.info.version, dependencies_loaded: loadedDeps };
  }

  private async startSlot(slot: Slot): Promise<void> {
    clearTimeout(slot.restartTimer);
    slot.restartTimer = undefined;
    const name = slot.info.name;
    const mlog = this.log.child({ module: name });
    const proc = await ModuleProcess.start(name, slot.info.main, {
      cwd: process.cwd(),
      dataDir: this.session.dataDir(name),
      onLog: (line) => mlog.info({ out: line }, 'module output'),
    });
    slot.proc = proc;
    slot.status = 'loaded';
    slot.startedAt = Date.now();
    slot.lastError = undefined;
    proc.on('event', (event: string, payload: Json) => this.publish(name, event, payload));
    proc.on('exit', (how: string) => this.crashed(slot, proc, how));
    mlog.info({ module_pid: proc.pid, version: proc.description?.version }, 'module loaded');
  }

  private crashed(slot: Slot, proc: ModuleProcess, how: string): void {
    if (slot.proc !== proc) return;
    const ranFor = Date.now() - (slot.startedAt ?? 0);
    if (ranFor >= STABLE_MS) slot.restartCount = 0;
    slot.proc = undefined;
    slot.status = 'crashed';
    slot.startedAt = undefined;
    slot.restartCount += 1;
    slot.lastError = `module process ${how}`;
    this.log.error({ module: slot.info.name, how, restart_count: slot.restartCount }, 'module crashed');
    if (slot.restartCount > this.policy.maxRestarts || this.stopping) return;
    const delay = Math.min(this.policy.backoffMs * 2 ** (slot.restartCount - 1), MAX_TIMER_MS);
    slot.restartTimer = setTimeout(() => {
      slot.restartTimer = undefined;
      if (slot.status !== 'crashed' || this.stopping) return;
      this.startSlot(slot).catch((e: unknown) => {
        slot.lastError = `restart failed: ${(e as Error).message}`;
        this.log.error({ module: slot.info.name, reason: (e as Error).message }, 'module restart failed');
      });
    }, delay);
  }

  /** Unloads a module, and first the loaded modules that depend on it (unless `dependents` is false). */
  async unload(name: string, dependents: boolean): Promise<Reply> {
    const slot = this.slots.get(name);
    if (slot === undefined) return err('MODULE_NOT_FOUND', `Module '${name}' not found.`);
    if (slot.status === 'not_loaded') return err('MODULE_NOT_LOADED', `Module '${name}' is not loaded.`);
    const users = [...this.slots.values()].filter(
      (s) => s.status !== 'not_loaded' && s.info.dependencies.includes(name),
    );
    if (users.length > 0 && !dependents)
      return err(
        'MODULE_UNLOAD_FAILED',
        `Module '${name}' is needed by ${users.map((u) => u.info.name).join(', ')}.`,
      );
    const unloaded: Json[] = [];
    for (const u of users) {
      const r = await this.unload(u.info.name, true);
      if (r.status === 'error') return r;
      unloaded.push(...(r.dependents_unloaded as Json[]), u.info.name);
    }
    await this.stopSlot(slot);
    return { status: 'ok', module: name, dependents_unloaded: unloaded };
  }

  /** Unloads a module (with its dependents) and loads it and those dependents again. */
  async reload(name: string): Promise<Reply> {
    const un = await this.unload(name, true);
    if (un.status === 'error' && un.code !== 'MODULE_NOT_LOADED') return un;
    const r = await this.load(name);
    if (r.status === 'error') return r;
    const dependents = un.status === 'ok' ? (un.dependents_unloaded as string[]) : [];
    for (const d of [...dependents].reverse()) {
      const again = await this.load(d);
      if (again.status === 'error') return again;
    }
    return { ...r, dependents_reloaded: dependents };
  }

  private async stopSlot(slot: Slot): Promise<void> {
    clearTimeout(slot.restartTimer);
    slot.restartTimer = undefined;
    const proc = slot.proc;
    slot.proc = undefined;
    slot.status = 'not_loaded';
    slot.startedAt = undefined;
    slot.restartCount = 0;
    slot.lastError = undefined;
    for (const w of this.watchers) if (w.module === slot.info.name) w.socket.end();
    if (proc) await proc.close();
    this.log.info({ module: slot.info.name }, 'module unloaded');
  }

  /**
   * Per loaded module: its process id, CPU use over the process's life (% of one core) and resident
   * memory (MB), as the host process reports them.
   */
  private async stats(): Promise<Reply[]> {
    const out: Reply[] = [];
    for (const slot of this.slots.values()) {
      const pid = slot.proc?.pid;
      const s = slot.status === 'loaded' ? await slot.proc?.stats() : null;
      if (pid === undefined || !s) continue;
      out.push({
        name: slot.info.name,
        pid,
        cpu_percent: new JsonFloat(s.uptimeMicros > 0 ? (100 * s.cpuMicros) / s.uptimeMicros : 0),
        memory_mb: new JsonFloat(s.rssBytes / (1024 * 1024)),
      });
    }
    return out;
  }

  private async call(module: string, method: string, args: Json[]): Promise<Reply> {
    const slot = this.slots.get(module);
    if (slot?.proc === undefined || slot.status !== 'loaded')
      return err(
        'MODULE_NOT_LOADED',
        `Module '${module}' is not loaded. Load it with: logosctl module load ${module}`,
      );
    let result: Json | null;
    try {
      result = await slot.proc.call(method, args);
    } catch (e) {
      if (!(e instanceof CallTimeout)) throw e;
      this.log.warn({ module, method }, 'module call timed out');
      return err('METHOD_FAILED', `Call to ${module}.${method} failed: no answer in time.`);
    }
    if (result === null) return err('METHOD_FAILED', `Call to ${module}.${method} failed.`);
    return { status: 'ok', module, method, result };
  }

  private watch(module: string, event: string | undefined, socket: Socket): void {
    const slot = this.slots.get(module);
    if (slot?.status !== 'loaded') {
      writeLine(
        socket,
        err(
          'MODULE_NOT_LOADED',
          `Module '${module}' is not loaded. Load it with: logosctl module load ${module}`,
        ),
      );
      socket.end();
      return;
    }
    const w = { module, event, socket };
    this.watchers.add(w);
    socket.on('close', () => this.watchers.delete(w));
    writeLine(socket, { status: 'ok', module, watching: event ?? '*' });
  }

  private publish(module: string, event: string, payload: Json): void {
    for (const w of this.watchers) {
      if (w.module !== module || (w.event !== undefined && w.event !== event)) continue;
      // a watcher that does not read is dropped rather than buffered without end
      if (w.socket.writableLength > MAX_WATCH_BACKLOG) {
        this.log.warn({ module, backlog: w.socket.writableLength }, 'watcher not reading; dropped');
        this.watchers.delete(w);
        w.socket.destroy();
        continue;
      }
      writeLine(w.socket, { module, event, data: payload });
    }
  }

  /** Unloads every module (dependents first), closes the socket, removes `state.json`. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      this.log.info('daemon stopping');
      // a package operation stuck on a module is not waited for long: unloading ends that module
      let waited: NodeJS.Timeout | undefined;
      await Promise.race([
        this.queue,
        new Promise<void>((r) => {
          waited = setTimeout(() => {
            this.log.warn('a package operation is still running; stopping anyway');
            r();
          }, STOP_QUEUE_WAIT_MS);
        }),
      ]);
      clearTimeout(waited);
      const loaded = [...this.slots.values()].filter((s) => s.status !== 'not_loaded').reverse();
      for (const s of loaded) {
        if (s.status !== 'not_loaded') await this.unload(s.info.name, true).catch(() => undefined);
      }
      for (const w of this.watchers) w.socket.end();
      await new Promise<void>((r) => (this.server ? this.server.close(() => r()) : r()));
      this.session.removeState();
      this.lock.release();
      this.log.info('daemon stopped');
      this.log.flush?.();
      this.onStopped();
    })();
    return this.stopping;
  }
}

export { AlreadyRunning };

/** Whether a daemon answers on this socket. */
async function answers(socketPath: string): Promise<boolean> {
  try {
    const s = await dial(socketPath);
    s.destroy();
    return true;
  } catch {
    return false;
  }
}
