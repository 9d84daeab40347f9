/** The module table of `module ls` and `daemon status` (output.cpp @1a4f56fe): columns sized to content. */
import { formatUptime, formatVersion } from '../output.ts';
import type { Reply } from './context.ts';

export function moduleRows(list: readonly Reply[], indent: string, header: boolean): string[] {
  const nameW = Math.max(header ? 4 : 0, ...list.map((m) => String(m.name).length)) + 2;
  const verW = Math.max(header ? 7 : 0, ...list.map((m) => formatVersion(m.version as string).length)) + 2;
  const row = (n: string, v: string, st: string, up: string): string =>
    `${indent}${n.padEnd(nameW)}${v.padEnd(verW)}${st.padEnd(12)}${up}`;
  const rows = list.map((m) =>
    row(
      String(m.name),
      formatVersion(m.version as string),
      String(m.status),
      typeof m.uptime_seconds === 'number' ? formatUptime(m.uptime_seconds) : '-',
    ),
  );
  return header ? [row('NAME', 'VERSION', 'STATUS', 'UPTIME'), ...rows] : rows;
}
