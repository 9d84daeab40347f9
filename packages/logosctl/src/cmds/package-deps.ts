/**
 * `logosctl package deps NAME [-r] [--reverse]`: dependencies (or dependents) of an installed package.
 */
import type { Command } from 'commander';
import { type CtlContext, line, pad, type Reply, str } from './context.ts';

export function addPackageDepsCommand(pkg: Command, c: CtlContext): void {
  pkg
    .command('deps <name>')
    .description('dependencies (or, with --reverse, dependents) of an installed package')
    .option('-r, --recursive', 'walk the graph transitively')
    .option('--reverse', 'dependents instead of dependencies')
    .action(async (name: string, o: { recursive?: boolean; reverse?: boolean }) => {
      const { out } = c.ctx();
      const r = await c.callModule(
        'package_manager',
        o.reverse ? 'resolveFlatDependents' : 'resolveFlatDependencies',
        [name, o.recursive === true],
      );
      if (r === undefined) return;
      const nodes = (Array.isArray(r) ? r : []) as Reply[];
      c.print(out, nodes, () => {
        if (nodes.length === 0)
          return line(o.reverse ? 'Nothing depends on this package.' : 'This package has no dependencies.');
        for (const n of nodes)
          line(
            `${pad(str(n.name), 28)} ${pad(str(n.version) || '-', 12)} ${str(n.status) || str(n.installType)}`,
          );
      });
    });
}
