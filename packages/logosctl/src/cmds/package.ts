/**
 * `logosctl package install|upgrade|remove|ls|show|deps|search|download` and the shorthands `install`
 * and `search` (operator.md §1.6). Failures print `{"code","message","status":"error"}` (JSON) or
 * `Error: …` (human) and exit 1, except those of the daemon connection (2) and of module loading (3).
 */
import type { Command } from 'commander';
import type { CtlContext } from './context.ts';
import { addPackageDepsCommand } from './package-deps.ts';
import { addPackageDownloadCommand } from './package-download.ts';
import { addPackageLsCommand } from './package-ls.ts';
import { withMutateOptions } from './package-mutate.ts';
import { addPackageShowCommand } from './package-show.ts';
import { addSearchCommand } from './search.ts';

export function addPackageCommands(program: Command, c: CtlContext): void {
  const pkg = program.command('package').description('install, remove, list and find packages');
  withMutateOptions(
    pkg.command('install [names...]').description('install packages (catalog names or .lgx files)'),
    'install',
    c,
  );
  withMutateOptions(pkg.command('upgrade [names...]').description('upgrade packages'), 'upgrade', c);
  withMutateOptions(
    pkg.command('remove [names...]').alias('uninstall').description('remove packages (and their dependents)'),
    'remove',
    c,
  );
  withMutateOptions(
    program.command('install [names...]').description('shorthand for package install'),
    'install',
    c,
  );
  addPackageLsCommand(pkg, c);
  addPackageShowCommand(pkg, c);
  addPackageDepsCommand(pkg, c);
  addSearchCommand(pkg, 'search the catalogs', c);
  addSearchCommand(program, 'shorthand for package search', c);
  addPackageDownloadCommand(pkg, c);
}
