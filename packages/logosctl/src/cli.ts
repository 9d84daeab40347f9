/**
 * `logosctl`, the control tool's command line (operator.md §1.3-§1.6): the global flags `-j/--json`,
 * `--human`, `-q`, `--config-dir` and `--version` (before any command: the tool's version; after
 * `package install` and the like it pins a package version), and the commands, one file each under
 * cmds/: daemon start/stop/status/config, module ls/show/load/unload/reload/stats, call, watch,
 * packages, catalogs, keys and tokens, and the shorthands stop, status, stats, install and search.
 * Output is JSON when stdout is not a TTY (or with `--json`), human otherwise. Exit codes: 0 success,
 * 1 general error (and `status` without a daemon), 2 no daemon, 3 module error, 4 method error.
 */
import { Command } from 'commander';
import { CtlError } from './client.ts';
import { addCallCommand } from './cmds/call.ts';
import { addCatalogCommands } from './cmds/catalog.ts';
import { CtlContext, type Globals } from './cmds/context.ts';
import { addDaemonCommands } from './cmds/daemon.ts';
import { addKeyCommands } from './cmds/key.ts';
import { addModuleCommands } from './cmds/module.ts';
import { addPackageCommands } from './cmds/package.ts';
import { statsAction } from './cmds/stats.ts';
import { addTokenCommands } from './cmds/token.ts';
import { addWatchCommand } from './cmds/watch.ts';
import { Output } from './output.ts';
import { versionText } from './version.ts';

/** Global flags that come before a command (the second group takes a value). */
const GLOBAL_FLAGS = new Set(['-j', '--json', '--no-json', '--human', '-q', '--quiet', '-v', '--verbose']);
const GLOBAL_WITH_VALUE = new Set(['--config-dir']);

/** Whether `--version` comes before any command (the tool's version, not a package pin). */
function asksToolVersion(argv: readonly string[]): boolean {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--version') return true;
    if (GLOBAL_FLAGS.has(a) || a.startsWith('--config-dir=')) continue;
    if (GLOBAL_WITH_VALUE.has(a)) {
      i++;
      continue;
    }
    return false;
  }
  return false;
}

/** Runs the command line; resolves with the exit code. */
export async function runCtl(argv: readonly string[]): Promise<number> {
  if (asksToolVersion(argv)) {
    process.stdout.write(`${versionText()}\n`);
    return 0;
  }
  const program = new Command('logosctl');
  program
    .description('Control tool for a Logos node: a daemon, its modules, and calls to them')
    .option('-j, --json', 'JSON output')
    .option('--no-json', 'human-readable output (as --human)')
    .option('--human', 'human-readable output')
    .option('-q, --quiet', 'print nothing on success')
    .option('--config-dir <dir>', 'session directory (env LOGOSCTL_CONFIG_DIR, default ~/.logosctl)')
    .addHelpText('after', '\n  --version           print the version (before any command)')
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s), writeOut: (s) => process.stdout.write(s) });

  const c = new CtlContext(program);
  addDaemonCommands(program, c);
  addModuleCommands(program, c);
  program
    .command('stats')
    .description('shorthand for module stats')
    .action(() => statsAction(c));
  addCallCommand(program, c);
  addWatchCommand(program, c);
  addPackageCommands(program, c);
  addCatalogCommands(program, c);
  addKeyCommands(program, c);
  addTokenCommands(program, c);

  try {
    await program.parseAsync([...argv], { from: 'user' });
  } catch (e) {
    const out = Output.choose(program.opts<Globals>());
    if (e instanceof CtlError) {
      out.error(e.code, e.message);
      return e.exitCode;
    }
    const ce = e as { code?: string; exitCode?: number };
    if (typeof ce.code === 'string' && ce.code.startsWith('commander.')) {
      // help and version exit 0; usage errors were printed by commander
      return ce.code === 'commander.helpDisplayed' || ce.code === 'commander.version'
        ? 0
        : (ce.exitCode ?? 1);
    }
    out.error('INTERNAL_ERROR', (e as Error).message);
    return 1;
  }
  return c.exitCode;
}
