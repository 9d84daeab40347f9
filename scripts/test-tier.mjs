#!/usr/bin/env node
/**
 * Runs the test files of one tier (`unit`, `spec`, `e2e`, `sim`, `long`, `browser`) or of the four of
 * `npm test` (`all`: every tier but `long` and `browser`), across every package (packages/NAME/test/TIER),
 * in one node:test run. `long` holds the longest simulations and checks (`npm run test:long`), `browser`
 * the tests in headless Chromium (`npm run test:browser`, needing Debian's chromium); CI runs both on
 * their own. A tier
 * without test files says so and succeeds. The TAP stream is followed by a summary of the failed tests
 * (scripts/failure-summary.mjs).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const TIERS = ['unit', 'spec', 'e2e', 'sim'];
const tier = process.argv[2] ?? 'all';
const EXTRA = ['long', 'browser'];
if (tier !== 'all' && !EXTRA.includes(tier) && !TIERS.includes(tier)) {
  console.error(`unknown test tier '${tier}': one of ${[...TIERS, ...EXTRA].join(', ')} or all`);
  process.exit(2);
}

function testFiles(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return testFiles(p);
    return name.endsWith('.test.ts') ? [p] : [];
  });
}

const packages = readdirSync('packages')
  .sort()
  .map((name) => join('packages', name));
const files = (tier === 'all' ? TIERS : [tier]).flatMap((t) =>
  packages.flatMap((pkg) => testFiles(join(pkg, 'test', t)).sort()),
);
if (files.length === 0) {
  console.log(`no test files in packages/*/test/${tier}`);
  process.exit(0);
}
const r = spawnSync(
  process.execPath,
  [
    '--import',
    'tsx',
    '--conditions=logos-source',
    '--import',
    './packages/shared/src/polyfills.js',
    '--test',
    '--test-reporter=tap',
    '--test-reporter-destination=stdout',
    '--test-reporter=./scripts/failure-summary.mjs',
    '--test-reporter-destination=stdout',
    ...process.argv.slice(3),
    ...files,
  ],
  { stdio: 'inherit' },
);
process.exit(r.status ?? 1);
