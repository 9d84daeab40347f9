/**
 * The shipped keys belong to the current circuits: a manifest entry that records the hash of the
 * circom sources its keys were made from (scripts/zk-manifest.ts) must match the sources now, so a
 * circuit changed without new keys (scripts/zk-ceremony.sh <name>) fails here rather than at the first
 * proof.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { circuitSourceHash, circuitSourceName } from '../../../scripts/zk-manifest.ts';
import { SHIPPED_CIRCUITS_DIR } from '../../../src/zk/circuit-folder.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

test('every manifest entry with a source hash matches the current circuit sources', () => {
  const manifest = JSON.parse(readFileSync(join(SHIPPED_CIRCUITS_DIR, 'manifest.json'), 'utf8')) as {
    circuits: Record<string, { source?: string }>;
  };
  const recorded = Object.entries(manifest.circuits).filter(([, e]) => e.source !== undefined);
  assert.ok(
    recorded.some(([name]) => name === 'poq'),
    'the proof of quota records its sources',
  );
  for (const [name, e] of recorded) assert.equal(circuitSourceHash(circuitSourceName(name)), e.source, name);
});

test('the source hash covers the included files', () => {
  const dir = mkdtempSync(join(tmpdir(), 'circuits-'));
  try {
    cpSync(join(ROOT, 'zk', 'circuits'), join(dir, 'zk', 'circuits'), { recursive: true });
    const before = circuitSourceHash('poq', dir);
    assert.equal(before, circuitSourceHash('poq', ROOT));
    const merkle = join(dir, 'zk', 'circuits', 'merkle.circom');
    writeFileSync(merkle, `${readFileSync(merkle, 'utf8')}\n`);
    assert.notEqual(circuitSourceHash('poq', dir), before);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
