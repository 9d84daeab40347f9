/**
 * `logosctl` package, catalog, key and token commands (operator.md §1.3, §1.6; logos-logoscore-cli
 * `src/client/commands/{package,catalog,issue_token,list_tokens,revoke_token}_command.cpp`):
 *
 * - `package install|upgrade NAME|FILE.lgx … [--file X.lgx] [--dir D] [--version V] [--root-hash H]
 *   [--catalog C] [-y] [--dry-run] [--no-deps]`, `package remove|uninstall NAME … [-y] [--dry-run]
 *   [--no-dependents]`: the daemon plans (`package_plan`), the plan is shown (human) or, with `--dry-run`,
 *   printed (JSON, `"action":"install"`…); without `-y` the operator is asked on a terminal, and without a
 *   terminal the command is refused (`CANCELLED`, exit 1); then the daemon applies it (`package_apply`):
 *   JSON `{"installed":[…],"reloaded":[…],…}` / `{"removed":[…],…}`. Nothing to do is a success.
 *   A name ending in `.lgx` is a file. Catalog names and files are not mixed in one command.
 * - `package ls [--type core|ui]` (JSON array; human `NAME VERSION TYPE SOURCE`), `package show NAME|FILE`,
 *   `package deps NAME [-r] [--reverse]`, `package search [QUERY] [--category C] [--catalog C]`,
 *   `package download NAME [--version V] [--root-hash H] [--catalog C] [-o DIR]`; shorthands `install`
 *   and `search`.
 * - `catalog ls|add URL|remove URL|enable URL|disable URL|refresh` (package_downloader);
 *   `key ls|add NAME --did DID [--display-name N] [--url U]|remove NAME` (package_manager's keyring);
 *   `token issue --name N [--expires D] [--replace] [--local-only]|ls|revoke NAME` (no daemon needed; the raw
 *   token is printed once and kept in `daemon/tokens/<name>.json`, mode 600).
 *
 * Failures print `{"code","message","status":"error"}` (JSON) or `Error: …` (human) and exit 1, except those
 * of the daemon connection (2) and of module loading (3).
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline/promises';
import { isJsonObject, type Json } from '@logos-ts/shared/json';
import type { Command } from 'commander';
import type { Output } from './output.ts';
import type { Session } from './session.ts';
import { TokenError } from './tokens.ts';

type Reply = { [k: string]: Json };

/** What the package commands need from the command line around them. */
export interface CliKit {
  ctx(): { out: Output; session: Session; quiet: boolean };
  /** Sends a daemon request; an error reply is printed (exit code set) and null returned. */
  ask(cmd: string, params?: Reply): Promise<Reply | null>;
  fail(out: Output, code: string, message: string, extra?: Reply): void;
}

const s = (v: Json | undefined): string => (typeof v === 'string' ? v : '');
const pad = (t: string, w: number): string => t.padEnd(w);

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

export function addPackageCommands(program: Command, kit: CliKit): void {
  /** Calls a module method through the daemon; undefined after a printed error. */
  const callModule = async (module: string, method: string, args: Json[] = []): Promise<Json | undefined> => {
    const r = await kit.ask('call', { module, method, args });
    return r === null ? undefined : (r.result ?? null);
  };
  const print = (out: Output, v: Json, human: () => void): void => {
    if (out.json) out.data(v);
    else if (!kit.ctx().quiet) human();
  };
  const line = (t: string): void => {
    process.stdout.write(`${t}\n`);
  };

  const mutate = async (
    op: 'install' | 'upgrade' | 'remove',
    names: string[],
    o: MutateOpts,
  ): Promise<void> => {
    const { out } = kit.ctx();
    if (op === 'remove' && (o.file !== undefined || o.dir !== undefined)) {
      kit.fail(
        out,
        'INVALID_ARGS',
        '--file / --dir apply to install and upgrade. Give remove the package name.',
      );
      return;
    }
    const localFiles: string[] = [];
    const addFile = (p: string): boolean => {
      const abs = resolve(process.cwd(), p);
      if (!existsSync(abs) || !statSync(abs).isFile()) {
        kit.fail(out, 'INVALID_ARGS', `No such .lgx file: ${p}`);
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
          kit.fail(out, 'INVALID_ARGS', `Not a directory: ${o.dir}`);
          return;
        }
        const found = readdirSync(dir)
          .filter((f) => f.endsWith('.lgx') && statSync(resolve(dir, f)).isFile())
          .sort();
        if (found.length === 0) {
          kit.fail(out, 'INVALID_ARGS', `No .lgx files found in: ${o.dir}`);
          return;
        }
        localFiles.push(...found.map((f) => resolve(dir, f)));
      }
    }
    if (catalogNames.length === 0 && localFiles.length === 0) {
      kit.fail(
        out,
        'INVALID_ARGS',
        op === 'remove'
          ? 'Nothing to remove. Name an installed package.'
          : `Nothing to ${op}. Name a package, or give a path to an .lgx file (or --file / --dir).`,
      );
      return;
    }
    if (catalogNames.length > 0 && localFiles.length > 0) {
      kit.fail(
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
    const planned = await kit.ask('package_plan', params);
    if (planned === null) return;
    const changes = (planned.changes ?? []) as Reply[];
    if (!changes.some((c) => c.action !== 'installed')) {
      print(out, planned, () => line('Nothing to do — already up to date.'));
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
        const from = s(c.fromVersion);
        const to = s(c.toVersion);
        const ver =
          to === '' ? (from === '' ? '' : ` (${from})`) : from === '' ? ` ${to}` : ` ${from} -> ${to}`;
        line(`  ${pad(s(c.action), 10)} ${s(c.name)}${ver}`);
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
      kit.fail(
        out,
        'CANCELLED',
        process.stdin.isTTY ? 'Cancelled.' : 'Refusing to proceed without confirmation. Pass -y to continue.',
      );
      return;
    }
    const r = await kit.ask('package_apply', params);
    if (r === null) return;
    print(out, r, () => {
      const list = (k: string): string[] => ((r[k] ?? []) as string[]).slice();
      if (list('installed').length > 0) line(`Installed: ${list('installed').join(', ')}`);
      if (list('removed').length > 0) line(`Removed: ${list('removed').join(', ')}`);
      if (list('reloaded').length > 0) line(`Restarted: ${list('reloaded').join(', ')}`);
      if (list('installed').length > 0)
        line(`Load with: logosctl module load ${catalogNames[0] ?? list('installed')[0]}`);
    });
  };

  const withMutateOptions = (c: Command, op: 'install' | 'upgrade' | 'remove'): Command => {
    if (op !== 'remove')
      c.option('--file <file>', 'install from a local .lgx file')
        .option('--dir <dir>', 'install every .lgx in a folder')
        .option('--version <version>', 'pin an exact version')
        .option('--root-hash <hash>', 'pin a release by its root hash')
        .option('--catalog <catalog>', 'restrict to one catalog (URL or name)')
        .option('--no-deps', 'do not pull in dependencies');
    return c
      .option('-y, --yes', 'do not ask for confirmation')
      .option('--dry-run', 'show what would change and stop')
      .option('--no-dependents', 'do not remove dependents')
      .action((names: string[], o: MutateOpts) => mutate(op, names, o));
  };

  const search = async (
    query: string | undefined,
    o: { category?: string; catalog?: string },
  ): Promise<void> => {
    const { out } = kit.ctx();
    const r = o.catalog
      ? await callModule('package_downloader', 'getCatalogForRepo', [o.catalog])
      : await callModule('package_downloader', 'getCatalog');
    if (r === undefined) return;
    if (!Array.isArray(r)) {
      kit.fail(out, 'CATALOG_FAILED', s(isJsonObject(r) ? r.error : '') || 'the catalog could not be read');
      return;
    }
    const q = (query ?? '').toLowerCase();
    const cat = (o.category ?? '').toLowerCase();
    const hits = r.filter((p0) => {
      const p = p0 as Reply;
      if (cat !== '' && s(p.category).toLowerCase() !== cat) return false;
      return q === '' || `${s(p.name)} ${s(p.description)} ${s(p.displayName)}`.toLowerCase().includes(q);
    });
    print(out, hits, () => {
      if (hits.length === 0) return line('No packages found.');
      line(`${pad('NAME', 24)} ${pad('VERSION', 16)} ${pad('CATEGORY', 12)} DESCRIPTION`);
      for (const p0 of hits) {
        const p = p0 as Reply;
        const versions = [...new Set(((p.versions ?? []) as Reply[]).map((v) => s(v.version)))];
        const ver =
          versions.length === 0
            ? '-'
            : `${versions[0]}${versions.length > 1 ? ` (+${versions.length - 1})` : ''}`;
        let desc = s(p.description);
        if (desc.length > 44) desc = `${desc.slice(0, 41)}...`;
        line(`${pad(s(p.name), 24)} ${pad(ver, 16)} ${pad(s(p.category) || '-', 12)} ${desc}`);
      }
    });
  };

  const pkg = program.command('package').description('install, remove, list and find packages');
  withMutateOptions(
    pkg.command('install [names...]').description('install packages (catalog names or .lgx files)'),
    'install',
  );
  withMutateOptions(pkg.command('upgrade [names...]').description('upgrade packages'), 'upgrade');
  withMutateOptions(
    pkg.command('remove [names...]').alias('uninstall').description('remove packages (and their dependents)'),
    'remove',
  );
  withMutateOptions(
    program.command('install [names...]').description('shorthand for package install'),
    'install',
  );

  pkg
    .command('ls')
    .alias('list')
    .description('installed packages')
    .option('--type <type>', 'core | ui')
    .action(async (o: { type?: string }) => {
      const { out } = kit.ctx();
      if (o.type !== undefined && o.type !== 'core' && o.type !== 'ui') {
        kit.fail(out, 'INVALID_ARGS', 'Usage: logosctl package ls [--type core|ui]');
        return;
      }
      const method =
        o.type === 'ui'
          ? 'getInstalledUiPlugins'
          : o.type === 'core'
            ? 'getInstalledModules'
            : 'getInstalledPackages';
      const r = await callModule('package_manager', method);
      if (r === undefined) return;
      const list = Array.isArray(r) ? (r as Reply[]) : [];
      print(out, list, () => {
        if (list.length === 0) return line('No packages installed.');
        line(`${pad('NAME', 28)} ${pad('VERSION', 12)} ${pad('TYPE', 10)} SOURCE`);
        for (const p of list)
          line(
            `${pad(s(p.name), 28)} ${pad(s(p.version) || '-', 12)} ${pad(s(p.type) || '-', 10)} ${s(p.installType) || '-'}`,
          );
      });
    });

  pkg
    .command('show <target>')
    .alias('info')
    .description('an installed or catalog package, or an .lgx file')
    .action(async (target: string) => {
      const { out } = kit.ctx();
      if (target.endsWith('.lgx')) {
        const r = await callModule('package_manager', 'inspectPackage', [resolve(process.cwd(), target)]);
        if (r === undefined) return;
        const i = (isJsonObject(r) ? r : {}) as Reply;
        if (s(i.error) !== '') {
          kit.fail(out, 'INSPECT_FAILED', s(i.error));
          return;
        }
        return print(out, i, () => {
          for (const k of [
            'name',
            'version',
            'type',
            'category',
            'description',
            'rootHash',
            'signatureStatus',
            'isAlreadyInstalled',
            'installedVersion',
          ])
            if (i[k] !== undefined && i[k] !== null)
              line(`${pad(`${k}:`, 20)} ${typeof i[k] === 'string' ? i[k] : JSON.stringify(i[k])}`);
        });
      }
      const inst = await callModule('package_manager', 'getInstalledPackages');
      if (inst === undefined) return;
      const installed = ((Array.isArray(inst) ? inst : []) as Reply[]).find((p) => p.name === target);
      if (out.json && installed) return out.data(installed);
      const cat = await callModule('package_downloader', 'getCatalog');
      if (cat === undefined) return;
      const entry = ((Array.isArray(cat) ? cat : []) as Reply[]).find((p) => p.name === target);
      if (!installed && !entry) {
        kit.fail(out, 'PACKAGE_NOT_FOUND', `No package named '${target}' is installed or in any catalog.`);
        return;
      }
      const info = (installed ?? entry)!;
      print(out, entry ?? {}, () => {
        for (const k of [
          'name',
          'version',
          'type',
          'category',
          'author',
          'description',
          'installType',
          'installDir',
        ])
          if (s(info[k]) !== '') line(`${pad(`${k}:`, 14)} ${s(info[k])}`);
        const deps = ((info.dependencies ?? []) as Json[]).map((d) =>
          typeof d === 'string' ? d : s((d as Reply).name),
        );
        if (deps.length > 0) line(`${pad('dependencies:', 14)} ${deps.join(', ')}`);
        const versions = [...new Set(((entry?.versions ?? []) as Reply[]).map((v) => s(v.version)))];
        if (versions.length > 0) line(`${pad('available:', 14)} ${versions.join(', ')}`);
        if (!installed) line(`${pad('installed:', 14)} no`);
      });
    });

  pkg
    .command('deps <name>')
    .description('dependencies (or, with --reverse, dependents) of an installed package')
    .option('-r, --recursive', 'walk the graph transitively')
    .option('--reverse', 'dependents instead of dependencies')
    .action(async (name: string, o: { recursive?: boolean; reverse?: boolean }) => {
      const { out } = kit.ctx();
      const r = await callModule(
        'package_manager',
        o.reverse ? 'resolveFlatDependents' : 'resolveFlatDependencies',
        [name, o.recursive === true],
      );
      if (r === undefined) return;
      const nodes = (Array.isArray(r) ? r : []) as Reply[];
      print(out, nodes, () => {
        if (nodes.length === 0)
          return line(o.reverse ? 'Nothing depends on this package.' : 'This package has no dependencies.');
        for (const n of nodes)
          line(`${pad(s(n.name), 28)} ${pad(s(n.version) || '-', 12)} ${s(n.status) || s(n.installType)}`);
      });
    });

  const searchOpts = (c: Command): Command =>
    c
      .option('--category <category>', 'only this category')
      .option('--catalog <catalog>', 'only this catalog (URL or name)')
      .action(search);
  searchOpts(pkg.command('search [query]').description('search the catalogs'));
  searchOpts(program.command('search [query]').description('shorthand for package search'));

  pkg
    .command('download <name>')
    .description('download a verified .lgx (into the session cache/downloads, or -o DIR)')
    .option('--version <version>', 'pin an exact version')
    .option('--root-hash <hash>', 'pin a release by its root hash')
    .option('--catalog <catalog>', 'restrict to one catalog (URL or name)')
    .option('-o, --output <dir>', 'folder to write the .lgx into')
    .action(
      async (name: string, o: { version?: string; rootHash?: string; catalog?: string; output?: string }) => {
        const { out } = kit.ctx();
        const r = await kit.ask('package_download', {
          name,
          output: o.output ? resolve(process.cwd(), o.output) : '',
          opts: { version: o.version ?? '', rootHash: o.rootHash ?? '', catalog: o.catalog ?? '' },
        });
        if (r === null) return;
        const res = (r.result ?? {}) as Reply;
        print(out, { status: 'ok', ...res }, () => line(`Downloaded ${name} -> ${s(res.path)}`));
      },
    );

  /** A listing command: a module call answering a list, printed as JSON or by `human`. */
  const listing = (c: Command, module: string, method: string, human: (list: Reply[]) => void): void => {
    c.action(async () => {
      const { out } = kit.ctx();
      const r = await callModule(module, method);
      if (r === undefined) return;
      const list = (Array.isArray(r) ? r : []) as Reply[];
      print(out, list, () => human(list));
    });
  };
  /** A command whose module call answers `{success, error?}`. */
  const mutation = <A extends unknown[]>(
    c: Command,
    module: string,
    method: string,
    code: string,
    args: (...a: A) => Json[],
    done: (...a: A) => string,
  ): void => {
    c.action(async (...a: A) => {
      const { out } = kit.ctx();
      const r = await callModule(module, method, args(...a));
      if (r === undefined) return;
      const res = (isJsonObject(r) ? r : {}) as Reply;
      if (res.success !== true) return kit.fail(out, code, s(res.error) || `${method} failed`);
      print(out, { status: 'ok', ...res }, () => {
        line(done(...a));
        for (const e of (res.errors ?? []) as Reply[]) line(`  error: ${s(e.url)}: ${s(e.error)}`);
      });
    });
  };

  const catalog = program.command('catalog').description('package catalogs');
  listing(
    catalog.command('ls').alias('list').description('configured catalogs'),
    'package_downloader',
    'listRepositories',
    (repos) => {
      if (repos.length === 0) return line('No catalogs configured.');
      for (const c of repos) {
        line(
          `${c.enabled ? '[on ]' : '[off]'} ${pad(s(c.name) || '<unresolved>', 26)} ${s(c.url)}${c.isDefault ? '  (default)' : ''}`,
        );
        if (s(c.resolveError) !== '') line(`      error: ${s(c.resolveError)}`);
      }
    },
  );
  const catalogMutation = (sub: string, method: string, args: (url: string) => Json[]): void =>
    mutation(
      catalog.command(`${sub} <url>`).description(`${sub} a catalog (the URL of its logos-repo.json)`),
      'package_downloader',
      method,
      'CATALOG_FAILED',
      args,
      (url: string) => `Catalog ${sub}d: ${url}`,
    );
  catalogMutation('add', 'addRepository', (u) => [u]);
  catalogMutation('remove', 'removeRepository', (u) => [u]);
  catalogMutation('enable', 'setRepositoryEnabled', (u) => [u, true]);
  catalogMutation('disable', 'setRepositoryEnabled', (u) => [u, false]);
  mutation(
    catalog.command('refresh').description('fetch every enabled catalog again'),
    'package_downloader',
    'refreshCatalog',
    'CATALOG_FAILED',
    () => [],
    () => 'Catalogs refreshed.',
  );

  const key = program.command('key').description('trusted package-signing keys');
  listing(
    key.command('ls').alias('list').description('trusted keys'),
    'package_manager',
    'listTrustedKeys',
    (keys) => {
      if (keys.length === 0)
        return line(
          "No trusted keys. Packages from unknown signers are accepted or rejected per this session's signature policy.",
        );
      for (const k of keys) line(`${pad(s(k.name), 20)} ${s(k.did)}`);
    },
  );
  mutation(
    key
      .command('add <name>')
      .description('trust a signing key')
      .requiredOption('--did <did>', 'the signer, did:jwk:…')
      .option('--display-name <name>', 'who it is')
      .option('--url <url>', 'where they are'),
    'package_manager',
    'addTrustedKey',
    'KEY_ADD_FAILED',
    (name: string, o: { did: string; displayName?: string; url?: string }) => [
      name,
      o.did,
      o.displayName ?? '',
      o.url ?? '',
    ],
    (name: string) => `Trusted key added: ${name}`,
  );
  mutation(
    key.command('remove <name>').description('stop trusting a key'),
    'package_manager',
    'removeTrustedKey',
    'KEY_REMOVE_FAILED',
    (name: string) => [name],
    (name: string) => `Trusted key removed: ${name}`,
  );

  const token = program.command('token').description('client tokens of the daemon');
  const tokenErr = (out: Output, e: unknown): void => {
    if (!(e instanceof TokenError)) throw e;
    kit.fail(out, e.code, e.message);
  };
  token
    .command('issue')
    .description('issue a named token (printed once; also in daemon/tokens/<name>.json)')
    .requiredOption('--name <name>', 'the token name')
    .option('--expires <when>', 'Ns|Nm|Nh|Nd from now, or an ISO 8601 UTC date/time')
    .option('--replace', 'replace a token of that name')
    .option('--local-only', 'accept it on the local socket only')
    .action((o: { name: string; expires?: string; replace?: boolean; localOnly?: boolean }) => {
      const { out, session } = kit.ctx();
      session.ensureLayout();
      const store = session.tokens;
      try {
        const t = store.issue(o.name, o.expires ?? '', o.localOnly === true, o.replace === true);
        const res: Reply = {
          status: 'ok',
          name: o.name,
          token: t.token,
          file: store.rawPath(o.name),
          local_only: o.localOnly === true,
        };
        if (t.expiresAt !== '') res.expires_at = t.expiresAt;
        print(out, res, () => {
          line(`Issued token for '${o.name}'`);
          line(`  file:  ${store.rawPath(o.name)}`);
          line(`  token: ${t.token}`);
          if (t.expiresAt !== '') line(`  expires_at: ${t.expiresAt}`);
          if (o.localOnly) line('  local_only: true');
        });
      } catch (e) {
        tokenErr(out, e);
      }
    });
  token
    .command('ls')
    .alias('list')
    .description('issued tokens (names and dates, never the tokens)')
    .action(() => {
      const { out, session } = kit.ctx();
      try {
        const list = session.tokens.list();
        print(out, list as unknown as Json, () => {
          line(`${pad('NAME', 20)} ${pad('ISSUED', 26)} ${pad('EXPIRES', 22)} LOCAL_ONLY`);
          for (const t of list)
            line(
              `${pad(t.name, 20)} ${pad(t.issued_at, 26)} ${pad(t.expires_at ?? '-', 22)} ${t.local_only}`,
            );
        });
      } catch (e) {
        tokenErr(out, e);
      }
    });
  token
    .command('revoke <name>')
    .description('revoke a token (the daemon refuses it from now on)')
    .action((name: string) => {
      const { out, session } = kit.ctx();
      try {
        session.tokens.revoke(name);
        print(out, { status: 'ok', name }, () => line(`Revoked token '${name}'`));
      } catch (e) {
        tokenErr(out, e);
      }
    });
}
