/**
 * The module host: one process per loaded module (the reference's `logos_host`, operator.md §1.1), forked
 * by the daemon as `module-host.ts <module file> <name> <data dir>` with the daemon's working directory.
 * It imports the module file's default `ModuleFactory`, builds the module with its `ModuleContext`, and
 * serves calls over the IPC channel. A method's result is normalised as the reference's universal SDK
 * serialises it: a `StdLogosResult` becomes `{"error","success","value"}` (an empty error is null), a
 * boolean or JSON value passes as is, and `undefined`/`null` or a thrown error is "no result" (the
 * daemon answers `METHOD_FAILED`). An installed package's entry imports its module by package name
 * (`export { default } from '@logos-ts/storage-module'`) from the session's folder, where no
 * `node_modules` is: a resolve hook, registered before the module file is imported, resolves a bare
 * specifier the importing file cannot find as the tool itself would, from the host's own package.
 */
import '@logos-ts/shared/polyfills';
import { mkdirSync } from 'node:fs';
import { register } from 'node:module';
import { pathToFileURL } from 'node:url';
import { type Json, parseJson } from '@logos-ts/shared/json';
import type { LogosModule, ModuleFactory, StdLogosResult } from '@logos-ts/shared/module-api';
import pino from 'pino';
import { ModuleFileError } from './errors.ts';
import type { FromHost, ToHost } from './ipc.ts';
import { dumpSorted } from './output.ts';

const [file, name, dataDir] = process.argv.slice(2) as [string, string, string];
/**
 * The resolve hook (it runs on the loader thread, so it is plain JavaScript, given as a data URL): a bare
 * specifier not found from the importing file is resolved again from `parentURL`, this host's module.
 */
const RESOLVE_FROM_TOOL = `data:text/javascript,${encodeURIComponent(`
let parentURL = '';
export function initialize(data) { parentURL = data.parentURL; }
const isBare = (s) => !/^(\\.{0,2}\\/|[a-zA-Z][a-zA-Z0-9+.-]*:)/.test(s);
export async function resolve(specifier, context, nextResolve) {
  try {
    return await nextResolve(specifier, context);
  } catch (e) {
    if (!isBare(specifier) || e?.code !== 'ERR_MODULE_NOT_FOUND') throw e;
    return nextResolve(specifier, { ...context, parentURL });
  }
}`)}`;
register(RESOLVE_FROM_TOOL, import.meta.url, { data: { parentURL: import.meta.url } });
// the daemon's log gets the module's lines through the host's stderr
const logger = pino({ base: { module: name } }, pino.destination(2));
/** Sends to the daemon; a closed or failing channel is logged, never thrown into module code. */
const send = (m: FromHost): void => {
  try {
    process.send?.(m, undefined, {}, (e: Error | null) => {
      if (e) logger.warn({ err: e.message, type: m.type }, 'sending to the daemon failed');
    });
  } catch (e) {
    logger.warn({ err: (e as Error).message, type: m.type }, 'sending to the daemon failed');
  }
};
// a module's stray rejected promise is logged; it does not end the host (and so the module)
process.on('unhandledRejection', (e: unknown) => {
  logger.error({ err: (e as Error)?.message ?? String(e) }, 'unhandled rejection in the module');
});

function isStdResult(v: unknown): v is StdLogosResult {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  const keys = Object.keys(v).sort().join(',');
  const r = v as Record<string, unknown>;
  return keys === 'error,success,value' && typeof r.success === 'boolean';
}

function normalise(v: unknown): Json | undefined {
  if (v === undefined || v === null) return undefined;
  if (isStdResult(v)) return { error: v.error === '' ? null : v.error, success: v.success, value: v.value };
  return v as Json;
}

async function main(): Promise<void> {
  let mod: LogosModule;
  try {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    const factory = (await import(pathToFileURL(file).href)).default as ModuleFactory;
    if (typeof factory !== 'function')
      throw new ModuleFileError(file, `${file} has no default export of a module factory`);
    mod = await factory({
      cwd: process.cwd(),
      dataDir,
      logger,
      emit: (event, payload) => {
        let text: string;
        try {
          text = dumpSorted(payload);
        } catch (e) {
          logger.warn({ event, err: (e as Error).message }, 'event payload is not JSON; dropped');
          return;
        }
        send({ type: 'event', event, payload: text });
      },
    });
  } catch (e) {
    send({ type: 'init_failed', message: (e as Error).message });
    process.disconnect?.();
    return;
  }
  process.on('message', (m: ToHost) => {
    if (m.type === 'stats') {
      const cpu = process.cpuUsage();
      send({
        type: 'stats',
        id: m.id,
        cpuMicros: cpu.user + cpu.system,
        uptimeMicros: Math.round(process.uptime() * 1e6),
        rssBytes: process.memoryUsage.rss(),
      });
      return;
    }
    if (m.type === 'close') {
      mod
        .close()
        .catch((e: unknown) => logger.error({ err: e }, 'module close failed'))
        .finally(() => {
          send({ type: 'closed' });
          process.disconnect?.();
        });
      return;
    }
    const fn = Object.hasOwn(mod.methods, m.method) ? mod.methods[m.method] : undefined;
    if (fn === undefined) {
      send({ type: 'result', id: m.id, value: null, error: `no method ${m.method}` });
      return;
    }
    Promise.resolve()
      .then(() => fn(...(parseJson(m.args) as Json[])))
      .then(
        (v) => {
          let value: string | null;
          try {
            const r = normalise(v);
            value = r === undefined ? null : dumpSorted(r);
          } catch (e) {
            logger.warn({ method: m.method, err: (e as Error).message }, 'result is not JSON');
            send({
              type: 'result',
              id: m.id,
              value: null,
              error: `the result is not JSON: ${(e as Error).message}`,
            });
            return;
          }
          send({ type: 'result', id: m.id, value });
        },
        (e: unknown) => {
          logger.warn({ method: m.method, err: (e as Error)?.message ?? String(e) }, 'method threw');
          send({ type: 'result', id: m.id, value: null, error: (e as Error)?.message ?? String(e) });
        },
      );
  });
  send({
    type: 'ready',
    name: mod.name,
    version: mod.version,
    dependencies: [...mod.dependencies],
    methods: Object.keys(mod.methods),
    events: [...mod.events],
  });
}

// the daemon going away ends the host (its channel closes)
process.on('disconnect', () => process.exit(0));
void main();
