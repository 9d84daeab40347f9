/**
 * `logosctl daemon status` (and the shorthand `status`): health, uptime and the module summary; without
 * a daemon `not_running` and exit 1 (output.cpp printStatus @1a4f56fe).
 */
import { CtlError } from '../client.ts';
import { formatUptime } from '../output.ts';
import type { CtlContext, Reply } from './context.ts';
import { moduleRows } from './module-table.ts';

export async function statusAction(c: CtlContext): Promise<void> {
  const { out, client } = c.ctx();
  let r: Reply;
  try {
    r = await client.send('status');
  } catch (e) {
    if (!(e instanceof CtlError) || e.code !== 'NO_DAEMON') throw e;
    r = { daemon: { status: 'not_running', reason: e.message } };
    c.exitCode = 1;
  }
  if (out.json) out.data(r);
  else printStatus(r);
}

/** `daemon status` in human mode. */
function printStatus(r: Reply): void {
  const d = (r.daemon ?? {}) as Reply;
  const lines = ['Logosctl Daemon', `  Status:       ${d.status}`];
  if (d.status === 'not_running') {
    lines.push('', 'No daemon found.', 'Run "logosctl daemon start --detach" to start the daemon.');
    process.stdout.write(`${lines.join('\n')}\n`);
    return;
  }
  lines.push(
    `  PID:          ${d.pid}`,
    `  Uptime:       ${formatUptime(Number(d.uptime_seconds))}`,
    `  Version:      v${d.version}`,
  );
  if (d.instance_id) lines.push(`  Instance ID:  ${d.instance_id}`);
  if (d.socket) lines.push(`  Socket:       ${d.socket}`);
  const s = (r.modules_summary ?? {}) as Reply;
  lines.push('', `Modules: ${s.loaded} loaded, ${s.crashed} crashed, ${s.not_loaded} not loaded`);
  lines.push(...moduleRows((r.modules ?? []) as Reply[], '  ', false));
  process.stdout.write(`${lines.join('\n')}\n`);
}
