/**
 * `logosctl package ls [--type core|ui]`: installed packages (JSON array; human `NAME VERSION TYPE SOURCE`).
 */
import type { Command } from 'commander';
import { type CtlContext, line, pad, type Reply, str } from './context.ts';

export function addPackageLsCommand(pkg: Command, c: CtlContext): void {
  pkg
    .command('ls')
    .alias('list')
    .description('installed packages')
    .option('--type <type>', 'core | ui')
    .action(async (o: { type?: string }) => {
      const { out } = c.ctx();
      if (o.type !== undefined && o.type !== 'core' && o.type !== 'ui') {
        c.fail(out, 'INVALID_ARGS', 'Usage: logosctl package ls [--type core|ui]');
        return;
      }
      const method =
        o.type === 'ui'
          ? 'getInstalledUiPlugins'
          : o.type === 'core'
            ? 'getInstalledModules'
            : 'getInstalledPackages';
      const r = await c.callModule('package_manager', method);
      if (r === undefined) return;
      const list = Array.isArray(r) ? (r as Reply[]) : [];
      c.print(out, list, () => {
        if (list.length === 0) return line('No packages installed.');
        line(`${pad('NAME', 28)} ${pad('VERSION', 12)} ${pad('TYPE', 10)} SOURCE`);
        for (const p of list)
          line(
            `${pad(str(p.name), 28)} ${pad(str(p.version) || '-', 12)} ${pad(str(p.type) || '-', 10)} ${str(p.installType) || '-'}`,
          );
      });
    });
}
