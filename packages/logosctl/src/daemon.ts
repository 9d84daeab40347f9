/**
 * The control tool's daemon (operator.md §1.1-§1.6; `core_service_impl.cpp` of logos-logoscore-cli
 * @1a4f56fe): one process serving the local RPC on the session's Unix socket, owning the module host
 * processes. At boot it issues the `auto` token, loads the bundled modules, then publishes
 * `daemon/state.json`. It is composed of the request dispatch (daemon-dispatch.ts), the module
 * supervisor (module-supervisor.ts: load, unload, restarts, dependencies) and the event watchers
 * (daemon-watchers.ts); this file boots them, answers `status` and stops them.
 *
 * One daemon per session: `daemon/daemon.lock` is created exclusively at start (a stale lock of a dead
 * process is taken over) and removed at stop, so of two starts at the same instant exactly one wins.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:net';
import { PassThrough } from 'node:stream';
import pino, { type Logger } from 'pino';
import { configuredModulesDirs, type RestartPolicy, restartPolicy } from './daemon-config.ts';
import { Dispatch } from './daemon-dispatch.ts';
import { Watchers } from './daemon-watchers.ts';
import { AlreadyRunning } from './errors.ts';
import { DaemonLock } from './lock.ts';
import { loggingConfig, RotatingLog } from './log-file.ts';
import { ModuleSupervisor, type Reply } from './module-supervisor.ts';
import { BUNDLED } from './registry.ts';
import { dial } from './rpc.ts';
import { processAlive, type Session } from './session.ts';
import { LOGOSCTL_VERSION } from './version.ts';

/** How long `daemon stop` waits for a running package operation. */
const STOP_QUEUE_WAIT_MS = 30_000;

export class Daemon {
  private server: Server | undefined;
  private readonly startedAt = Date.now();
  private readonly instanceId = randomUUID();
  private stopping: Promise<void> | undefined;
  private readonly watchers: Watchers;
  private readonly modules: ModuleSupervisor;
  private readonly dispatch: Dispatch;

  private constructor(
    private readonly session: Session,
    private readonly log: Logger,
    policy: RestartPolicy,
    modulesDirs: readonly string[],
    private readonly onStopped: () => void,
    private readonly lock: DaemonLock,
  ) {
    this.watchers = new Watchers(log);
    this.modules = new ModuleSupervisor(session, log, policy, modulesDirs, {
      onEvent: (module, event, payload) => this.watchers.publish(module, event, payload),
      onUnload: (module) => this.watchers.endModule(module),
      stopping: () => this.stopping !== undefined,
    });
    this.dispatch = new Dispatch(session, log, this.modules, this.watchers, {
      status: () => this.status(),
      stop: () => {
        void this.stop();
      },
    });
  }

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
    this.modules.rescan();
    this.server = createServer((s) => this.dispatch.serve(s));
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(this.session.socketPath, () => resolve());
    });
    for (const m of BUNDLED) {
      const r = await this.modules.load(m.name);
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

  /** Loads a module and, first, its dependencies (transitively). */
  load(name: string): Promise<Reply> {
    return this.modules.load(name);
  }

  /** Unloads a module, and first the loaded modules that depend on it (unless `dependents` is false). */
  unload(name: string, dependents: boolean): Promise<Reply> {
    return this.modules.unload(name, dependents);
  }

  /** Unloads a module (with its dependents) and loads it and those dependents again. */
  reload(name: string): Promise<Reply> {
    return this.modules.reload(name);
  }

  private status(): Reply {
    const modules = this.modules.list(false);
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

  /** Unloads every module (dependents first), closes the socket, removes `state.json`. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      this.log.info('daemon stopping');
      // a package operation stuck on a module is not waited for long: unloading ends that module
      let waited: NodeJS.Timeout | undefined;
      await Promise.race([
        this.dispatch.idle(),
        new Promise<void>((r) => {
          waited = setTimeout(() => {
            this.log.warn('a package operation is still running; stopping anyway');
            r();
          }, STOP_QUEUE_WAIT_MS);
        }),
      ]);
      clearTimeout(waited);
      await this.modules.unloadAll();
      this.watchers.endAll();
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
