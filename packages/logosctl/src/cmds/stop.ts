/**
 * `logosctl daemon stop` (and the shorthand `stop`): a graceful shutdown, waited for until `state.json`
 * is gone.
 */
import type { CtlContext } from './context.ts';
import { sleep } from './context.ts';

export async function stopAction(c: CtlContext): Promise<void> {
  const { out } = c.ctx();
  const r = await c.ask('stop');
  if (r === null) return;
  const { session } = c.ctx();
  // wait for the daemon to finish its shutdown (modules unloaded, state.json removed)
  for (let i = 0; i < 300 && session.readState() !== undefined; i++) await sleep(100);
  if (out.json) out.data(r);
  else c.say(`Daemon shutdown initiated: ${r.message}`);
}
