/**
 * Bundled `package_manager` (operator.md §1.7; logos-package-manager-module README): local package
 * operations on the session (`<session>/modules` for core modules, `<session>/plugins` for UI plugins,
 * `<session>/keyring` for trusted signers; the session is the module's data folder's grandparent):
 *
 * - `installPlugin(path, skipIfNotNewer?, source?)` → `{name, path, isCoreModule, signatureStatus, error}`:
 *   reads and verifies the `.lgx` (lgx.ts: layout, paths, root hash), checks the signature policy and
 *   installs it atomically (install.ts); emits `corePluginFileInstalled` / `uiPluginFileInstalled`;
 * - `inspectPackage(path)` → `{name, version, type, description, category, rootHash, signatureStatus,
 *   isAlreadyInstalled, installedVersion?, installedHash?, installedDependents?, variants}`, or `{error}`;
 * - `uninstallPackage(name)` → `{success, error?, removedFiles?}`; emits `corePluginUninstalled`;
 * - `getInstalledPackages()`, `getInstalledModules()`, `getInstalledUiPlugins()`, `getValidVariants()`,
 *   `resolveFlatDependencies(name, recursive)`, `resolveFlatDependents(name, recursive)`;
 * - `addTrustedKey(name, did, displayName, url)`, `removeTrustedKey(name)` → `{success, error?}`,
 *   `listTrustedKeys()`;
 * - `listInstalledPackages()`: the installed packages as a `StdLogosResult`.
 *
 * Signatures: `signature_policy` of `daemon/config.yaml` (`none`, `warn` (default), `require`). A package
 * without `manifest.sig` is `unsigned`; this tool does not verify `manifest.sig` (status `error` with
 * `signatureError`), so `require` refuses every package (inferred: refusing what cannot be checked).
 * Bad arguments answer an `error` and change nothing.
 */
import { existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Json } from '@logos-ts/shared/json';
import { type ModuleContext, type ModuleFactory, ok } from '@logos-ts/shared/module-api';
import { ArgumentError } from '@logos-ts/shared/module-args';
import { parse as parseYaml } from 'yaml';
import { PackageError } from '../package/errors.ts';
import { installPackage, RUNTIME_VARIANT } from '../package/install.ts';
import {
  flatDependencies,
  flatDependents,
  type InstalledRecord,
  scanInstalled,
} from '../package/installed.ts';
import { Keyring } from '../package/keyring.ts';
import { type LgxPackage, MAX_PACKAGE_BYTES, readLgx } from '../package/lgx.ts';
import { NAME_RE } from '../package/manifest.ts';
import { compareVersions } from '../package/semver.ts';

type Map_ = { [k: string]: Json };

const isUi = (type: string): boolean => type === 'ui' || type === 'ui_qml';

class PackageManager {
  readonly session: string;
  readonly modulesDir: string;
  readonly pluginsDir: string;
  readonly keyring: Keyring;

  constructor(private readonly ctx: ModuleContext) {
    this.session = resolve(ctx.dataDir, '..', '..');
    this.modulesDir = resolve(this.session, 'modules');
    this.pluginsDir = resolve(this.session, 'plugins');
    this.keyring = new Keyring(resolve(this.session, 'keyring'));
  }

  private policy(): 'none' | 'warn' | 'require' {
    const path = resolve(this.session, 'daemon', 'config.yaml');
    if (!existsSync(path)) return 'warn';
    try {
      const doc = parseYaml(readFileSync(path, 'utf8')) as { signature_policy?: unknown } | null;
      const p = doc?.signature_policy;
      return p === 'none' || p === 'require' ? p : 'warn';
    } catch {
      return 'warn';
    }
  }

  installed(): InstalledRecord[] {
    const warn = (path: string, e: Error): void =>
      this.ctx.logger.warn({ manifest: path, reason: e.message }, 'unreadable manifest skipped');
    return [...scanInstalled(this.modulesDir, warn), ...scanInstalled(this.pluginsDir, warn)].sort((a, b) =>
      a.name.localeCompare(b.name),
    );
  }

  private async load(path: Json): Promise<LgxPackage> {
    if (typeof path !== 'string' || path === '') throw new ArgumentError('expected the path of an .lgx file');
    let bytes: Buffer;
    try {
      const full = resolve(this.ctx.cwd, path);
      const st = statSync(full);
      if (!st.isFile()) throw new PackageError('PACKAGE_FILE', `Not a file: ${path}`);
      if (st.size > MAX_PACKAGE_BYTES)
        throw new PackageError(
          'PACKAGE_FILE',
          `${path} is ${st.size} bytes; the package limit is ${MAX_PACKAGE_BYTES}`,
        );
      bytes = readFileSync(full);
    } catch (e) {
      if (e instanceof PackageError || !(e as NodeJS.ErrnoException).code) throw e;
      throw new PackageError(
        'PACKAGE_FILE',
        `Cannot open file: ${path} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`,
      );
    }
    return readLgx(bytes);
  }

  private signature(pkg: LgxPackage): { status: string; error?: string } {
    return pkg.signed
      ? {
          status: 'error',
          error: 'manifest.sig is present but signature verification is not supported by this tool',
        }
      : { status: 'unsigned' };
  }

  async install(path: Json, skipIfNotNewer: Json | undefined, source: Json | undefined): Promise<Map_> {
    const failure = (error: string, extra: Map_ = {}): Map_ => ({
      name: '',
      path: '',
      isCoreModule: false,
      signatureStatus: '',
      ...extra,
      error,
    });
    if (skipIfNotNewer !== undefined && typeof skipIfNotNewer !== 'boolean')
      return failure('installPlugin: skipIfNotNewer must be true or false');
    if (source !== undefined && typeof source !== 'string')
      return failure('installPlugin: source must be a string');
    let pkg: LgxPackage;
    try {
      pkg = await this.load(path);
    } catch (e) {
      return failure((e as Error).message);
    }
    const m = pkg.manifest;
    const sig = this.signature(pkg);
    const base: Map_ = { name: m.name, isCoreModule: !isUi(m.type), signatureStatus: sig.status };
    if (sig.error) base.signatureError = sig.error;
    const policy = this.policy();
    if (policy === 'require' && sig.status !== 'signed')
      return failure(`Signature policy 'require' refuses a package whose signature is ${sig.status}`, base);
    if (policy === 'warn' && sig.status !== 'signed')
      this.ctx.logger.warn(
        { package: m.name, signature: sig.status },
        'installing a package that is not signed',
      );
    const target = isUi(m.type) ? this.pluginsDir : this.modulesDir;
    if (skipIfNotNewer === true) {
      const have = this.installed().find((p) => p.name === m.name);
      if (have && compareVersions(have.version, m.version) >= 0)
        return { ...base, path: have.installDir, skipped: true, error: '' };
    }
    let dir: string;
    try {
      dir = installPackage(target, pkg);
    } catch (e) {
      return failure((e as Error).message, base);
    }
    this.ctx.emit(isUi(m.type) ? 'uiPluginFileInstalled' : 'corePluginFileInstalled', [dir]);
    this.ctx.logger.info(
      { package: m.name, version: m.version, root_hash: pkg.rootHash, source },
      'package installed',
    );
    return { ...base, path: dir, version: m.version, rootHash: pkg.rootHash, error: '' };
  }

  async inspect(path: Json): Promise<Map_> {
    let pkg: LgxPackage;
    try {
      pkg = await this.load(path);
    } catch (e) {
      return { error: (e as Error).message };
    }
    const m = pkg.manifest;
    const sig = this.signature(pkg);
    const installed = this.installed();
    const have = installed.find((p) => p.name === m.name);
    const r: Map_ = {
      name: m.name,
      version: m.version,
      type: m.type,
      description: m.description,
      category: m.category,
      dependencies: m.dependencies.map((d) => (typeof d === 'string' ? d : { ...d })),
      rootHash: pkg.rootHash,
      signatureStatus: sig.status,
      isAlreadyInstalled: have !== undefined,
      variants: Object.keys(m.main).sort(),
      runtimeVariant: Object.hasOwn(m.main, RUNTIME_VARIANT),
    };
    if (have) {
      r.installedVersion = have.version;
      const hashes = have.hashes;
      r.installedHash =
        hashes && typeof hashes === 'object' && !Array.isArray(hashes) ? ((hashes as Map_).root ?? '') : '';
      r.installedDependents = flatDependents(installed, m.name, true).map((d) => (d as Map_).name as Json);
    }
    return r;
  }

  uninstall(name: Json): Map_ {
    if (typeof name !== 'string' || !NAME_RE.test(name))
      return { success: false, error: 'uninstallPackage: expected an installed package name' };
    const have = this.installed().find((p) => p.name === name);
    if (!have) return { success: false, error: `Package '${name}' is not installed.` };
    rmSync(have.installDir, { recursive: true, force: true });
    this.ctx.emit(isUi(have.type) ? 'uiPluginUninstalled' : 'corePluginUninstalled', [name]);
    return { success: true, removedFiles: [have.installDir] };
  }

  keyResult(f: () => void): Map_ {
    try {
      f();
      return { success: true };
    } catch (e) {
      return { success: false, error: (e as Error).message };
    }
  }
}

const str = (v: Json): string => (typeof v === 'string' ? v : '');

const factory: ModuleFactory = (ctx) => {
  const pm = new PackageManager(ctx);
  const walk = (fn: typeof flatDependencies) => (name: Json, recursive: Json) => {
    if (typeof name !== 'string' || (recursive !== undefined && typeof recursive !== 'boolean'))
      return { error: 'expected a package name and an optional true/false' };
    return fn(pm.installed(), name, recursive === true);
  };
  return {
    name: 'package_manager',
    version: '0.1.0',
    dependencies: [],
    events: [
      'corePluginFileInstalled',
      'uiPluginFileInstalled',
      'corePluginUninstalled',
      'uiPluginUninstalled',
    ],
    methods: {
      installPlugin: (path: Json, skip?: Json, source?: Json) =>
        pm.install(path, skip as Json, source as Json),
      inspectPackage: (path: Json) => pm.inspect(path),
      uninstallPackage: (name: Json) => pm.uninstall(name),
      getInstalledPackages: () => pm.installed(),
      getInstalledModules: () => pm.installed().filter((p) => !isUi(p.type)),
      getInstalledUiPlugins: () => pm.installed().filter((p) => isUi(p.type)),
      getValidVariants: () => [RUNTIME_VARIANT],
      listInstalledPackages: () => ok(pm.installed()),
      resolveFlatDependencies: walk(flatDependencies),
      resolveFlatDependents: walk(flatDependents),
      listTrustedKeys: () => pm.keyring.list() as unknown as Json[],
      addTrustedKey: (name: Json, did: Json, displayName?: Json, url?: Json) =>
        pm.keyResult(() => {
          if (typeof name !== 'string' || typeof did !== 'string')
            throw new ArgumentError('expected a key name and a DID');
          pm.keyring.add(name, did, str(displayName ?? ''), str(url ?? ''));
        }),
      removeTrustedKey: (name: Json) =>
        pm.keyResult(() => {
          if (typeof name !== 'string') throw new ArgumentError('expected a key name');
          pm.keyring.remove(name);
        }),
    },
    close: async () => {},
  };
};
export default factory;
