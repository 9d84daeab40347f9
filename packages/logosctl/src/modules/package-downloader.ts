/**
 * Bundled `package_downloader` (operator.md §1.7; logos-package-downloader-module `docs/spec.md`
 * "Operations"): the session's catalogs and downloads (repositories.ts does the work; the session is the
 * module's data folder's grandparent). Calls, as the reference module names them:
 *
 * - `listRepositories()` → `[{url, enabled, isDefault, name, displayName, description, homepage, indexUrl,
 *   trustedSignerDids, resolveError}]`;
 * - `addRepository(url)`, `removeRepository(url)`, `setRepositoryEnabled(url, bool)`, `refreshCatalog()`
 *   → `{success, error?}` (refresh adds `errors: [{url, error}]`, the catalogs that failed); mutations
 *   emit `catalogChanged`;
 * - `getCatalog()`, `getCatalogForRepo(urlOrName)` → `[{repositoryUrl, repositoryName,
 *   repositoryDisplayName, name, type, category, author, description, icon, versions}]`, `getCategories()`;
 * - `resolveDependencies(depsJson, installedJson)` → `[{name, version, rootHash, repositoryUrl, url,
 *   topLevel}]` (or a final `{name, error}`), without downloading;
 * - `downloadResolvedDependencies(inputsJson, installedJson)` → `[{name, path, error?}]`;
 * - `downloadPinned(repository, name, version, rootHash)` → `{name, path, version, rootHash,
 *   repositoryUrl}` or `{name, path:"", error}`; empty fields widen the choice.
 *
 * List arguments are JSON text (as the reference passes them) or JSON arrays. Bad arguments answer an
 * `error` and change nothing.
 */
import { resolve } from 'node:path';
import type { Json } from '@logos-ts/shared/json';
import type { ModuleFactory } from '@logos-ts/shared/module-api';
import { CatalogError, FetchError, RepoError } from '../package/errors.ts';
import { type Dep, Repositories } from '../package/repositories.ts';

type Map_ = { [k: string]: Json };

/** A list argument: JSON text or an array. */
function listArg(v: Json | undefined, what: string): unknown[] {
  if (v === undefined || v === '' || v === null) return [];
  if (Array.isArray(v)) return v;
  if (typeof v === 'string') {
    let j: unknown;
    try {
      j = JSON.parse(v);
    } catch {
      throw new RepoError(`${what}: not JSON`);
    }
    if (Array.isArray(j)) return j;
  }
  throw new RepoError(`${what}: expected a JSON array`);
}

function deps(v: Json | undefined): Dep[] {
  return listArg(v, 'dependencies').map((d, i) => {
    if (typeof d === 'string' && d !== '') return { name: d };
    if (d && typeof d === 'object' && typeof (d as { name?: unknown }).name === 'string') {
      const o = d as Record<string, unknown>;
      const opt = (k: string): string | undefined => {
        const x = o[k];
        if (x === undefined || x === null || x === '') return undefined;
        if (typeof x !== 'string') throw new RepoError(`dependencies[${i}].${k}: expected a string`);
        return x;
      };
      const dep: { name: string; version?: string; rootHash?: string; repositoryUrl?: string } = {
        name: o.name as string,
      };
      const version = opt('version');
      const rootHash = opt('rootHash');
      const repositoryUrl = opt('repositoryUrl');
      if (version !== undefined) dep.version = version;
      if (rootHash !== undefined) dep.rootHash = rootHash;
      if (repositoryUrl !== undefined) dep.repositoryUrl = repositoryUrl;
      return dep;
    }
    throw new RepoError(`dependencies[${i}]: expected a name or {name, version?, rootHash?, repositoryUrl?}`);
  });
}

function installedArg(v: Json | undefined): { name: string; version: string }[] {
  return listArg(v, 'installed').map((p) => {
    const o = (p ?? {}) as Record<string, unknown>;
    return { name: String(o.name ?? ''), version: String(o.version ?? '') };
  });
}

const known = (e: unknown): e is Error =>
  e instanceof RepoError || e instanceof FetchError || e instanceof CatalogError;

const factory: ModuleFactory = (ctx) => {
  const repos = new Repositories(resolve(ctx.dataDir, '..', '..'));
  const mutate = async (f: () => void | Promise<void>): Promise<Map_> => {
    try {
      await f();
    } catch (e) {
      if (known(e)) return { success: false, error: e.message };
      throw e;
    }
    ctx.emit('catalogChanged', null);
    return { success: true };
  };
  const urlArg = (v: Json): string => {
    if (typeof v !== 'string' || v === '') throw new RepoError('expected a catalog URL');
    return v;
  };
  const catalog = async (only?: string): Promise<Json[]> => {
    const out: Json[] = [];
    for (const r of await repos.enabled()) {
      if (only !== undefined && r.url !== only && r.repo.name !== only) continue;
      for (const p of r.packages)
        out.push({
          repositoryUrl: r.url,
          repositoryName: r.repo.name,
          repositoryDisplayName: r.repo.displayName,
          name: p.name,
          type: p.type,
          category: p.category,
          author: p.author,
          description: p.description,
          icon: p.icon,
          versions: p.versions.map((v) => ({
            version: v.version,
            releasedAt: v.releasedAt,
            url: v.url,
            rootHash: v.rootHash,
            size: v.size,
            sha256: v.sha256,
            signed: v.signed,
            manifest: v.manifest as Json,
          })),
        });
    }
    return out;
  };
  const pinned = async (repo: Json, name: Json, version: Json, rootHash: Json): Promise<Map_> => {
    const s = (v: Json): string => (typeof v === 'string' ? v : '');
    if (typeof name !== 'string' || name === '')
      return { name: '', path: '', error: 'expected a package name' };
    try {
      const dep: { name: string; version?: string; rootHash?: string } = { name };
      if (s(version) !== '') dep.version = s(version);
      if (s(rootHash) !== '') dep.rootHash = s(rootHash);
      const p = await repos.pick(dep, s(repo));
      const path = await repos.download(p);
      return { name, path, version: p.v.version, rootHash: p.v.rootHash, repositoryUrl: p.repositoryUrl };
    } catch (e) {
      if (known(e)) return { name, path: '', error: e.message };
      throw e;
    }
  };
  return {
    name: 'package_downloader',
    version: '0.1.0',
    dependencies: [],
    events: ['catalogChanged'],
    methods: {
      listRepositories: async () => {
        const out: Json[] = [];
        for (const r of repos.list()) {
          const f = await repos.fetched(r.url);
          out.push({
            url: r.url,
            enabled: r.enabled,
            isDefault: r.isDefault,
            name: f.repo?.name ?? '',
            displayName: f.repo?.displayName ?? '',
            description: f.repo?.description ?? '',
            homepage: f.repo?.homepage ?? '',
            indexUrl: f.repo?.indexUrl ?? '',
            trustedSignerDids: [...(f.repo?.trustedSigners ?? [])],
            resolveError: f.error ?? '',
          });
        }
        return out;
      },
      addRepository: (url: Json) => mutate(() => repos.add(urlArg(url))),
      removeRepository: (url: Json) => mutate(() => repos.remove(urlArg(url))),
      setRepositoryEnabled: (url: Json, enabled: Json) =>
        mutate(() => {
          if (typeof enabled !== 'boolean') throw new RepoError('expected true or false');
          repos.setEnabled(urlArg(url), enabled);
        }),
      refreshCatalog: async () => {
        const errors = await repos.refresh();
        return { success: true, errors: errors.map((e) => ({ url: e.url, error: e.error })) };
      },
      getCatalog: () => catalog(),
      getCatalogForRepo: (which: Json) => {
        if (typeof which !== 'string' || which === '') return { error: 'expected a catalog URL or name' };
        return catalog(which);
      },
      getCategories: async () => [
        ...new Set((await catalog()).map((p) => String((p as Map_).category ?? '')).filter((c) => c !== '')),
      ],
      resolveDependencies: async (depsJson: Json, installedJson?: Json) => {
        try {
          return (await repos.resolve(deps(depsJson), installedArg(installedJson))) as unknown as Json[];
        } catch (e) {
          if (known(e)) return [{ name: '', error: e.message }];
          throw e;
        }
      },
      downloadResolvedDependencies: async (inputsJson: Json, installedJson?: Json) => {
        let list: Dep[];
        try {
          list = deps(inputsJson);
          installedArg(installedJson);
        } catch (e) {
          if (known(e)) return [{ name: '', path: '', error: e.message }];
          throw e;
        }
        const rows: Json[] = [];
        for (const d of list)
          rows.push(await pinned(d.repositoryUrl ?? '', d.name, d.version ?? '', d.rootHash ?? ''));
        return rows;
      },
      downloadPinned: (repo: Json, name: Json, version?: Json, rootHash?: Json) =>
        pinned(repo, name, version ?? '', rootHash ?? ''),
    },
    close: async () => {},
  };
};
export default factory;
