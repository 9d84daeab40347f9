/**
 * `logosctl package install|upgrade NAME|FILE.lgx … [--file X.lgx] [--dir D] [--version V] [--root-hash H]
 * [--catalog C] [-y] [--dry-run] [--no-deps]`, `package remove|uninstall NAME … [-y] [--dry-run]
 * [--no-dependents]` and the shorthand `install` (operator.md §1.6; package_command.cpp of
 * logos-logoscore-cli): the daemon plans (`package_plan`), the plan is shown (human) or, with `--dry-run`,
 * printed (JSON, `"action":"install"`…); without `-y` the operator is asked on a terminal, and without a
 * terminal the command is refused (`CANCELLED`, exit 1); then the daemon applies it (`package_apply`):
 * JSON `{"installed":[…],"reloaded":[…],…}` / `{"removed":[…],…}`. Nothing to do is a success. A name
 * ending in `.lgx` is a file. Catalog names and files are not mixed in one command.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline/promises';
import type { Command } from 'commander';
import { type CtlContext, line, pad, type Reply, str } from './context.ts';

export type MutateOp = 'install' | 'upgrade' | 'remove';

async function confirm(prompt: string): Promise<boolean> {
  if (!process.stdin.isTTY) return false;
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  try {
    const a = (await rl.question(`${prompt} [y/N] `)).trim();
    return a === 'y' || a === 'Y' || a === 'yes' || a === 'Yes';
  } finally {
    rl.close();
  }
}

interface MutateOpts {
  file?: string;
  dir?: string;
  version?: string;
  rootHash?: string;
  catalog?: string;
  yes?: boolean;
  dryRun?: boolean;
  deps?: boolean;
  dependents?: boolean;
}

async function mutate(c: CtlContext, op: MutateOp, names: string[], o: MutateOpts): Promise<void> {
  const { out } = c.ctx();
  if (op === 'remove' && (o.file !== undefined || o.dir !== undefined)) {
    c.fail(out, 'INVALID_ARGS', '--file / --dir apply to install and upgrade. Give remove the package name.');
    return;
  }
  const localFiles: string[] = [];
  const addFile = (p: string): boolean => {
    const abs = resolve(process.cwd(), p);
    if (!existsSync(abs) || !statSync(abs).isFile()) {
      c.fail(out, 'INVALID_ARGS', `No such .lgx file: ${p}`);
      return false;
    }
    localFiles.push(abs);
    return true;
  };
  let catalogNames = names;
  if (op !== 'remove') {
    catalogNames = [];
    for (const n of names) {
      if (!n.endsWith('.lgx')) catalogNames.push(n);
      else if (!addFile(n)) return;
    }
    if (o.file !== undefined && !addFile(o.file)) return;
    if (o.dir !== undefined) {
      const dir = resolve(process.cwd(), o.dir);
      if (!existsSync(dir) || !statSync(dir).isDirectory()) {
        c.fail(out, 'INVALID_ARGS', `Not a directory: ${o.dir}`);
        return;
      }
      const found = readdirSync(dir)
        .filter((f) => f.endsWith('.lgx') && statSync(resolve(dir, f)).isFile())
        .sort();
      if (found.length === 0) {
        c.fail(out, 'INVALID_ARGS', `No .lgx files found in: ${o.dir}`);
        return;
      }
      localFiles.push(...found.map((f) => resolve(dir, f)));
    }
  }
  if (catalogNames.length === 0 && localFiles.length === 0) {
    c.fail(
      out,
      'INVALID_ARGS',
      op === 'remove'
        ? 'Nothing to remove. Name an installed package.'
        : `Nothing to ${op}. Name a package, or give a path to an .lgx file (or --file / --dir).`,
    );
    return;
  }
  if (catalogNames.length > 0 && localFiles.length > 0) {
    c.fail(
      out,
      'INVALID_ARGS',
      `Cannot mix catalog packages with local .lgx files in one ${op}. Run them as separate commands.`,
    );
    return;
  }
  const params: Reply = {
    op,
    names: catalogNames,
    opts: {
      withDeps: o.deps !== false,
      withDependents: o.dependents !== false,
      version: o.version ?? '',
      rootHash: o.rootHash ?? '',
      catalog: o.catalog ?? '',
      localFiles,
    },
  };
  const planned = await c.ask('package_plan', params);
  if (planned === null) return;
  const changes = (planned.changes ?? []) as Reply[];
  if (!changes.some((c) => c.action !== 'installed')) {
    c.print(out, planned, () => line('Nothing to do — already up to date.'));
    return;
  }
  if (out.json && o.dryRun) {
    out.data(planned);
    return;
  }
  if (!out.json) {
    line(`The following changes will be made (${op}):`);
    for (const c of changes) {
      if (c.action === 'installed') continue;
      const from = str(c.fromVersion);
      const to = str(c.toVersion);
      const ver =
        to === '' ? (from === '' ? '' : ` (${from})`) : from === '' ? ` ${to}` : ` ${from} -> ${to}`;
      line(`  ${pad(str(c.action), 10)} ${str(c.name)}${ver}`);
    }
    const affected = (planned.affected_loaded ?? []) as string[];
    if (affected.length > 0)
      line(
        `${op === 'remove' ? 'These running modules will be stopped' : 'These running modules will be stopped and restarted'}: ${affected.join(', ')}`,
      );
    if (o.dryRun) {
      line('(dry run — nothing was changed)');
      return;
    }
  }
  if (!o.yes && !(await confirm('Proceed?'))) {
    c.fail(
      out,
      'CANCELLED',
      process.stdin.isTTY ? 'Cancelled.' : 'Refusing to proceed without confirmation. Pass -y to continue.',
    );
    return;
  }
  const r = await c.ask('package_apply', params);
  if (r === null) return;
  c.print(out, r, () => {
    const list = (k: string): string[] => ((r[k] ?? []) as string[]).slice();
    if (list('installed').length > 0) line(`Installed: ${list('installed').join(', ')}`);
    if (list('removed').length > 0) line(`Removed: ${list('removed').join(', ')}`);
    if (list('reloaded').length > 0) line(`Restarted: ${list('reloaded').join(', ')}`);
    if (list('installed').length > 0)
      line(`Load with: logosctl module load ${catalogNames[0] ?? list('installed')[0]}`);
  });
}

/** The options and the action of an install, upgrade or remove command. */
export function withMutateOptions(cmd: Command, op: MutateOp, c: CtlContext): Command {
  if (op !== 'remove')
    cmd
      .option('--file <file>', 'install from a local .lgx file')
      .option('--dir <dir>', 'install every .lgx in a folder')
      .option('--version <version>', 'pin an exact version')
      .option('--root-hash <hash>', 'pin a release by its root hash')
      .option('--catalog <catalog>', 'restrict to one catalog (URL or name)')
      .option('--no-deps', 'do not pull in dependencies');
  return cmd
    .option('-y, --yes', 'do not ask for confirmation')
    .option('--dry-run', 'show what would change and stop')
    .option('--no-dependents', 'do not remove dependents')
    .action((names: string[], o: MutateOpts) => mutate(c, op, names, o));
}
