/**
 * The modules the daemon knows (operator.md §1.2, §1.7): the bundled ones (read-only, beside the tool:
 * `capability_module`, `package_manager`, `package_downloader`, loaded at boot) and those installed in the
 * session's `modules/<name>/` or in a folder of `modules_dirs:` (`daemon/config.yaml`), each with a
 * `manifest.json` naming `name`, `version`, `main` (the module file, relative to its folder) and
 * `dependencies`. On a name collision the session copy wins.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { siblingModule } from '@logos-ts/shared/runtime';
import { ManifestError } from './errors.ts';
import { RUNTIME_VARIANT } from './package/install.ts';
import { SHIPPED_MODULES, shippedModuleFile } from './package/shipped.ts';

export interface ModuleInfo {
  readonly name: string;
  readonly version: string;
  readonly main: string;
  readonly dependencies: readonly string[];
  readonly source: 'embedded' | 'user';
}

const bundled = (name: string): string => fileURLToPath(siblingModule(import.meta.url, `modules/${name}`));

/** Bundled modules, in their boot order. */
export const BUNDLED: readonly ModuleInfo[] = [
  { name: 'capability_module', version: '0.1.0', main: bundled('capability-module') },
  { name: 'package_manager', version: '0.1.0', main: bundled('package-manager') },
  { name: 'package_downloader', version: '0.1.0', main: bundled('package-downloader') },
].map((m) => ({ ...m, dependencies: [], source: 'embedded' as const }));

/**
 * Modules shipped with the node but not loaded at boot (an operator loads them), each when its file is
 * installed: the reference's pinned `blockchain_module` 0.2.4, `storage_module` 2.1.2 and
 * `delivery_module` 0.2.1 (operator.md §0, §2-§4), the packages `@logos-ts/<blockchain|storage|delivery>-module`.
 */
export const SHIPPED: readonly ModuleInfo[] = SHIPPED_MODULES.flatMap((m) => {
  const main = shippedModuleFile(m);
  return main === undefined
    ? []
    : [{ name: m.name, version: m.version, main, dependencies: [], source: 'embedded' as const }];
});

/**
 * Reads `<dir>/manifest.json` of an installed module; throws with the path on a bad manifest. `main` is the
 * module file, or, in an installed package's manifest, a map of variants to entries, of which this
 * runtime's (`node`) is taken; `dependencies` are names or `{name, version?, signer?}`.
 */
export function readManifest(dir: string): ModuleInfo {
  const path = join(dir, 'manifest.json');
  const m = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  const str = (k: string): string => {
    const v = m[k];
    if (typeof v !== 'string' || v === '')
      throw new ManifestError(path, `${path}: "${k}" must be a non-empty string`);
    return v;
  };
  const depsRaw = m.dependencies ?? [];
  const deps = Array.isArray(depsRaw)
    ? depsRaw.map((d) => (d && typeof d === 'object' ? (d as { name?: unknown }).name : d))
    : undefined;
  if (deps === undefined || !deps.every((d) => typeof d === 'string' && d !== ''))
    throw new ManifestError(path, `${path}: "dependencies" must be an array of names`);
  let main: string;
  if (m.main !== null && typeof m.main === 'object' && !Array.isArray(m.main)) {
    const entry = (m.main as Record<string, unknown>)[RUNTIME_VARIANT];
    if (typeof entry !== 'string' || entry === '')
      throw new ManifestError(path, `${path}: "main" has no "${RUNTIME_VARIANT}" entry for this runtime`);
    main = entry;
  } else main = str('main');
  return {
    name: str('name'),
    version: typeof m.version === 'string' ? m.version : '',
    main: resolve(dir, main),
    dependencies: deps as string[],
    source: 'user',
  };
}

/**
 * Every known module by name: the bundled and shipped ones, then those of each folder of `modulesDirs` in order (a
 * later folder wins a name collision; the session's `modules/` is passed last). Unreadable manifests are
 * reported through `onBad` and skipped.
 */
export function scanModules(
  modulesDirs: readonly string[],
  onBad: (dir: string, e: Error) => void,
): Map<string, ModuleInfo> {
  const out = new Map<string, ModuleInfo>([...BUNDLED, ...SHIPPED].map((m) => [m.name, m]));
  for (const modulesDir of modulesDirs) {
    if (!existsSync(modulesDir)) continue;
    for (const entry of readdirSync(modulesDir, { withFileTypes: true })) {
      if (!entry.isDirectory()) continue;
      const dir = join(modulesDir, entry.name);
      if (!existsSync(join(dir, 'manifest.json'))) continue;
      try {
        const info = readManifest(dir);
        out.set(info.name, info);
      } catch (e) {
        onBad(dir, e as Error);
      }
    }
  }
  return out;
}
