/**
 * Where this node's code comes from, for `GET /version`: the abbreviated commit of the repository
 * checkout it runs from and the tag pointing at it (null outside a checkout, or without git).
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export interface BuildInfo {
  readonly commit: string | null;
  readonly tag: string | null;
}

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

function git(args: string[]): string | null {
  try {
    const out = execFileSync('git', args, {
      cwd: ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 5000,
    });
    return out.trim() || null;
  } catch {
    return null;
  }
}

let cached: BuildInfo | undefined;

export function buildInfo(): BuildInfo {
  if (!cached) {
    const checkout = existsSync(`${ROOT}.git`);
    cached = {
      commit: checkout ? git(['rev-parse', '--short', 'HEAD']) : null,
      tag: checkout ? git(['describe', '--tags', '--exact-match', 'HEAD']) : null,
    };
  }
  return cached;
}
