/**
 * The source tree's layering, read from the README's "Layers" section: a module may import only from its
 * own layer or a lower one, and no file imports itself back through a chain of imports (type-only
 * imports included: a circle of types is still a circle of meaning). A folder with an index.ts is
 * entered from outside only through it (tests may reach deeper).
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const SRC = join(ROOT, 'src');

/** The layers, lowest first: each a list of top-level folders or files of src/ (without extension). */
function readLayers(): string[][] {
  const readme = readFileSync(join(ROOT, '../../docs/design/layers.md'), 'utf8');
  const m = /### Layers\n[\s\S]*?```\n([^\n]+)\n```/.exec(readme);
  assert.ok(m, 'the README has a "### Layers" section with the order in a code block');
  return m[1]!.split('<').map((level) => level.trim().split(/\s+/));
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return sourceFiles(p);
    return /\.(ts|mjs)$/.test(name) && !name.endsWith('.d.ts') ? [p] : [];
  });
}

/** Relative imports of a file (static `import`/`export ... from` and dynamic `import('...')`), resolved. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const out: string[] = [];
  const re = /(?:\bfrom\s+|\bimport\s*\(\s*|^\s*import\s+)['"](\.{1,2}\/[^'"]+)['"]/gm;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) out.push(resolve(dirname(file), m[1]!));
  return out;
}

/** The top-level module of a path under src/: its first folder, or the file name without extension. */
function moduleOf(path: string): string {
  const first = relative(SRC, path).split('/')[0]!;
  return first.replace(/\.(ts|mjs)$/, '');
}

const files = sourceFiles(SRC);
const graph = new Map(files.map((f) => [f, importsOf(f).filter((t) => t.startsWith(SRC))]));

test('every module of src/ has a layer in the README, and imports only from its layer or below', () => {
  const layers = readLayers();
  const levelOf = new Map<string, number>();
  layers.forEach((mods, i) => {
    for (const m of mods) levelOf.set(m, i);
  });
  const problems: string[] = [];
  for (const [file, targets] of graph) {
    const from = moduleOf(file);
    const lf = levelOf.get(from);
    if (lf === undefined) {
      problems.push(`${relative(ROOT, file)}: module "${from}" has no layer in the README`);
      continue;
    }
    for (const t of targets) {
      const to = moduleOf(t);
      const lt = levelOf.get(to);
      if (lt !== undefined && lt > lf)
        problems.push(`${relative(ROOT, file)} (${from}) imports ${to}, a higher layer`);
    }
  }
  assert.deepEqual(problems, []);
});

test('no import circle between files of src/', () => {
  const state = new Map<string, 'open' | 'done'>();
  const circles: string[] = [];
  const visit = (f: string, path: string[]): void => {
    state.set(f, 'open');
    for (const t of graph.get(f) ?? []) {
      const target = graph.has(t) ? t : undefined;
      if (target === undefined) continue;
      if (state.get(target) === 'open') {
        const from = path.indexOf(target);
        circles.push([...path.slice(from), target].map((p) => relative(SRC, p)).join(' -> '));
      } else if (!state.has(target)) visit(target, [...path, target]);
    }
    state.set(f, 'done');
  };
  for (const f of files) if (!state.has(f)) visit(f, [f]);
  assert.deepEqual(circles, []);
});

test('a folder of src/ with an index.ts is entered only through it', () => {
  const gated = files.filter((f) => f.endsWith('/index.ts')).map((f) => dirname(f));
  const problems: string[] = [];
  for (const [file, targets] of graph) {
    for (const t of targets) {
      for (const dir of gated) {
        const inside = file.startsWith(`${dir}/`);
        if (!inside && t.startsWith(`${dir}/`) && t !== join(dir, 'index.ts'))
          problems.push(
            `${relative(SRC, file)} imports ${relative(SRC, t)}, not ${relative(SRC, dir)}/index.ts`,
          );
      }
    }
  }
  assert.deepEqual(problems, []);
});
