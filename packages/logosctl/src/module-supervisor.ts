/**
 * The daemon's module supervisor (operator.md §1.3-§1.5; `core_service_impl.cpp` of logos-logoscore-cli
 * @1a4f56fe): the known modules (rescanned from the modules folders, the state of loaded ones kept),
 * `load` (dependencies first, transitively), `unload` (dependents first), `reload`, `show`, `stats`, and
 * calls into a loaded module's host process.
 *
 * A module process that ends on its own is `crashed`: its pending calls fail, `restart_count` grows, and
 * it is restarted after `backoff_ms` × 2^(n-1) (1 s, 2 s, 4 s) up to `max_restarts` (3) times in a row;
 * both settable under `restart_policy:` in `daemon/config.yaml` (a key of this implementation; the
 * reference's `modules:` holds per-module transports). A run of 60 s without a crash clears the series.
 * The daemon itself never ends with a module.
 */
import { type Json, JsonFloat } from '@logos-ts/shared/json';
import type { Logger } from 'pino';
import { MAX_TIMER_MS, type RestartPolicy } from './daemon-config.ts';
import { CallTimeout, ModuleProcess } from './module-process.ts';
import { type ModuleInfo, scanModules } from './registry.ts';
import type { Session } from './session.ts';

export type Reply = { [k: string]: Json };

/** An error reply of the daemon's protocol. */
export const errorReply = (code: string, message: string, extra: Reply = {}): Reply => ({
  ...extra,
  status: 'error',
  code,
  message,
});

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

export interface SupervisorHooks {
  /** An event a loaded module emitted. */
  onEvent(module: string, event: string, payload: Json): void;
  /** A module is being unloaded (its watchers end). */
  onUnload(module: string): void;
  /** Whether the daemon is stopping (crashed modules are then not restarted). */
  stopping(): boolean;
}

export class ModuleSupervisor {
  private readonly slots = new Map<string, Slot>();
  private readonly badManifests = new Set<string>();

  constructor(
    private readonly session: Session,
    private readonly log: Logger,
    private readonly policy: RestartPolicy,
    private readonly modulesDirs: readonly string[],
    private readonly hooks: SupervisorHooks,
  ) {}

  /** Re-reads the known modules, keeping the state of loaded ones. */
  rescan(): void {
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

  /** Whether a module is loaded. */
  isLoaded(name: string): boolean {
    return this.slots.get(name)?.status === 'loaded';
  }

  /** Whether a module is known and not `not_loaded` (loaded or crashed). */
  isActive(name: string): boolean {
    const slot = this.slots.get(name);
    return slot !== undefined && slot.status !== 'not_loaded';
  }

  /** The names of the loaded modules. */
  loadedNames(): string[] {
    return [...this.slots.values()].filter((s) => s.status === 'loaded').map((s) => s.info.name);
  }

  private entry(slot: Slot): Reply {
    const e: Reply = { name: slot.info.name, status: slot.status, version: slot.info.version };
    if (slot.status === 'loaded' && slot.startedAt !== undefined)
      e.uptime_seconds = Math.floor((Date.now() - slot.startedAt) / 1000);
    if (slot.restartCount > 0 || slot.status === 'crashed') e.restart_count = slot.restartCount;
    return e;
  }

  /** The `ls` entries (every known module, or the loaded ones). */
  list(loadedOnly: boolean): Reply[] {
    this.rescan();
    return [...this.slots.values()]
      .filter((s) => !loadedOnly || s.status === 'loaded')
      .map((s) => this.entry(s));
  }

  /** `show`: a module's entry, dependencies, source, methods and events once loaded, crash detail. */
  show(name: string): Reply {
    this.rescan();
    const slot = this.slots.get(name);
    if (slot === undefined) return errorReply('MODULE_NOT_FOUND', `Module '${name}' not found.`);
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
    if (problem) return errorReply('MODULE_LOAD_FAILED', problem, { known_modules: this.known() });
    const loadedDeps: Json[] = [];
    for (const n of order) {
      const slot = this.slots.get(n)!;
      if (slot.status === 'loaded') continue;
      try {
        await this.startSlot(slot);
      } catch (e) {
        return errorReply('MODULE_LOAD_FAILED', `Failed to load module '${n}': ${(e as Error).message}`, {
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
    proc.on('event', (event: string, payload: Json) => this.hooks.onEvent(name, event, payload));
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
    if (slot.restartCount > this.policy.maxRestarts || this.hooks.stopping()) return;
    const delay = Math.min(this.policy.backoffMs * 2 ** (slot.restartCount - 1), MAX_TIMER_MS);
    slot.restartTimer = setTimeout(() => {
      slot.restartTimer = undefined;
      if (slot.status !== 'crashed' || this.hooks.stopping()) return;
      this.startSlot(slot).catch((e: unknown) => {
        slot.lastError = `restart failed: ${(e as Error).message}`;
        this.log.error({ module: slot.info.name, reason: (e as Error).message }, 'module restart failed');
      });
    }, delay);
  }

  /** Unloads a module, and first the loaded modules that depend on it (unless `dependents` is false). */
  async unload(name: string, dependents: boolean): Promise<Reply> {
    const slot = this.slots.get(name);
    if (slot === undefined) return errorReply('MODULE_NOT_FOUND', `Module '${name}' not found.`);
    if (slot.status === 'not_loaded')
      return errorReply('MODULE_NOT_LOADED', `Module '${name}' is not loaded.`);
    const users = [...this.slots.values()].filter(
      (s) => s.status !== 'not_loaded' && s.info.dependencies.includes(name),
    );
    if (users.length > 0 && !dependents)
      return errorReply(
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

  /** Unloads every loaded or crashed module, the last loaded first (each with its dependents). */
  async unloadAll(): Promise<void> {
    const loaded = [...this.slots.values()].filter((s) => s.status !== 'not_loaded').reverse();
    for (const s of loaded) {
      if (s.status !== 'not_loaded') await this.unload(s.info.name, true).catch(() => undefined);
    }
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
    this.hooks.onUnload(slot.info.name);
    if (proc) await proc.close();
    this.log.info({ module: slot.info.name }, 'module unloaded');
  }

  /**
   * Per loaded module: its process id, CPU use over the process's life (% of one core) and resident
   * memory (MB), as the host process reports them.
   */
  async stats(): Promise<Reply[]> {
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

  /**
   * A method call on a loaded module: its result, or null when the module is not loaded or answered
   * nothing; a call that gets no answer in time rejects with `CallTimeout`.
   */
  async callRaw(module: string, method: string, args: Json[]): Promise<Json | null> {
    const slot = this.slots.get(module);
    if (slot?.proc === undefined || slot.status !== 'loaded') return null;
    return slot.proc.call(method, args);
  }

  /** `call`: the `{"method","module","result","status":"ok"}` envelope, or the error reply. */
  async call(module: string, method: string, args: Json[]): Promise<Reply> {
    if (!this.isLoaded(module) || this.slots.get(module)?.proc === undefined)
      return errorReply(
        'MODULE_NOT_LOADED',
        `Module '${module}' is not loaded. Load it with: logosctl module load ${module}`,
      );
    let result: Json | null;
    try {
      result = await this.callRaw(module, method, args);
    } catch (e) {
      if (!(e instanceof CallTimeout)) throw e;
      this.log.warn({ module, method }, 'module call timed out');
      return errorReply('METHOD_FAILED', `Call to ${module}.${method} failed: no answer in time.`);
    }
    if (result === null) return errorReply('METHOD_FAILED', `Call to ${module}.${method} failed.`);
    return { status: 'ok', module, method, result };
  }
}
