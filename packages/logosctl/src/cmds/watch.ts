/**
 * `logosctl watch MODULE [--event NAME]`: module events as they come (client.cpp watchModuleEvents,
 * output.cpp printEvent @1a4f56fe): JSON `{"data":{"arg0":<payload>},"event","module","timestamp":
 * "<UTC, seconds>Z"}` one a line; human `[HH:MM:SS] module :: event`, `  arg0: <value>` and a blank line.
 */
import type { Command } from 'commander';
import { dumpSorted, type Output } from '../output.ts';
import { readLines } from '../rpc.ts';
import type { CtlContext, Reply } from './context.ts';

export function addWatchCommand(program: Command, c: CtlContext): void {
  program
    .command('watch <module>')
    .description('print module events as they come, one JSON line each')
    .option('--event <name>', 'only this event')
    .action(async (module: string, o: { event?: string }) => {
      const { out, client } = c.ctx();
      const s = await client.openWatch(o.event === undefined ? { module } : { module, event: o.event });
      await new Promise<void>((resolve) => {
        let first = true;
        readLines(
          s,
          (j) => {
            const r = j as Reply;
            if (first) {
              first = false;
              if (r.status === 'error') {
                c.fail(out, String(r.code), String(r.message));
                s.end();
              } else if (!out.json)
                process.stderr.write(`Watching events from '${module}'... (Ctrl+C to stop)\n`);
              return;
            }
            printEvent(out, r);
          },
          () => s.destroy(),
        );
        s.on('close', () => resolve());
        s.on('error', () => resolve());
        const end = (): void => {
          s.end();
        };
        process.once('SIGINT', end);
        process.once('SIGTERM', end);
      });
    });
}

function printEvent(out: Output, e: Reply): void {
  const timestamp = `${new Date().toISOString().slice(0, 19)}Z`;
  const data: Reply = { arg0: e.data ?? null };
  if (out.json) {
    out.data({ timestamp, module: e.module ?? null, event: e.event ?? null, data });
    return;
  }
  const value = typeof data.arg0 === 'string' ? data.arg0 : dumpSorted(data.arg0 ?? null);
  process.stdout.write(`[${timestamp.slice(11, 19)}] ${e.module} :: ${e.event}\n  arg0: ${value}\n\n`);
}
