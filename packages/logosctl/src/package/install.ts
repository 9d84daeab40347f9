/**
 * Installing a verified package into a modules folder (operator.md §1.7: "Installed layout:
 * `<modules dir>/<name>/manifest.json` plus the plugin and its libraries"). The files of the variant this
 * runtime runs (`node`) land directly in `<modules dir>/<name>/`, `docs/` and `licenses/` beside them, and
 * the package's `manifest.json` (with its `hashes`) is written unchanged; `main.node` names the entry.
 *
 * The install is atomic for a reader of the modules folder: everything is written into a fresh
 * `.<name>.installing-<random>` folder in the same parent, then an existing copy is renamed aside, the new
 * folder renamed into place and the old one deleted; any failure removes the temporary folder and leaves
 * the previous install as it was. Every target path is checked to stay inside the new folder.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { LgxError } from './errors.ts';
import type { LgxPackage } from './lgx.ts';
import { manifestJson } from './manifest.ts';

/** The variant of a package this runtime (Node.js, this tool's modules) runs. */
export const RUNTIME_VARIANT = 'node';

function inside(root: string, rel: string): string {
  const target = resolve(root, rel);
  const r = relative(root, target);
  if (r === '' || r.startsWith('..') || r.startsWith(sep) || resolve(root, r) !== target)
    throw new LgxError(`Path escapes the install folder: ${rel}`);
  return target;
}

/** The files a package installs, by path relative to its install folder. */
export function installedFiles(pkg: LgxPackage): { rel: string; data: Uint8Array }[] {
  if (!Object.hasOwn(pkg.manifest.main, RUNTIME_VARIANT)) {
    const have = Object.keys(pkg.manifest.main);
    throw new LgxError(
      `Package '${pkg.manifest.name}' has no '${RUNTIME_VARIANT}' variant for this runtime (it has: ${have.length > 0 ? have.join(', ') : 'none'})`,
    );
  }
  const prefix = `variants/${RUNTIME_VARIANT}/`;
  const out: { rel: string; data: Uint8Array }[] = [];
  for (const f of pkg.files) {
    if (f.path.startsWith(prefix)) out.push({ rel: f.path.slice(prefix.length), data: f.data });
    else if (f.path.startsWith('docs/') || f.path.startsWith('licenses/'))
      out.push({ rel: f.path, data: f.data });
  }
  if (out.some((f) => f.rel === 'manifest.json'))
    throw new LgxError(`Variant '${RUNTIME_VARIANT}' may not carry its own manifest.json`);
  return out;
}

/** Installs `pkg` as `<modulesDir>/<name>/`, replacing a previous copy atomically; returns that folder. */
export function installPackage(modulesDir: string, pkg: LgxPackage): string {
  const name = pkg.manifest.name;
  const files = installedFiles(pkg);
  mkdirSync(modulesDir, { recursive: true, mode: 0o700 });
  const finalDir = join(modulesDir, name);
  const tag = randomBytes(6).toString('hex');
  const tmp = join(modulesDir, `.${name}.installing-${tag}`);
  const old = join(modulesDir, `.${name}.old-${tag}`);
  mkdirSync(tmp, { mode: 0o700 });
  try {
    for (const f of files) {
      const target = inside(tmp, f.rel);
      mkdirSync(dirname(target), { recursive: true, mode: 0o700 });
      writeFileSync(target, f.data, { mode: 0o600, flag: 'wx' });
    }
    writeFileSync(join(tmp, 'manifest.json'), `${manifestJson(pkg.manifest)}\n`, { mode: 0o600, flag: 'wx' });
    const hadOld = existsSync(finalDir);
    if (hadOld) renameSync(finalDir, old);
    try {
      renameSync(tmp, finalDir);
    } catch (e) {
      if (hadOld) renameSync(old, finalDir);
      throw e;
    }
    rmSync(old, { recursive: true, force: true });
    return finalDir;
  } catch (e) {
    rmSync(tmp, { recursive: true, force: true });
    throw e;
  }
}
