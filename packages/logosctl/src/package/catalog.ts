/**
 * Package catalogs (operator.md §1.7; logos-package-downloader-module README, logos-package-downloader
 * `docs/spec.md` and `tests/test_downloader.cpp`): a catalog is a `logos-repo.json` descriptor
 * (`schemaVersion`, `name`, `displayName`, `description`, `homepage`, `indexUrl`, `trustedSigners` of
 * `{did}`) whose `indexUrl` names an `index.json`:
 *
 * ```json
 * {"schemaVersion":2,"repositoryName":"…","packages":[{"name":"…","type":"core","category":"…",
 *   "author":"…","description":"…","icon":"","versions":[{"releasedAt":"2026-01-01T00:00:00Z",
 *   "url":"blockchain_module-0.2.4.lgx","size":1234,"sha256":"…","rootHash":"…","manifest":{…},
 *   "signature":null}]}]}
 * ```
 *
 * The reference fixes `packages[].name`, `versions[].{releasedAt,url,rootHash,manifest,signature}`;
 * inferred: the package header fields, `size` and `sha256` (named "size/checksum fields" by the spec),
 * and relative URLs, resolved against the document that holds them (the index against the descriptor,
 * a package against the index), so a catalog folder can be moved as a whole.
 */

import { CatalogError } from './errors.ts';
import { isVersion, NAME_RE } from './manifest.ts';
import { compareVersions } from './semver.ts';

/** inferred: the largest descriptor and index this tool reads. */
export const MAX_REPO_BYTES = 1024 * 1024;
export const MAX_INDEX_BYTES = 16 * 1024 * 1024;

export interface RepoDescriptor {
  readonly schemaVersion: number;
  readonly name: string;
  readonly displayName: string;
  readonly description: string;
  readonly homepage: string;
  /** Absolute, resolved against the descriptor's URL. */
  readonly indexUrl: string;
  readonly trustedSigners: readonly string[];
}

export interface CatalogVersion {
  readonly version: string;
  readonly releasedAt: string;
  /** Absolute, resolved against the index's URL. */
  readonly url: string;
  readonly rootHash: string;
  readonly size: number | null;
  readonly sha256: string | null;
  readonly manifest: Record<string, unknown> | null;
  readonly signed: boolean;
}

export interface CatalogPackage {
  readonly name: string;
  readonly type: string;
  readonly category: string;
  readonly author: string;
  readonly description: string;
  readonly icon: string;
  /** Newest first (SemVer precedence, then `releasedAt`). */
  readonly versions: readonly CatalogVersion[];
}

function parseJsonObject(text: string, what: string): Record<string, unknown> {
  let j: unknown;
  try {
    j = JSON.parse(text);
  } catch (e) {
    throw new CatalogError(`${what}: not JSON (${(e as Error).message})`);
  }
  if (j === null || typeof j !== 'object' || Array.isArray(j))
    throw new CatalogError(`${what}: not a JSON object`);
  return j as Record<string, unknown>;
}

function resolveUrl(ref: string, base: string, what: string): string {
  try {
    return new URL(ref, base).href;
  } catch {
    throw new CatalogError(`${what}: '${ref}' is not a URL`);
  }
}

const optStr = (o: Record<string, unknown>, k: string, what: string): string => {
  const v = o[k];
  if (v === undefined || v === null) return '';
  if (typeof v !== 'string') throw new CatalogError(`${what}: '${k}' must be a string`);
  return v;
};

/** Parses a `logos-repo.json` fetched from `url`. */
export function parseRepoDescriptor(text: string, url: string): RepoDescriptor {
  const what = `${url}`;
  const o = parseJsonObject(text, what);
  const name = optStr(o, 'name', what);
  if (name === '') throw new CatalogError(`${what}: 'name' is required`);
  const indexRef = optStr(o, 'indexUrl', what);
  if (indexRef === '') throw new CatalogError(`${what}: 'indexUrl' is required`);
  const signers = o.trustedSigners ?? [];
  if (!Array.isArray(signers)) throw new CatalogError(`${what}: 'trustedSigners' must be an array`);
  const trustedSigners = signers.map((s, i) => {
    const did =
      typeof s === 'string' ? s : s && typeof s === 'object' ? (s as { did?: unknown }).did : undefined;
    if (typeof did !== 'string' || did === '')
      throw new CatalogError(`${what}: trustedSigners[${i}] has no 'did'`);
    return did;
  });
  const sv = o.schemaVersion ?? 1;
  if (typeof sv !== 'number' || !Number.isInteger(sv))
    throw new CatalogError(`${what}: 'schemaVersion' must be a whole number`);
  return {
    schemaVersion: sv,
    name,
    displayName: optStr(o, 'displayName', what) || name,
    description: optStr(o, 'description', what),
    homepage: optStr(o, 'homepage', what),
    indexUrl: resolveUrl(indexRef, url, what),
    trustedSigners,
  };
}

/** Parses an `index.json` fetched from `url`. */
export function parseIndex(text: string, url: string): CatalogPackage[] {
  const o = parseJsonObject(text, url);
  const pkgs = o.packages;
  if (!Array.isArray(pkgs)) throw new CatalogError(`${url}: 'packages' must be an array`);
  return pkgs.map((p, i) => {
    const what = `${url}: packages[${i}]`;
    if (p === null || typeof p !== 'object' || Array.isArray(p))
      throw new CatalogError(`${what}: not an object`);
    const po = p as Record<string, unknown>;
    const name = optStr(po, 'name', what);
    if (name === '') throw new CatalogError(`${what}: 'name' is required`);
    if (!NAME_RE.test(name))
      throw new CatalogError(
        `${what}: invalid 'name' ${JSON.stringify(name)} (lowercase letters, digits, _ . -)`,
      );
    const vs = po.versions;
    if (!Array.isArray(vs)) throw new CatalogError(`${what}: 'versions' must be an array`);
    const versions = vs.map((v, j): CatalogVersion => {
      const w = `${what}.versions[${j}]`;
      if (v === null || typeof v !== 'object' || Array.isArray(v))
        throw new CatalogError(`${w}: not an object`);
      const vo = v as Record<string, unknown>;
      const manifest = vo.manifest;
      if (
        manifest !== undefined &&
        manifest !== null &&
        (typeof manifest !== 'object' || Array.isArray(manifest))
      )
        throw new CatalogError(`${w}: 'manifest' must be an object`);
      const m = (manifest ?? null) as Record<string, unknown> | null;
      const version = optStr(vo, 'version', w) || (m && typeof m.version === 'string' ? m.version : '');
      if (version === '')
        throw new CatalogError(`${w}: no version (neither 'version' nor 'manifest.version')`);
      if (!isVersion(version))
        throw new CatalogError(
          `${w}: invalid version ${JSON.stringify(version)} (letters, digits, . + -, at most 64)`,
        );
      const urlRef = optStr(vo, 'url', w);
      if (urlRef === '') throw new CatalogError(`${w}: 'url' is required`);
      const rootHash = optStr(vo, 'rootHash', w);
      if (rootHash !== '' && !/^[0-9a-f]{64}$/.test(rootHash))
        throw new CatalogError(`${w}: 'rootHash' is not a SHA-256 hex digest`);
      const size = vo.size;
      if (
        size !== undefined &&
        size !== null &&
        (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 0)
      )
        throw new CatalogError(`${w}: 'size' must be a whole number of bytes`);
      const sha = optStr(vo, 'sha256', w);
      if (sha !== '' && !/^[0-9a-f]{64}$/.test(sha))
        throw new CatalogError(`${w}: 'sha256' is not a hex digest`);
      return {
        version,
        releasedAt: optStr(vo, 'releasedAt', w),
        url: resolveUrl(urlRef, url, w),
        rootHash,
        size: typeof size === 'number' ? size : null,
        sha256: sha === '' ? null : sha,
        manifest: m,
        signed: vo.signature !== undefined && vo.signature !== null,
      };
    });
    versions.sort(
      (a, b) =>
        compareVersions(b.version, a.version) ||
        (b.releasedAt < a.releasedAt ? -1 : b.releasedAt > a.releasedAt ? 1 : 0),
    );
    const head = versions[0]?.manifest ?? {};
    const field = (k: string): string => {
      const v = po[k] ?? head[k];
      return typeof v === 'string' ? v : '';
    };
    return {
      name,
      type: field('type'),
      category: field('category'),
      author: field('author'),
      description: field('description'),
      icon: field('icon'),
      versions,
    };
  });
}
