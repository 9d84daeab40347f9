/**
 * The `manifest.json` of an `.lgx` package (operator.md §1.7; logos-package `src/core/manifest.{h,cpp}`):
 * `manifestVersion` (semver, major 0), `name` (lowercase), `version`, `description`, `author`, `type`
 * (`core` for modules, `ui`/`ui_qml` for UI plugins), `category`, `icon`, `dependencies` (names, or
 * `{name, version?, signer?}`), `main` (variant → entry path inside `variants/<variant>/`) and `hashes`
 * (the Merkle hashes, `root` being the package identity). Written as the reference writes it: sorted keys,
 * two-space indentation.
 */

import { ManifestError } from './errors.ts';
import { unsafePath } from './lgx-paths.ts';

export const MANIFEST_VERSION = '0.3.0';

export interface Dependency {
  readonly name: string;
  readonly version?: string;
  readonly signer?: string;
}

export interface Manifest {
  readonly manifestVersion: string;
  readonly name: string;
  readonly version: string;
  readonly description: string;
  readonly author: string;
  readonly type: string;
  readonly category: string;
  readonly icon: string;
  readonly dependencies: readonly (string | Dependency)[];
  readonly main: Readonly<Record<string, string>>;
  readonly hashes: Readonly<Record<string, string>>;
}

/** A package or module name: lowercase letters, digits, `_`, `-`, `.`; not starting with `.` or `-`. */
export const NAME_RE = /^[a-z0-9_][a-z0-9_.-]{0,63}$/;

/** A package version: semver-like (letters, digits, `.`, `+`, `-`; at most 64), no `..`; it names files. */
export const VERSION_RE = /^[0-9A-Za-z][0-9A-Za-z.+-]{0,63}$/;
export const isVersion = (v: string): boolean => VERSION_RE.test(v) && !v.includes('..');

/** A dependency's name, as a manifest or catalog lists it (`name` or `{name, …}`); '' when it has none. */
export const dependencyName = (d: unknown): string =>
  typeof d === 'string' ? d : d && typeof d === 'object' ? String((d as { name?: unknown }).name ?? '') : '';

/** Parses and checks a manifest's text. */
export function parseManifest(text: string): Manifest {
  let j: unknown;
  try {
    j = JSON.parse(text);
  } catch (e) {
    throw new ManifestError(`manifest.json: JSON parse error: ${(e as Error).message}`);
  }
  if (j === null || typeof j !== 'object' || Array.isArray(j))
    throw new ManifestError('manifest.json: not a JSON object');
  const o = j as Record<string, unknown>;
  const str = (k: string, required = true): string => {
    const v = o[k];
    if (v === undefined && !required) return '';
    if (typeof v !== 'string') throw new ManifestError(`manifest.json: missing or invalid '${k}' field`);
    return v;
  };
  const manifestVersion = str('manifestVersion');
  if (!/^0\.\d+(\.\d+)?/.test(manifestVersion))
    throw new ManifestError(`manifest.json: unsupported manifest version: ${manifestVersion}`);
  const name = str('name');
  if (!NAME_RE.test(name))
    throw new ManifestError(
      `manifest.json: invalid 'name' ${JSON.stringify(name)} (lowercase letters, digits, _ . -)`,
    );
  const version = str('version');
  if (version === '') throw new ManifestError("manifest.json: 'version' field is empty");
  if (!isVersion(version))
    throw new ManifestError(
      `manifest.json: invalid 'version' ${JSON.stringify(version)} (letters, digits, . + -, at most 64)`,
    );
  const depsRaw = o.dependencies ?? [];
  if (!Array.isArray(depsRaw))
    throw new ManifestError("manifest.json: missing or invalid 'dependencies' field");
  const dependencies = depsRaw.map((d, i): string | Dependency => {
    if (typeof d === 'string' && NAME_RE.test(d)) return d;
    if (d && typeof d === 'object' && !Array.isArray(d)) {
      const dd = d as Record<string, unknown>;
      const ok =
        typeof dd.name === 'string' &&
        NAME_RE.test(dd.name) &&
        (dd.version === undefined || typeof dd.version === 'string') &&
        (dd.signer === undefined || typeof dd.signer === 'string');
      if (ok) {
        const dep: { name: string; version?: string; signer?: string } = { name: dd.name as string };
        if (dd.version !== undefined) dep.version = dd.version as string;
        if (dd.signer !== undefined) dep.signer = dd.signer as string;
        return dep;
      }
    }
    throw new ManifestError(`manifest.json: invalid dependency entry ${i}`);
  });
  const mainRaw = o.main;
  if (mainRaw === null || typeof mainRaw !== 'object' || Array.isArray(mainRaw))
    throw new ManifestError("manifest.json: missing or invalid 'main' field");
  const main: Record<string, string> = {};
  for (const [k, v] of Object.entries(mainRaw)) {
    if (typeof v !== 'string')
      throw new ManifestError(`manifest.json: invalid main entry for '${k}' (not a string)`);
    const why = unsafePath(v);
    if (why) throw new ManifestError(`manifest.json: invalid main path for '${k}': ${why}`);
    main[k.toLowerCase()] = v;
  }
  const hashesRaw = o.hashes ?? {};
  if (hashesRaw === null || typeof hashesRaw !== 'object' || Array.isArray(hashesRaw))
    throw new ManifestError("manifest.json: invalid 'hashes' field");
  const hashes: Record<string, string> = {};
  for (const [k, v] of Object.entries(hashesRaw)) {
    if (typeof v !== 'string' || !/^[0-9a-f]{64}$/.test(v))
      throw new ManifestError(`manifest.json: hashes.${k} is not a SHA-256 hex digest`);
    hashes[k] = v;
  }
  return {
    manifestVersion,
    name,
    version,
    description: str('description', false),
    author: str('author', false),
    type: str('type', false),
    category: str('category', false),
    icon: str('icon', false),
    dependencies,
    main,
    hashes,
  };
}

/** Sorts object keys at every depth. */
function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === 'object')
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, sortKeys((v as Record<string, unknown>)[k])]),
    );
  return v;
}

/** The manifest as the reference writes it (`json::dump(2)`, keys sorted). */
export const manifestJson = (m: Manifest): string => JSON.stringify(sortKeys(m), null, 2);
