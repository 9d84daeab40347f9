/** Runs the node's CLI in-process (errors thrown, not exiting) and collects what it prints. */
import type { Command } from 'commander';
import { buildCli } from '../../../../src/cli/index.ts';

function quiet(c: Command): void {
  c.exitOverride().configureOutput({ writeErr: () => {}, writeOut: () => {} });
  for (const sub of c.commands) quiet(sub);
}

/** The lines the command printed with console.log; rejects with the command's error. */
export async function runCli(args: string[]): Promise<string[]> {
  const cli = buildCli();
  quiet(cli);
  const lines: string[] = [];
  const log = console.log;
  console.log = (...a: unknown[]) => {
    lines.push(a.map(String).join(' '));
  };
  try {
    await cli.parseAsync(['node', 'logos-node', ...args]);
  } finally {
    console.log = log;
  }
  return lines;
}
