/** `logosctl daemon start|stop|status|config` and the shorthands `stop` and `status`. */
import type { Command } from 'commander';
import type { CtlContext } from './context.ts';
import { addDaemonConfigCommand } from './daemon-config.ts';
import { addDaemonStartCommand } from './daemon-start.ts';
import { statusAction } from './status.ts';
import { stopAction } from './stop.ts';

export function addDaemonCommands(program: Command, c: CtlContext): void {
  const daemon = program.command('daemon').description('start, stop and inspect the daemon');
  addDaemonStartCommand(daemon, c);
  addDaemonConfigCommand(daemon, c);
  daemon
    .command('stop')
    .description('graceful shutdown')
    .action(() => stopAction(c));
  daemon
    .command('status')
    .description('health, uptime, module summary')
    .action(() => statusAction(c));
  program
    .command('stop')
    .description('shorthand for daemon stop')
    .action(() => stopAction(c));
  program
    .command('status')
    .description('shorthand for daemon status')
    .action(() => statusAction(c));
}
