/**
 * The two shapes of a command that is one module call through the daemon (catalog and key commands):
 * a listing (a list, printed as JSON or by a human printer) and a mutation (`{success, error?}`; a
 * failure prints the error with the command's code and exits 1).
 */
import { isJsonObject, type Json } from '@logos-ts/shared/json';
import type { Command } from 'commander';
import { type CtlContext, line, type Reply, str } from './context.ts';

/** A listing command: a module call answering a list, printed as JSON or by `human`. */
export function listing(
  c: CtlContext,
  cmd: Command,
  module: string,
  method: string,
  human: (list: Reply[]) => void,
): void {
  cmd.action(async () => {
    const { out } = c.ctx();
    const r = await c.callModule(module, method);
    if (r === undefined) return;
    const list = (Array.isArray(r) ? r : []) as Reply[];
    c.print(out, list, () => human(list));
  });
}

/** A command whose module call answers `{success, error?}`. */
export function mutation<A extends unknown[]>(
  c: CtlContext,
  cmd: Command,
  module: string,
  method: string,
  code: string,
  args: (...a: A) => Json[],
  done: (...a: A) => string,
): void {
  cmd.action(async (...a: A) => {
    const { out } = c.ctx();
    const r = await c.callModule(module, method, args(...a));
    if (r === undefined) return;
    const res = (isJsonObject(r) ? r : {}) as Reply;
    if (res.success !== true) return c.fail(out, code, str(res.error) || `${method} failed`);
    c.print(out, { status: 'ok', ...res }, () => {
      line(done(...a));
      for (const e of (res.errors ?? []) as Reply[]) line(`  error: ${str(e.url)}: ${str(e.error)}`);
    });
  });
}
