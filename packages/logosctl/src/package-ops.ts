/**
 * The daemon's package operations (operator.md §1.3, §1.6, §1.7; logos-logoscore-cli
 * `src/core_service/package_ops.cpp`): `plan` and `apply` of `install`, `upgrade` and `remove`, and
 * `download`, done through the bundled `package_manager` and `package_downloader` modules.
 *
 * - plan: local `.lgx` files are inspected (`inspectPackage`; `--version` / `--root-hash` given with them
 *   must match the file, inferred); names are resolved against the catalogs (`resolveDependencies`, the
 *   top-level names pinned to `--version` and `--root-hash`, transitive dependencies already installed
 *   left out; `--no-deps` keeps the named ones only); a removal takes the installed dependents first
 *   (`resolveFlatDependents`) unless `--no-dependents`. Each change is `{name, action, fromVersion,
 *   toVersion, …}` with action `install`, `upgrade`, `reinstall` (same version, other root hash),
 *   `installed` (nothing to do) or `remove`; `affected_loaded` names the running modules touched.
 * - apply: stops the affected running modules, downloads (`downloadPinned`, the plan's exact release) and
 *   installs (`installPlugin`) or uninstalls each change, re-scans the modules (no daemon restart), then
 *   starts again the modules it stopped, with the running modules depending on them (also after a
 *   failure; a removed one stays stopped).
 *   Installing does not load a module that was not running.
 * - Failures: `{"status":"error","code","message"}` (plan: `INVALID_ARGS`, `PACKAGE_NOT_INSTALLED`,
 *   `RESOLVE_FAILED`, `INSPECT_FAILED`, `VERSION_MISMATCH`, `ROOT_HASH_MISMATCH`) or, for a step of apply,
 *   `PACKAGE_OP_FAILED` with `failed_step` and `error`.
 */
import { copyFileSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { isJsonObject, type Json } from '@logos-ts/shared/json';
import { PackageOptionsError } from './errors.ts';

type Map_ = { [k: string]: Json };

/** What the operations need of the daemon. */
export interface PackageBackend {
  /** A call into a loaded module: its result, or null (not loaded, no result). */
  call(module: string, method: string, args: Json[]): Promise<Json | null>;
  loadedModules(): string[];
  /** Stops a module and the loaded modules depending on it; returns every module it stopped. */
  unloadModule(name: string): Promise<string[]>;
  loadModule(name: string): Promise<boolean>;
  refreshModules(): void;
}

export type Op = 'install' | 'upgrade' | 'remove';

export interface Options {
  readonly withDeps: boolean;
  readonly withDependents: boolean;
  readonly version: string;
  readonly rootHash: string;
  readonly catalog: string;
  readonly localFiles: readonly string[];
}

const PM = 'package_manager';
const PD = 'package_downloader';

const err = (code: string, message: string, extra: Map_ = {}): Map_ => ({
  ...extra,
  status: 'error',
  code,
  message,
});
const s = (v: Json | undefined): string => (typeof v === 'string' ? v : '');
const obj = (v: Json | null | undefined): Map_ => (isJsonObject(v ?? null) ? (v as Map_) : {});

/** Reads the options of a request; throws on a mistyped one. */
export function readOptions(p: Map_): Options {
  const str = (k: string): string => {
    const v = p[k];
    if (v === undefined || v === null) return '';
    if (typeof v !== 'string') throw new PackageOptionsError(`${k}: expected a string`);
    return v;
  };
  const files = p.localFiles ?? [];
  if (!Array.isArray(files) || !files.every((f) => typeof f === 'string'))
    throw new PackageOptionsError('localFiles: expected a list of paths');
  return {
    withDeps: p.withDeps !== false,
    withDependents: p.withDependents !== false,
    version: str('version'),
    rootHash: str('rootHash'),
    catalog: str('catalog'),
    localFiles: files as string[],
  };
}

function rootOf(p: Map_): string {
  return s(obj(p.hashes).root);
}

function depAction(iv: string, rv: string, ih: string, rh: string): string {
  if (iv === '') return 'install';
  if (iv !== rv) return 'upgrade';
  if (rh !== '' && ih !== '' && ih !== rh) return 'reinstall';
  return 'installed';
}

async function installedPackages(api: PackageBackend): Promise<Map_[]> {
  const r = await api.call(PM, 'getInstalledPackages', []);
  return Array.isArray(r) ? (r.filter(isJsonObject) as Map_[]) : [];
}

/** The plan of an operation: `{status:"ok", op, changes, affected_loaded}` or an error. */
export async function plan(
  api: PackageBackend,
  op: Op,
  names: readonly string[],
  opts: Options,
): Promise<Map_> {
  const installed = await installedPackages(api);
  const byName = new Map(installed.map((p) => [s(p.name), p]));
  const changes: Map_[] = [];
  const affected: string[] = [];
  if (op === 'remove') {
    if (names.length === 0) return err('INVALID_ARGS', 'Nothing to remove. Name an installed package.');
    for (const n of names) {
      if (!byName.has(n)) return err('PACKAGE_NOT_INSTALLED', `Package '${n}' is not installed.`);
      let set = [n];
      if (opts.withDependents) {
        const r = await api.call(PM, 'resolveFlatDependents', [n, true]);
        if (!Array.isArray(r)) return err('RESOLVE_FAILED', `could not resolve dependents of '${n}'`);
        set = [...r.map((d) => s(obj(d).name)).filter((d) => d !== '' && d !== n), n];
      }
      for (const v of set) {
        if (affected.includes(v)) continue;
        affected.push(v);
        changes.push({ name: v, action: 'remove', fromVersion: s(byName.get(v)?.version), toVersion: '' });
      }
    }
  } else if (opts.localFiles.length > 0) {
    for (const f of opts.localFiles) {
      const info = obj(await api.call(PM, 'inspectPackage', [f]));
      if (Object.keys(info).length === 0) return err('INSPECT_FAILED', `Could not inspect '${f}'`);
      if (s(info.error) !== '') return err('INSPECT_FAILED', `${f}: ${s(info.error)}`);
      const n = s(info.name);
      const v = s(info.version);
      if (opts.version !== '' && opts.version !== v)
        return err('VERSION_MISMATCH', `${f} is ${n} ${v}, not the requested version ${opts.version}`);
      if (opts.rootHash !== '' && opts.rootHash !== s(info.rootHash))
        return err(
          'ROOT_HASH_MISMATCH',
          `${f} has root hash ${s(info.rootHash)}, not the requested ${opts.rootHash}`,
        );
      const iv = s(info.installedVersion);
      affected.push(n);
      changes.push({
        name: n,
        action: info.isAlreadyInstalled === true ? (iv === v ? 'reinstall' : 'upgrade') : 'install',
        fromVersion: iv,
        toVersion: v,
        rootHash: s(info.rootHash),
        file: f,
        signature: s(info.signatureStatus),
      });
    }
  } else {
    if (names.length === 0)
      return err(
        'INVALID_ARGS',
        `Nothing to ${op}. Name a package, or give a path to an .lgx file (or --file / --dir).`,
      );
    const deps: Json[] = names.map((n) => {
      const d: Map_ = { name: n };
      if (opts.version !== '') d.version = opts.version;
      if (opts.rootHash !== '') d.rootHash = opts.rootHash;
      if (opts.catalog !== '') d.repositoryUrl = opts.catalog;
      return d;
    });
    const inst = opts.withDeps
      ? installed.map((p) => ({ name: s(p.name), version: s(p.version), rootHash: rootOf(p) }))
      : [];
    const resolved = await api.call(PD, 'resolveDependencies', [JSON.stringify(deps), JSON.stringify(inst)]);
    if (!Array.isArray(resolved))
      return err(
        'RESOLVE_FAILED',
        'Could not resolve packages from the catalog. Check that a catalog is configured and reachable (`catalog ls`, `catalog refresh`)',
      );
    for (const e0 of resolved) {
      const e = obj(e0);
      if (s(e.error) !== '')
        return err('RESOLVE_FAILED', `Cannot resolve '${s(e.name) || '?'}': ${s(e.error)}`);
      if (!opts.withDeps && e.topLevel !== true) continue;
      const n = s(e.name);
      const have = byName.get(n);
      const iv = s(have?.version);
      const rv = s(e.version);
      const rh = s(e.rootHash);
      const action = depAction(iv, rv, have ? rootOf(have) : '', rh);
      changes.push({
        name: n,
        action,
        fromVersion: iv,
        toVersion: rv,
        repository: s(e.repositoryUrl),
        rootHash: rh,
        topLevel: e.topLevel === true,
      });
      if (action !== 'installed') affected.push(n);
    }
  }
  const loaded = new Set(api.loadedModules());
  return { status: 'ok', op, changes, affected_loaded: affected.filter((n) => loaded.has(n)) };
}

/** Plans and carries out an operation. */
export async function apply(
  api: PackageBackend,
  op: Op,
  names: readonly string[],
  opts: Options,
): Promise<Map_> {
  const result = await plan(api, op, names, opts);
  if (result.status === 'error') return result;
  const toRestore = (result.affected_loaded as string[]).slice();
  const changes = result.changes as Map_[];
  const fail = (step: string, message: string): Map_ => ({
    ...result,
    status: 'error',
    code: 'PACKAGE_OP_FAILED',
    failed_step: step,
    error: message,
    message: `${op} failed at step '${step}': ${message}`,
  });
  if (op === 'remove') {
    const victims = changes.map((c) => s(c.name));
    for (const v of victims) await api.unloadModule(v);
    const removed: Json[] = [];
    for (const v of victims) {
      const r = obj(await api.call(PM, 'uninstallPackage', [v]));
      if (r.success !== true) {
        api.refreshModules();
        return { ...fail('uninstall', `${v}: ${s(r.error) || 'package_manager did not respond'}`), removed };
      }
      removed.push(v);
    }
    api.refreshModules();
    return { ...result, removed, reloaded: [] };
  }
  const installedNow: Json[] = [];
  const stopped: string[] = [];
  for (const m of toRestore)
    for (const u of await api.unloadModule(m)) if (!stopped.includes(u)) stopped.push(u);
  let failure: Map_ | undefined;
  for (const c of changes) {
    if (c.action === 'installed') continue;
    const name = s(c.name);
    let file = s(c.file);
    if (file === '') {
      const d = obj(
        await api.call(PD, 'downloadPinned', [s(c.repository), name, s(c.toVersion), s(c.rootHash)]),
      );
      if (s(d.error) !== '' || s(d.path) === '') {
        failure = fail('download', `${name}: ${s(d.error) || 'package_downloader did not return a file'}`);
        break;
      }
      file = s(d.path);
    }
    const ins = obj(await api.call(PM, 'installPlugin', [file, false]));
    if (Object.keys(ins).length === 0 || s(ins.error) !== '') {
      failure = fail('install', `${name}: ${s(ins.error) || 'package_manager did not respond'}`);
      break;
    }
    installedNow.push(name);
  }
  api.refreshModules();
  const reloaded: Json[] = [];
  // dependencies before their dependents: the reverse of the order they were stopped in
  for (const m of [...stopped].reverse()) if (await api.loadModule(m)) reloaded.push(m);
  if (failure) return { ...failure, installed: installedNow, reloaded };
  return { ...result, installed: installedNow, reloaded };
}

/** Downloads one package into `dest` (default the session's `cache/downloads`). */
export async function download(
  api: PackageBackend,
  name: string,
  opts: Options,
  dest: string,
): Promise<Map_> {
  const r = obj(await api.call(PD, 'downloadPinned', [opts.catalog, name, opts.version, opts.rootHash]));
  if (s(r.error) !== '' || s(r.path) === '')
    return err('DOWNLOAD_FAILED', s(r.error) || `could not download '${name}'`);
  let path = s(r.path);
  if (dest !== '') {
    try {
      mkdirSync(dest, { recursive: true });
      const to = join(dest, basename(path));
      if (to !== path) {
        try {
          renameSync(path, to);
        } catch {
          copyFileSync(path, to);
          rmSync(path, { force: true });
        }
        path = to;
      }
    } catch (e) {
      return err(
        'DOWNLOAD_FAILED',
        `downloaded '${name}' but could not place it in ${dest}: ${(e as Error).message}`,
      );
    }
  }
  return { status: 'ok', result: { ...r, path } };
}
