/**
 * The daemon's request dispatch (operator.md §1.3-§1.6; `core_service_impl.cpp` of logos-logoscore-cli
 * @1a4f56fe): one JSON request line per connection, `{"cmd","params","token"}`, checked and answered
 * with one reply line (a `watch` connection stays open for events). Every request must carry a token
 * `daemon/tokens.json` accepts at that moment. It answers `status`, `ls`, `show`, `load`, `unload`,
 * `reload`, `stats`, `call`, `watch`, the package operations (`package_plan`, `package_apply`,
 * `package_download`, package-ops.ts) and `stop`. Loads, unloads and package operations run one at a
 * time, so two clients never start the same module twice.
 */
import type { Socket } from 'node:net';
import { isJsonObject, type Json } from '@logos-ts/shared/json';
import type { Logger } from 'pino';
import type { Watchers } from './daemon-watchers.ts';
import { errorReply as err, type ModuleSupervisor, type Reply } from './module-supervisor.ts';
import { apply, download, type Op, type PackageBackend, plan, readOptions } from './package-ops.ts';
import { LineTooLong, readLines, writeLine } from './rpc.ts';
import type { Session } from './session.ts';

/** The longest request line (characters) a client may send; room for `call … @file` chunk uploads. */
const MAX_REQUEST_LINE = 16 * 1024 * 1024;
/** How long a new connection may take to send its request line. */
const REQUEST_IDLE_MS = 30_000;

export interface DispatchHooks {
  /** The `status` reply. */
  status(): Reply;
  /** Stops the daemon (after the `stop` reply is sent). */
  stop(): void;
}

export class Dispatch {
  /** Loads, unloads and package operations run one at a time. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly session: Session,
    private readonly log: Logger,
    private readonly modules: ModuleSupervisor,
    private readonly watchers: Watchers,
    private readonly hooks: DispatchHooks,
  ) {}

  /** Settles when the queued operations have (the daemon's stop waits for it). */
  idle(): Promise<unknown> {
    return this.queue;
  }

  /** Serves one connection. */
  serve(socket: Socket): void {
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
    const m = this.modules;
    switch (j.cmd) {
      case 'status':
        return reply(this.hooks.status());
      case 'ls':
        return reply({ status: 'ok', modules: m.list(p.loaded === true) });
      case 'show':
        return reply(m.show(str('name')));
      case 'load':
        return reply(await this.serial(() => m.load(str('name'))));
      case 'unload':
        return reply(await this.serial(() => m.unload(str('name'), p.dependents !== false)));
      case 'reload':
        return reply(await this.serial(() => m.reload(str('name'))));
      case 'stats':
        return reply({ status: 'ok', stats: await m.stats() });
      case 'call':
        return reply(await m.call(str('module'), str('method'), Array.isArray(p.args) ? p.args : []));
      case 'watch': {
        const module = str('module');
        const event = typeof p.event === 'string' ? p.event : undefined;
        return this.watchers.watch(module, event, socket, m.isLoaded(module));
      }
      case 'package_plan':
      case 'package_apply':
        return reply(await this.serial(() => this.packageOp(j.cmd === 'package_apply', p)));
      case 'package_download':
        return reply(await this.packageDownload(p));
      case 'stop':
        reply({ status: 'ok', message: `daemon ${process.pid} stopping` });
        this.hooks.stop();
        return;
      default:
        return reply(err('INVALID_REQUEST', `Unknown command ${j.cmd}.`));
    }
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** The daemon as the package operations see it. */
  private readonly backend: PackageBackend = {
    call: async (module, method, args) =>
      this.modules.callRaw(module, method, args).catch((e: unknown) => {
        this.log.warn({ module, method, err: (e as Error).message }, 'module call failed');
        return null;
      }),
    loadedModules: () => this.modules.loadedNames(),
    unloadModule: async (name) => {
      if (!this.modules.isActive(name)) return [];
      const r = await this.modules.unload(name, true);
      return r.status === 'ok' ? [...(r.dependents_unloaded as string[]), name] : [];
    },
    loadModule: async (name) => (await this.modules.load(name)).status === 'ok',
    refreshModules: () => this.modules.rescan(),
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
}
