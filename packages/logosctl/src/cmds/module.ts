/** `logosctl module ls|show|load|unload|reload|stats`: the daemon's modules (operator.md §1.3). */
import type { Command } from 'commander';
import { dumpPretty, formatVersion } from '../output.ts';
import type { CtlContext, Reply } from './context.ts';
import { moduleRows } from './module-table.ts';
import { statsAction } from './stats.ts';

export function addModuleCommands(program: Command, c: CtlContext): void {
  const mod = program.command('module').description('list, inspect, load and unload modules');
  mod
    .command('ls')
    .alias('list')
    .description('known modules (or loaded ones)')
    .option('--loaded', 'only loaded modules')
    .action(async (o: { loaded?: boolean }) => {
      const { out } = c.ctx();
      const r = await c.ask('ls', { loaded: o.loaded === true });
      if (r === null) return;
      const list = r.modules as Reply[];
      c.print(out, list, () => process.stdout.write(`${moduleRows(list, '', true).join('\n')}\n`));
    });
  mod
    .command('show <name>')
    .alias('info')
    .description('methods, events, dependencies, crash detail')
    .action(async (name: string) => {
      const { out } = c.ctx();
      const r = await c.ask('show', { name });
      if (r === null) return;
      if (out.json) out.data(r);
      else c.say(dumpPretty(r));
    });
  mod
    .command('load <name>')
    .description('load a module and its dependencies')
    .action(async (name: string) => {
      const { out } = c.ctx();
      const r = await c.ask('load', { name });
      if (r === null) return;
      if (out.json) out.data(r);
      else {
        c.say(`Loaded module: ${name} (${formatVersion(r.version as string)})`);
        const deps = r.dependencies_loaded as string[];
        if (deps.length > 0) c.say(`  Dependencies loaded: ${deps.join(', ')}`);
      }
    });
  mod
    .command('unload <name>')
    .description('unload a module and the modules depending on it')
    .option('--no-dependents', 'refuse when loaded modules depend on it')
    .action(async (name: string, o: { dependents: boolean }) => {
      const { out } = c.ctx();
      const r = await c.ask('unload', { name, dependents: o.dependents });
      if (r === null) return;
      if (out.json) out.data(r);
      else {
        c.say(`Unloaded module: ${name}`);
        const deps = r.dependents_unloaded as string[];
        if (deps.length > 0) c.say(`  Dependents unloaded: ${deps.join(', ')}`);
      }
    });
  mod
    .command('reload <name>')
    .description('unload and load again a module (and the modules depending on it)')
    .action(async (name: string) => {
      const { out } = c.ctx();
      const r = await c.ask('reload', { name });
      if (r === null) return;
      if (out.json) out.data(r);
      else c.say(`Reloaded module: ${name} (${formatVersion(r.version as string)})`);
    });
  mod
    .command('stats')
    .description('per-module CPU and memory')
    .action(() => statsAction(c));
}
