/**
 * `npm run bench [-- prefix...]`: prints `bench <name> <value> <unit>` for every figure whose name
 * starts with one of the prefixes (all figures without a prefix).
 */
import { type Figure, runFigures } from './harness.ts';

const modules = ['./crypto.bench.ts', './poseidon2.bench.ts', './codec.bench.ts'];

const figures: Figure[] = [];
for (const m of modules) {
  const mod = (await import(m)) as { figures: Figure[] };
  figures.push(...mod.figures);
}
const prefixes = process.argv.slice(2).filter((a) => a !== '--');
const count = await runFigures(figures, prefixes);
if (count === 0) {
  console.error(`no benchmark figure matches ${prefixes.join(', ')}`);
  process.exitCode = 1;
}
