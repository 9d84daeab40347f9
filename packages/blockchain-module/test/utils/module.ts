/**
 * The control tool's blockchain module in-process on a working folder, and calls that check the
 * `StdLogosResult` they answer.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import factory from '@logos-ts/blockchain-module';
import type { Json } from '@logos-ts/shared/json';
import type { LogosModule, StdLogosResult } from '@logos-ts/shared/module-api';
import { pino } from 'pino';

/** The module with `cwd` as the daemon's working directory; its events are pushed to `events`. */
export function moduleIn(
  cwd: string,
  events: { event: string; payload: Json }[] = [],
): Promise<LogosModule> | LogosModule {
  return factory({
    cwd,
    dataDir: join(cwd, 'data'),
    logger: pino({ level: 'silent' }),
    emit: (event, payload) => void events.push({ event, payload }),
  });
}

/** A method's raw result. */
export async function call(m: LogosModule, method: string, ...args: Json[]): Promise<StdLogosResult> {
  const f = m.methods[method];
  assert.ok(f, `method ${method}`);
  return (await f(...args)) as StdLogosResult;
}

/** A call's value, after checking that it succeeded. */
export async function value(m: LogosModule, method: string, ...args: Json[]): Promise<Json> {
  const r = await call(m, method, ...args);
  assert.equal(r.error, null, `${method}: ${r.error}`);
  assert.equal(r.success, true);
  return r.value;
}
