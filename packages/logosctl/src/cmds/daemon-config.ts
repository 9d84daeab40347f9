/** `logosctl daemon config set FILE|@FILE|-` and `daemon config show`: the session's daemon/config.yaml. */
import { writeFileAtomic } from '@logos-ts/shared/atomic-file';
import type { Json } from '@logos-ts/shared/json';
import type { Command } from 'commander';
import { checkDaemonConfig, dumpConfig, InvalidConfig, readDocument } from '../daemon-config.ts';
import type { CtlContext } from './context.ts';

export function addDaemonConfigCommand(daemon: Command, c: CtlContext): void {
  const config = daemon.command('config').description('install or print the daemon configuration');
  config
    .command('set <file>')
    .description('install/replace daemon/config.yaml from FILE, @FILE or - (stdin); checked before writing')
    .action((file: string) => {
      const { out, session } = c.ctx();
      let doc: Record<string, unknown>;
      try {
        doc = checkDaemonConfig(readDocument(file, process.cwd()));
      } catch (e) {
        c.fail(out, e instanceof InvalidConfig ? 'INVALID_CONFIG' : 'IO_ERROR', (e as Error).message);
        return;
      }
      session.ensureLayout();
      writeFileAtomic(session.configPath, dumpConfig(doc), false);
      if (out.json) out.data({ status: 'ok', path: session.configPath });
      else c.say(`Wrote ${session.configPath}\nRestart the daemon for it to take effect.`);
    });
  config
    .command('show')
    .description('print daemon/config.yaml')
    .action(() => {
      const { out, session } = c.ctx();
      let doc: Record<string, unknown>;
      try {
        doc = session.readConfig();
      } catch (e) {
        c.fail(out, 'INVALID_CONFIG', (e as Error).message);
        return;
      }
      if (out.json) out.data(JSON.parse(JSON.stringify(doc)) as Json);
      else process.stdout.write(dumpConfig(doc));
    });
}
