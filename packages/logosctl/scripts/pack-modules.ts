/**
 * Builds the `.lgx` packages of the modules shipped with this tool (blockchain_module 0.2.4,
 * storage_module 2.1.2, delivery_module 0.2.1; type core; each one whose module file exists) and their
 * catalog (`logos-repo.json` + `index.json`) into a folder: the argument, default `dist/packages/`.
 * Prints each package's name, version and root hash (the value `--root-hash` pins), one per line, then
 * the catalog URL to add. Packing is deterministic (src/package/lgx.ts), so the root hashes
 * are the same on every machine. Usage (from the repository root): `npm run pack-modules -- [DIR]`, then
 * `logosctl catalog add file:<DIR>/logos-repo.json`.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildShippedCatalog, SHIPPED_MODULES } from '../src/package/shipped.ts';

const args = process.argv.slice(2);
if (args.length > 1 || args.some((a) => a.startsWith('-'))) {
  process.stderr.write('Usage: npm run pack-modules -- [DIR]   (default dist/packages/)\n');
  process.exit(1);
}
const dir = resolve(args[0] ?? 'dist/packages');
const built = buildShippedCatalog(dir);
for (const m of SHIPPED_MODULES)
  if (!built.some((b) => b.name === m.name))
    process.stderr.write(`skipped ${m.name} ${m.version}: ${m.package} is not installed\n`);
for (const b of built) process.stdout.write(`${b.name} ${b.version} ${b.rootHash}\n`);
process.stdout.write(`catalog: ${pathToFileURL(resolve(dir, 'logos-repo.json')).href}\n`);
