#!/usr/bin/env node
/**
 * Checks that every workspace package declares exactly the dependencies it imports:
 * - a bare import in `src/` must be in `dependencies`; one in `test/`, `bench/` or `scripts/` in `dependencies`
 *   or `devDependencies` (of the package, or of the root for the shared tools);
 * - a declared dependency nothing imports (and no script, shell script or config names) is unused;
 * - a relative import may not leave its package (import another package by its name).
 * Node's built-in modules (`node:*`) need no declaration. Prints each problem and exits 1 if any.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const ROOT = resolve(dirname(new URL(import.meta.url).pathname), '..');
const rootPkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
const rootDev = Object.keys(rootPkg.devDependencies ?? {});
const IMPORT =
  /(?:\bfrom\s+|\bimport\s*\(\s*|^\s*import\s+|\bimport\.meta\.resolve\(\s*|\bregister\(\s*|\bcreateRequire\([^)]*\)\(\s*)['"]([^'"]+)['"]/gm;

function files(dir) {
  let names;
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names.flatMap((name) => {
    if (name === 'node_modules' || name === 'dist' || name === 'build') return [];
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return files(p);
    return /\.(ts|mts|mjs|js)$/.test(name) && !name.endsWith('.d.ts') ? [p] : [];
  });
}

/** `@scope/name/sub` → `@scope/name`; `name/sub` → `name`; null for node built-ins. */
function packageName(spec) {
  if (spec.startsWith('node:')) return null;
  const parts = spec.split('/');
  return spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

const problems = [];
const packagesDir = join(ROOT, 'packages');
for (const dirName of readdirSync(packagesDir).sort()) {
  const dir = join(packagesDir, dirName);
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  const deps = new Set(Object.keys(pkg.dependencies ?? {}));
  const dev = new Set(Object.keys(pkg.devDependencies ?? {}));
  const used = new Set();
  const srcTexts = [];
  for (const area of ['src', 'client', 'test', 'bench', 'scripts']) {
    for (const file of files(join(dir, area))) {
      const text = readFileSync(file, 'utf8');
      if (area === 'src') srcTexts.push(text);
      for (const m of text.matchAll(IMPORT)) {
        const spec = m[1];
        const where = relative(ROOT, file);
        if (spec.startsWith('.')) {
          const target = resolve(dirname(file), spec);
          if (relative(dir, target).startsWith('..'))
            problems.push(
              `${where}: relative import '${spec}' leaves ${pkg.name} (import the package by its name)`,
            );
          continue;
        }
        if (spec.includes('${')) continue;
        const name = packageName(spec);
        if (name === null || name === pkg.name) continue;
        used.add(name);
        // a specifier only resolved (`import.meta.resolve`) is looked up when running from source (tsx)
        const resolvedOnly = m[0].includes('import.meta.resolve');
        const runtime = (area === 'src' || area === 'client') && !(resolvedOnly && dev.has(name));
        if (runtime && !deps.has(name))
          problems.push(`${where}: imports '${name}', which ${pkg.name} does not list in dependencies`);
        if (!runtime && !deps.has(name) && !dev.has(name) && !rootDev.includes(name))
          problems.push(`${where}: imports '${name}', which neither ${pkg.name} nor the root declares`);
      }
    }
  }
  // tools named by the package's scripts or its shell scripts count as used
  const scriptsDir = join(dir, 'scripts');
  const scriptFiles = (() => {
    try {
      return readdirSync(scriptsDir).map((n) => join(scriptsDir, n));
    } catch {
      return [];
    }
  })();
  const toolText = [
    JSON.stringify(pkg.scripts ?? {}),
    ...scriptFiles.filter((f) => statSync(f).isFile()).map((f) => readFileSync(f, 'utf8')),
  ].join('\n');
  // a package named as a string in the sources (resolved at run time) counts as used
  const srcText = srcTexts.join('\n');
  for (const name of [...deps, ...dev]) {
    if (used.has(name) || srcText.includes(`'${name}'`)) continue;
    if (name.startsWith('@types/') && used.has(name.slice('@types/'.length))) continue;
    if (toolText.includes(name)) continue;
    problems.push(`${pkg.name}: declares '${name}', which nothing in it imports`);
  }
}
for (const p of problems) console.error(p);
if (problems.length > 0) {
  console.error(`${problems.length} dependency problem(s)`);
  process.exit(1);
}
console.log('dependencies: every package declares exactly what it imports');
