/**
 * The module host: one process per loaded module (the reference's `logos_host`, operator.md §1.1), forked
 * by the daemon as `module-host.ts <module file> <name> <data dir>` with the daemon's working directory.
 * It imports the module file's default `ModuleFactory`, builds the module with its `ModuleContext`, and
 * serves calls over the IPC channel. A method's result is normalised as the reference's universal SDK
 * serialises it: a `StdLogosResult` becomes `{"error","success","value"}` (an empty error is null), a
 * boolean or JSON value passes as is, and `undefined`/`null` or a thrown error is "no result" (the
 * daemon answers `METHOD_FAILED`). Before the module file is imported, `resolve-hook.mjs` is registered, so
 * an installed package's entry resolves the tool's own files and dependencies from the tool's folder.
 */
import { mkdirSync } from 'node:fs';
import { register } from 'node:module';
import { pathToFileURL } from 'node:url';
import pino from 'pino';
import { type Json, parseJson } from '../../codec/json.ts';
import type { LogosModule, ModuleFactory, StdLogosResult } from '../module-api.ts';
import { TOOL_PACKAGE_NAME, TOOL_ROOT } from '../package/shipped.ts';
import type { FromHost, ToHost } from './ipc.ts';
import { dumpSorted } from './output.ts';

const [file, name, dataDir] = process.argv.slice(2) as [string, string, string];
register('./resolve-hook.mjs', import.meta.url, { data: { root: TOOL_ROOT, name: TOOL_PACKAGE_NAME } });
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
    if (typeof factory !== 'function') throw new Error(`${file} has no default export of a module factory`);
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
