/**
 * The session's catalogs (operator.md §1.3 `catalog ls | add URL | remove URL | enable URL | disable URL |
 * refresh`, §1.7; logos-package-downloader `docs/spec.md` "Configuration", "Catalog Resolution",
 * "Verified Download", "Dependency Resolution"):
 *
 * - the registry: a built-in default catalog plus user catalogs, kept in `<session>/daemon/catalogs.json`
 *   (`{schemaVersion:1, defaultDisabled, defaultRemoved, repositories:[{url, enabled}]}`, mode 600), and the
 *   `catalogs:` of `daemon/config.yaml` (listed, not removable here). inferred: the default catalog is the
 *   modules shipped with this tool (shipped.ts), built into `<session>/cache/default-catalog/` at refresh,
 *   so the guide's `catalog refresh` + `package install … --version … --root-hash …` works offline;
 * - refresh fetches every enabled catalog's `logos-repo.json` and `index.json` into
 *   `<session>/cache/catalogs/<sha256(url)>.json`; a catalog that fails is recorded with its `resolveError`
 *   and skipped, never failing the others; a catalog never refreshed is fetched on first use;
 * - resolution picks, per dependency (`name` or `{name, version?, rootHash?, repositoryUrl?}`), the highest
 *   version across enabled catalogs that meets the range and root hash, dependencies before dependents, a
 *   top-level pin winning over a transitive mention, transitive dependencies already installed in a
 *   satisfying version left out; an unsatisfiable one gives `{name, error}` and stops;
 * - a download fetches the version's URL within its declared `size` (else the package limit), checks its
 *   `sha256` when given, then reads it as a package (structure and self-consistent hashes) and binds it
 *   to the catalog entry: its root hash must equal the catalog's `rootHash` and its manifest's name and
 *   version the entry's; only then is it renamed into `<session>/cache/downloads/<name>-<version>.lgx`.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { writeFileAtomic } from '@logos-ts/shared/atomic-file';
import { parse as parseYaml } from 'yaml';
import {
  type CatalogPackage,
  type CatalogVersion,
  MAX_INDEX_BYTES,
  MAX_REPO_BYTES,
  parseIndex,
  parseRepoDescriptor,
  type RepoDescriptor,
} from './catalog.ts';
import { CatalogError, FetchError, LgxError, RepoError } from './errors.ts';
import { checkUrl, fetchBytes } from './fetch.ts';
import { MAX_PACKAGE_BYTES, readLgx } from './lgx.ts';
import { dependencyName, isVersion, NAME_RE } from './manifest.ts';
import { compareVersions, satisfies } from './semver.ts';
import { buildShippedCatalog } from './shipped.ts';

interface RepoConfig {
  schemaVersion: 1;
  defaultDisabled: boolean;
  defaultRemoved: boolean;
  repositories: { url: string; enabled: boolean }[];
}

interface Fetched {
  readonly url: string;
  readonly fetchedAt: string;
  readonly repo?: RepoDescriptor;
  readonly packages?: CatalogPackage[];
  readonly error?: string;
}

export interface Repository {
  readonly url: string;
  readonly enabled: boolean;
  readonly isDefault: boolean;
  readonly fromConfig: boolean;
}

export interface Dep {
  readonly name: string;
  readonly version?: string;
  readonly rootHash?: string;
  readonly repositoryUrl?: string;
}

export interface Resolved {
  readonly name: string;
  readonly version: string;
  readonly rootHash: string;
  readonly repositoryUrl: string;
  readonly url: string;
  readonly topLevel: boolean;
}

export interface Pick {
  readonly repositoryUrl: string;
  readonly pkg: CatalogPackage;
  readonly v: CatalogVersion;
}

const depRange = (d: unknown): string =>
  d && typeof d === 'object' && typeof (d as { version?: unknown }).version === 'string'
    ? (d as { version: string }).version
    : '';

function writePrivateJson(path: string, v: unknown): void {
  writeFileAtomic(path, `${JSON.stringify(v, null, 2)}\n`, false);
}

export class Repositories {
  readonly configPath: string;
  readonly cacheDir: string;
  readonly downloadsDir: string;
  readonly defaultDir: string;
  readonly defaultUrl: string;
  private readonly memo = new Map<string, Fetched>();

  constructor(readonly session: string) {
    this.configPath = join(session, 'daemon', 'catalogs.json');
    this.cacheDir = join(session, 'cache', 'catalogs');
    this.downloadsDir = join(session, 'cache', 'downloads');
    this.defaultDir = join(session, 'cache', 'default-catalog');
    this.defaultUrl = pathToFileURL(join(this.defaultDir, 'logos-repo.json')).href;
  }

  private readConfig(): RepoConfig {
    const empty: RepoConfig = {
      schemaVersion: 1,
      defaultDisabled: false,
      defaultRemoved: false,
      repositories: [],
    };
    if (!existsSync(this.configPath)) return empty;
    let j: Partial<RepoConfig>;
    try {
      j = JSON.parse(readFileSync(this.configPath, 'utf8')) as Partial<RepoConfig>;
    } catch (e) {
      throw new RepoError(`${this.configPath}: ${(e as Error).message}`);
    }
    const repos = Array.isArray(j.repositories) ? j.repositories : [];
    return {
      schemaVersion: 1,
      defaultDisabled: j.defaultDisabled === true,
      defaultRemoved: j.defaultRemoved === true,
      repositories: repos
        .filter((r) => r && typeof r.url === 'string')
        .map((r) => ({ url: r.url, enabled: r.enabled !== false })),
    };
  }

  private writeConfig(c: RepoConfig): void {
    mkdirSync(join(this.session, 'daemon'), { recursive: true, mode: 0o700 });
    writePrivateJson(this.configPath, c);
  }

  /** `catalogs:` of `daemon/config.yaml` (URLs or `{url, enabled}`). */
  private configured(): { url: string; enabled: boolean }[] {
    const path = join(this.session, 'daemon', 'config.yaml');
    if (!existsSync(path)) return [];
    const doc = parseYaml(readFileSync(path, 'utf8')) as { catalogs?: unknown } | null;
    const list = doc?.catalogs ?? [];
    if (!Array.isArray(list)) throw new RepoError('daemon/config.yaml: catalogs: expected a list');
    return list.map((c, i) => {
      if (typeof c === 'string') return { url: c, enabled: true };
      if (c && typeof c === 'object' && typeof (c as { url?: unknown }).url === 'string')
        return { url: (c as { url: string }).url, enabled: (c as { enabled?: unknown }).enabled !== false };
      throw new RepoError(`daemon/config.yaml: catalogs[${i}]: expected a URL or {url, enabled}`);
    });
  }

  /** Every configured catalog: the default (unless removed), then config.yaml's, then the user's. */
  list(): Repository[] {
    const c = this.readConfig();
    const out: Repository[] = [];
    if (!c.defaultRemoved)
      out.push({ url: this.defaultUrl, enabled: !c.defaultDisabled, isDefault: true, fromConfig: false });
    for (const r of this.configured())
      if (!out.some((o) => o.url === r.url)) out.push({ ...r, isDefault: false, fromConfig: true });
    for (const r of c.repositories)
      if (!out.some((o) => o.url === r.url)) out.push({ ...r, isDefault: false, fromConfig: false });
    return out;
  }

  private cachePath(url: string): string {
    return join(this.cacheDir, `${createHash('sha256').update(url).digest('hex')}.json`);
  }

  private async fetchRepo(url: string): Promise<Fetched> {
    const fetchedAt = new Date().toISOString();
    try {
      if (url === this.defaultUrl) buildShippedCatalog(this.defaultDir);
      const repo = parseRepoDescriptor((await fetchBytes(url, MAX_REPO_BYTES)).toString('utf8'), url);
      const packages = parseIndex(
        (await fetchBytes(repo.indexUrl, MAX_INDEX_BYTES)).toString('utf8'),
        repo.indexUrl,
      );
      return { url, fetchedAt, repo, packages };
    } catch (e) {
      if (e instanceof FetchError || e instanceof CatalogError || e instanceof LgxError)
        return { url, fetchedAt, error: e.message };
      throw e;
    }
  }

  private store(f: Fetched): void {
    this.memo.set(f.url, f);
    mkdirSync(this.cacheDir, { recursive: true, mode: 0o700 });
    writePrivateJson(this.cachePath(f.url), f);
  }

  /** The fetched state of a catalog: memory, then the cache file, then a fetch. */
  async fetched(url: string): Promise<Fetched> {
    const m = this.memo.get(url);
    if (m) return m;
    const path = this.cachePath(url);
    if (existsSync(path)) {
      try {
        const f = JSON.parse(readFileSync(path, 'utf8')) as Fetched;
        if (f.url === url) {
          this.memo.set(url, f);
          return f;
        }
      } catch {
        // a damaged cache file is fetched again
      }
    }
    const f = await this.fetchRepo(url);
    this.store(f);
    return f;
  }

  async add(url: string): Promise<void> {
    checkUrl(url);
    const c = this.readConfig();
    if (url === this.defaultUrl) {
      if (!c.defaultRemoved) throw new RepoError(`Repository already registered: ${url}`);
      this.writeConfig({ ...c, defaultRemoved: false, defaultDisabled: false });
      return;
    }
    if (this.list().some((r) => r.url === url)) throw new RepoError(`Repository already registered: ${url}`);
    const f = await this.fetchRepo(url);
    if (f.error) throw new RepoError(`Cannot add ${url}: ${f.error}`);
    this.store(f);
    this.writeConfig({ ...c, repositories: [...c.repositories, { url, enabled: true }] });
  }

  remove(url: string): void {
    const c = this.readConfig();
    if (url === this.defaultUrl) {
      this.writeConfig({ ...c, defaultRemoved: true });
      return;
    }
    if (!c.repositories.some((r) => r.url === url)) {
      if (this.configured().some((r) => r.url === url))
        throw new RepoError(`${url} is listed under catalogs: in daemon/config.yaml; remove it there`);
      throw new RepoError(`No such repository: ${url}`);
    }
    this.writeConfig({ ...c, repositories: c.repositories.filter((r) => r.url !== url) });
    this.memo.delete(url);
    rmSync(this.cachePath(url), { force: true });
  }

  setEnabled(url: string, enabled: boolean): void {
    const c = this.readConfig();
    if (url === this.defaultUrl && !c.defaultRemoved) {
      this.writeConfig({ ...c, defaultDisabled: !enabled });
      return;
    }
    if (!c.repositories.some((r) => r.url === url)) {
      if (this.configured().some((r) => r.url === url))
        throw new RepoError(`${url} is listed under catalogs: in daemon/config.yaml; change it there`);
      throw new RepoError(`No such repository: ${url}`);
    }
    this.writeConfig({
      ...c,
      repositories: c.repositories.map((r) => (r.url === url ? { ...r, enabled } : r)),
    });
  }

  /** Re-fetches every enabled catalog; returns the failures, by URL. */
  async refresh(): Promise<{ url: string; error: string }[]> {
    const errors: { url: string; error: string }[] = [];
    for (const r of this.list()) {
      if (!r.enabled) continue;
      const f = await this.fetchRepo(r.url);
      this.store(f);
      if (f.error) errors.push({ url: r.url, error: f.error });
    }
    return errors;
  }

  /** The enabled catalogs that resolved, with their packages. */
  async enabled(): Promise<{ url: string; repo: RepoDescriptor; packages: CatalogPackage[] }[]> {
    const out: { url: string; repo: RepoDescriptor; packages: CatalogPackage[] }[] = [];
    for (const r of this.list()) {
      if (!r.enabled) continue;
      const f = await this.fetched(r.url);
      if (f.repo && f.packages) out.push({ url: r.url, repo: f.repo, packages: f.packages });
    }
    return out;
  }

  /** Selects one release of `name`; throws `RepoError` saying why none fits. */
  async pick(dep: Dep, catalog?: string): Promise<Pick> {
    const repos = (await this.enabled()).filter(
      (r) =>
        (catalog === undefined || catalog === '' || r.url === catalog || r.repo.name === catalog) &&
        (dep.repositoryUrl === undefined || dep.repositoryUrl === '' || r.url === dep.repositoryUrl),
    );
    const offers: Pick[] = [];
    for (const r of repos)
      for (const pkg of r.packages)
        if (pkg.name === dep.name)
          for (const v of pkg.versions) offers.push({ repositoryUrl: r.url, pkg, v });
    if (offers.length === 0)
      throw new RepoError(
        `No package named '${dep.name}' in ${catalog ? `catalog ${catalog}` : 'any enabled catalog'} (see \`logosctl catalog ls\`, \`logosctl catalog refresh\`)`,
      );
    const range = dep.version ?? '';
    const inRange = offers.filter(
      (o) => range === '' || o.v.version === range || satisfies(o.v.version, range),
    );
    if (inRange.length === 0)
      throw new RepoError(
        `No version of '${dep.name}' matches '${range}' (available: ${[...new Set(offers.map((o) => o.v.version))].join(', ')})`,
      );
    const hash = dep.rootHash ?? '';
    const fits = inRange.filter((o) => hash === '' || o.v.rootHash === hash);
    if (fits.length === 0)
      throw new RepoError(
        `No release of '${dep.name}'${range ? ` ${range}` : ''} has root hash ${hash} (available: ${inRange.map((o) => `${o.v.version} ${o.v.rootHash || '(none)'}`).join(', ')})`,
      );
    fits.sort(
      (a, b) => compareVersions(b.v.version, a.v.version) || (b.v.releasedAt < a.v.releasedAt ? -1 : 1),
    );
    return fits[0]!;
  }

  /** Resolves dependencies into install order (dependencies first); an `{name, error}` row ends the list. */
  async resolve(
    deps: readonly Dep[],
    installed: readonly { name: string; version: string }[],
    catalog?: string,
  ): Promise<(Resolved | { name: string; error: string })[]> {
    const out: (Resolved | { name: string; error: string })[] = [];
    const picked = new Map<string, Pick>();
    const top = new Set(deps.map((d) => d.name));
    try {
      for (const d of deps) if (!picked.has(d.name)) picked.set(d.name, await this.pick(d, catalog));
    } catch (e) {
      if (!(e instanceof RepoError)) throw e;
      const failed = deps.find((d) => !picked.has(d.name))!;
      return [{ name: failed.name, error: e.message }];
    }
    const done = new Set<string>();
    const visiting = new Set<string>();
    const visit = async (name: string): Promise<void> => {
      if (done.has(name) || visiting.has(name)) return;
      visiting.add(name);
      const p = picked.get(name)!;
      const manifestDeps = Array.isArray(p.v.manifest?.dependencies)
        ? (p.v.manifest.dependencies as unknown[])
        : [];
      for (const md of manifestDeps) {
        const dn = dependencyName(md);
        if (dn === '' || done.has(dn)) continue;
        if (!picked.has(dn)) {
          const range = depRange(md);
          const have = installed.find((i) => i.name === dn);
          if (have && (range === '' || satisfies(have.version, range))) continue;
          picked.set(dn, await this.pick(range ? { name: dn, version: range } : { name: dn }, catalog));
        }
        await visit(dn);
      }
      visiting.delete(name);
      done.add(name);
      out.push({
        name,
        version: p.v.version,
        rootHash: p.v.rootHash,
        repositoryUrl: p.repositoryUrl,
        url: p.v.url,
        topLevel: top.has(name),
      });
    };
    for (const d of deps) {
      try {
        await visit(d.name);
      } catch (e) {
        if (!(e instanceof RepoError)) throw e;
        out.push({ name: d.name, error: e.message });
        return out;
      }
    }
    return out;
  }

  /** Downloads and verifies one release; returns the path of the `.lgx` in the downloads folder. */
  async download(p: Pick): Promise<string> {
    const v = p.v;
    const limit = v.size !== null ? Math.min(v.size, MAX_PACKAGE_BYTES) : MAX_PACKAGE_BYTES;
    let bytes: Buffer;
    try {
      bytes = await fetchBytes(v.url, limit);
    } catch (e) {
      throw new RepoError((e as Error).message);
    }
    if (v.size !== null && bytes.length !== v.size)
      throw new RepoError(`${v.url}: ${bytes.length} bytes, the catalog says ${v.size}`);
    if (v.sha256 !== null && createHash('sha256').update(bytes).digest('hex') !== v.sha256)
      throw new RepoError(`${v.url}: SHA-256 differs from the catalog's`);
    let pkg: Awaited<ReturnType<typeof readLgx>>;
    try {
      pkg = await readLgx(bytes);
    } catch (e) {
      throw new RepoError(`${v.url}: ${(e as Error).message}`);
    }
    if (v.rootHash !== '' && pkg.rootHash !== v.rootHash)
      throw new RepoError(`${v.url}: root hash ${pkg.rootHash} differs from the catalog's ${v.rootHash}`);
    if (pkg.manifest.name !== p.pkg.name || pkg.manifest.version !== v.version)
      throw new RepoError(
        `${v.url}: the package is ${pkg.manifest.name} ${pkg.manifest.version}, the catalog says ${p.pkg.name} ${v.version}`,
      );
    mkdirSync(this.downloadsDir, { recursive: true, mode: 0o700 });
    const file = `${p.pkg.name}-${v.version}.lgx`;
    const path = join(this.downloadsDir, file);
    if (
      !NAME_RE.test(p.pkg.name) ||
      !isVersion(v.version) ||
      dirname(resolve(path)) !== resolve(this.downloadsDir)
    )
      throw new RepoError(`${v.url}: the file name ${JSON.stringify(file)} leaves the downloads folder`);
    writeFileAtomic(path, bytes, false);
    return path;
  }
}
