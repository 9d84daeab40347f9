#!/usr/bin/env node
/**
 * Writes `dist/build-info.json` of the package in the current folder (run by each package's `build`):
 * its version (package.json), and the abbreviated commit and exact tag of the checkout it is built from
 * (null outside a git checkout). The running code reads it (shared/build-info.ts).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';

function git(args) {
  try {
    return (
      execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim() || null
    );
  } catch {
    return null;
  }
}

const { name, version } = JSON.parse(readFileSync('package.json', 'utf8'));
const info = {
  name,
  version,
  commit: git(['rev-parse', '--short', 'HEAD']),
  tag: git(['describe', '--tags', '--exact-match', 'HEAD']),
  built: new Date().toISOString(),
};
mkdirSync('dist', { recursive: true });
writeFileSync('dist/build-info.json', `${JSON.stringify(info, null, 2)}\n`);
console.log(`${name} ${version} (${info.commit ?? 'no commit'}): dist/build-info.json`);
