/** Blend scheduling is pure: its files import only each other, and of Node's modules node:crypto only. */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../../../src/blend/scheduling');

test('src/blend/scheduling imports nothing outside itself but node:crypto', () => {
  const bad: string[] = [];
  for (const name of readdirSync(DIR).filter((n) => n.endsWith('.ts'))) {
    const text = readFileSync(join(DIR, name), 'utf8');
    for (const m of text.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|^\s*import\s+)['"]([^'"]+)['"]/gm)) {
      const spec = m[1]!;
      if (spec === 'node:crypto') continue;
      const inside = spec.startsWith('.') && !relative(DIR, resolve(DIR, spec)).startsWith('..');
      if (!inside) bad.push(`${name} -> ${spec}`);
    }
  }
  assert.deepEqual(bad, []);
});
