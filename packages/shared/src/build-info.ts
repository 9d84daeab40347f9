/**
 * Where a package's running code comes from, for `GET /version` and `--version`: its version, the
 * abbreviated commit and the tag pointing at it. A build writes them to `dist/build-info.json`
 * (scripts/after-build.mjs); running from a checkout's sources they are read from git; otherwise
 * commit and tag are null.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export interface BuildInfo {
  readonly version: string | null;
  readonly commit: string | null;
  readonly tag: string | null;
}

function git(cwd: string, args: string[]): string | null {
  try {
    const out = execFileSync('git', args, {
      cwd,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 5000,
    });
    return out.trim() || null;
  } catch {
    return null;
  }
}

function readJson(path: string): Record<string, unknown> | undefined {
  try {
    const v = JSON.parse(readFileSync(path, 'utf8')) as unknown;
    return v !== null && typeof v === 'object' ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
const cache = new Map<string, BuildInfo>();

/**
 * The build information under `root`: a package's folder when running from its sources, its `dist/`
 * when running a build (the same path relative to a module: `src/x.ts` and `dist/src/x.js`).
 */
export function buildInfo(root: URL): BuildInfo {
  const dir = fileURLToPath(root);
  const known = cache.get(dir);
  if (known) return known;
  const built = readJson(`${dir}/build-info.json`);
  let info: BuildInfo;
  if (built) info = { version: str(built.version), commit: str(built.commit), tag: str(built.tag) };
  else {
    const version = str(readJson(`${dir}/package.json`)?.version);
    const inGit = git(dir, ['rev-parse', '--is-inside-work-tree']) === 'true';
    info = {
      version,
      commit: inGit ? git(dir, ['rev-parse', '--short', 'HEAD']) : null,
      tag: inGit ? git(dir, ['describe', '--tags', '--exact-match', 'HEAD']) : null,
    };
  }
  cache.set(dir, info);
  return info;
}
