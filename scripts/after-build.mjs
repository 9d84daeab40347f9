#!/usr/bin/env node
/**
 * Finishes the build of the package in the current folder (run by each package's `build` after tsc):
 * - writes `dist/build-info.json`: its version (package.json), and the abbreviated commit and exact tag
 *   of the checkout it is built from (outside a git checkout: LOGOS_BUILD_COMMIT and LOGOS_BUILD_TAG, else
 *   null); the running code reads it
 *   (shared/build-info.ts);
 * - makes its bins (package.json `bin`, compiled files) executable, as an install does for files that
 *   exist then.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';

function git(args) {
  try {
    return (
      execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim() || null
    );
  } catch {
    return null;
  }
}

const { name, version, bin } = JSON.parse(readFileSync('package.json', 'utf8'));
const info = {
  name,
  version,
  commit: git(['rev-parse', '--short', 'HEAD']) ?? (process.env.LOGOS_BUILD_COMMIT || null),
  tag: git(['describe', '--tags', '--exact-match', 'HEAD']) ?? (process.env.LOGOS_BUILD_TAG || null),
  built: new Date().toISOString(),
};
mkdirSync('dist', { recursive: true });
writeFileSync('dist/build-info.json', `${JSON.stringify(info, null, 2)}\n`);
for (const file of Object.values(bin ?? {})) chmodSync(file, 0o755);
console.log(`${name} ${version} (${info.commit ?? 'no commit'}): built`);
