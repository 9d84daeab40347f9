/**
 * `npm run bench [-- prefix...]`: prints `bench <name> <value> <unit>` for every figure whose name
 * starts with one of the prefixes (all figures without a prefix). Figures come from bench/*.bench.ts.
 */
import { readdirSync } from 'node:fs';
import { type Figure, runFigures } from './harness.ts';

const files = readdirSync(new URL('.', import.meta.url))
  .filter((f) => f.endsWith('.bench.ts'))
  .sort();
const figures: Figure[] = [];
for (const f of files) {
  const mod = (await import(`./${f}`)) as { figures: Figure[] };
  figures.push(...mod.figures);
}
const prefixes = process.argv.slice(2).filter((a) => a !== '--');
const count = await runFigures(figures, prefixes);
if (count === 0) {
  console.error(`no benchmark figure matches ${prefixes.join(', ')}`);
  process.exitCode = 1;
}
// Figures may leave prover processes or WebAssembly curves behind; the run is over.
process.exit(process.exitCode ?? 0);
