/**
 * `logosctl module stats` (and the shorthand `stats`): per loaded module, CPU and memory (output.cpp
 * printStats @1a4f56fe).
 */
import { type Json, JsonFloat } from '@logos-ts/shared/json';
import type { CtlContext, Reply } from './context.ts';

export async function statsAction(c: CtlContext): Promise<void> {
  const { out } = c.ctx();
  const r = await c.ask('stats');
  if (r === null) return;
  const list = r.stats as Reply[];
  c.print(out, list, () => printStats(list));
}

function printStats(list: readonly Reply[]): void {
  const w = Math.max(6, ...list.map((s) => String(s.name).length)) + 2;
  const num = (v: Json | undefined): number => (v instanceof JsonFloat ? v.value : Number(v));
  const lines = [`${'MODULE'.padEnd(w)}${'PID'.padEnd(8)}${'CPU%'.padEnd(8)}MEMORY`];
  for (const s of list)
    lines.push(
      `${String(s.name).padEnd(w)}${String(s.pid).padEnd(8)}${`${num(s.cpu_percent).toFixed(1)}%`.padEnd(8)}${num(s.memory_mb).toFixed(1)} MB`,
    );
  process.stdout.write(`${lines.join('\n')}\n`);
}
