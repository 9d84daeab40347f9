/**
 * The layering rules, checked on the source: the pure primitives import nothing above them, and the
 * services are reached through their entry points.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';

const SRC = resolve(import.meta.dirname, '../../../src');

function files(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...files(p));
    else if (/\.(ts|mjs)$/.test(name) && !name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

/** The src-relative paths a file imports (relative specifiers only). */
function imports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const out: string[] = [];
  for (const m of text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^'"]*?from\s+'(\.[^']+)'/g)) {
    out.push(relative(SRC, resolve(dirname(file), m[1]!)));
  }
  return out;
}

test('crypto/ imports only crypto/ and errors/ (no transaction formats, no services)', () => {
  const bad: string[] = [];
  for (const f of files(join(SRC, 'crypto'))) {
    for (const i of imports(f)) {
      if (!i.startsWith('crypto/') && !i.startsWith('errors/')) bad.push(`${relative(SRC, f)} -> ${i}`);
    }
  }
  assert.deepEqual(bad, []);
});

test('outside chain/, the chain service is imported through chain/index.ts only', () => {
  const bad: string[] = [];
  for (const f of files(SRC)) {
    const from = relative(SRC, f);
    if (from.startsWith('chain/')) continue;
    for (const i of imports(f)) {
      if (i.startsWith('chain/') && i !== 'chain/index.ts') bad.push(`${from} -> ${i}`);
    }
  }
  assert.deepEqual(bad, []);
});
