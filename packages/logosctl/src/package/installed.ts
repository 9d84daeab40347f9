/**
 * The packages installed in a folder (operator.md §1.6 `package ls`; logos-package-manager-module README
 * "Scanning"): each `<dir>/<name>/manifest.json`, reported as its manifest fields plus `installDir`,
 * `mainFilePath` and `installType` (`user` here: packages this session installed), and the dependency
 * walks of `package deps` (`resolveFlatDependencies`: `{name, status, version, installType}` with status
 * `installed` or `not_installed`; `resolveFlatDependents`: `{name, version, type, installType, installDir}`),
 * breadth-first, each name once.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Json } from '@logos-ts/shared/json';
import { ManifestError } from './errors.ts';
import { RUNTIME_VARIANT } from './install.ts';
import { dependencyName } from './manifest.ts';

export type InstalledRecord = { [k: string]: Json } & {
  name: string;
  version: string;
  type: string;
  dependencies: Json[];
  installDir: string;
  installType: string;
};

/** The installed packages of `dir`, by name; unreadable manifests go to `onBad`. */
export function scanInstalled(
  dir: string,
  onBad: (path: string, e: Error) => void = () => {},
): InstalledRecord[] {
  if (!existsSync(dir)) return [];
  const out: InstalledRecord[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (!e.isDirectory() || e.name.startsWith('.')) continue;
    const path = join(dir, e.name, 'manifest.json');
    if (!existsSync(path)) continue;
    try {
      const m = JSON.parse(readFileSync(path, 'utf8')) as { [k: string]: Json };
      if (m === null || typeof m !== 'object' || Array.isArray(m))
        throw new ManifestError('not a JSON object');
      const main = m.main;
      const entry =
        typeof main === 'string'
          ? main
          : main && typeof main === 'object' && !Array.isArray(main)
            ? (main as { [k: string]: Json })[RUNTIME_VARIANT]
            : undefined;
      out.push({
        ...m,
        name: typeof m.name === 'string' ? m.name : e.name,
        version: typeof m.version === 'string' ? m.version : '',
        type: typeof m.type === 'string' ? m.type : 'core',
        dependencies: Array.isArray(m.dependencies) ? m.dependencies : [],
        installDir: join(dir, e.name),
        mainFilePath: typeof entry === 'string' ? resolve(dir, e.name, entry) : '',
        installType: 'user',
      });
    } catch (err) {
      onBad(path, err as Error);
    }
  }
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

/** Forward dependencies of `name` (direct, or all with `recursive`), breadth-first. */
export function flatDependencies(
  installed: readonly InstalledRecord[],
  name: string,
  recursive: boolean,
): Json[] {
  const byName = new Map(installed.map((p) => [p.name, p]));
  const root = byName.get(name);
  if (!root) return [];
  const out: Json[] = [];
  const seen = new Set([name]);
  let frontier = [root];
  while (frontier.length > 0) {
    const next: InstalledRecord[] = [];
    for (const p of frontier)
      for (const d of p.dependencies.map(dependencyName)) {
        if (d === '' || seen.has(d)) continue;
        seen.add(d);
        const dep = byName.get(d);
        out.push({
          name: d,
          status: dep ? 'installed' : 'not_installed',
          version: dep?.version ?? '',
          installType: dep?.installType ?? '',
        });
        if (dep) next.push(dep);
      }
    frontier = recursive ? next : [];
  }
  return out;
}

/** Installed packages depending on `name` (directly, or transitively with `recursive`), breadth-first. */
export function flatDependents(
  installed: readonly InstalledRecord[],
  name: string,
  recursive: boolean,
): Json[] {
  const out: Json[] = [];
  const seen = new Set([name]);
  let frontier = [name];
  while (frontier.length > 0) {
    const next: string[] = [];
    for (const target of frontier)
      for (const p of installed) {
        if (seen.has(p.name) || !p.dependencies.map(dependencyName).includes(target)) continue;
        seen.add(p.name);
        out.push({
          name: p.name,
          version: p.version,
          type: p.type,
          installType: p.installType,
          installDir: p.installDir,
        });
        next.push(p.name);
      }
    frontier = recursive ? next : [];
  }
  return out;
}
