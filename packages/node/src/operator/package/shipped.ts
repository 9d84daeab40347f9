/**
 * The modules shipped with this tool as `.lgx` packages, and their catalog (operator.md §0, §1.7, §5.2
 * step 3): `blockchain_module` 0.2.4, `storage_module` 2.1.2 and `delivery_module` 0.2.1, the versions the
 * Testnet v0.2.1 guide pins. Their code is TypeScript of this installation (it imports the node), so a
 * package carries the manifest and a `node` variant whose `module.mjs` re-exports the module from the
 * tool's installation (`<tool package name>/src/operator/modules/<folder>/index.ts`, resolved by the module
 * host from the tool's own folder), not the code itself. Packing is deterministic, so a module's root hash
 * is the same on every machine for the same tool name and entry path.
 *
 * `buildShippedCatalog(dir)` writes `<name>-<version>.lgx` for each module whose entry file exists, an
 * `index.json` listing them and a `logos-repo.json` naming it (relative URLs; see catalog.ts).
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { packLgx } from './lgx.ts';
import { MANIFEST_VERSION } from './manifest.ts';

/** The tool's installation folder (the repository root). */
export const TOOL_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
/** The tool's package name: the prefix a package entry imports the tool's files by. */
export const TOOL_PACKAGE_NAME = (
  JSON.parse(readFileSync(join(TOOL_ROOT, 'package.json'), 'utf8')) as { name: string }
).name;

export interface ShippedModule {
  readonly name: string;
  readonly version: string;
  /** The module file, relative to the tool's root. */
  readonly entry: string;
  readonly category: string;
  readonly description: string;
}

export const SHIPPED_MODULES: readonly ShippedModule[] = [
  {
    name: 'blockchain_module',
    version: '0.2.4',
    entry: 'src/operator/modules/blockchain/index.ts',
    category: 'blockchain',
    description: 'Logos blockchain node (this node, run in the module host)',
  },
  {
    name: 'storage_module',
    version: '2.1.2',
    entry: 'src/operator/modules/storage/index.ts',
    category: 'storage',
    description: 'Logos Storage node',
  },
  {
    name: 'delivery_module',
    version: '0.2.1',
    entry: 'src/operator/modules/delivery/index.ts',
    category: 'messaging',
    description: 'Logos Delivery (Waku) node',
  },
];

/** The name and id of the catalog of shipped modules. */
export const SHIPPED_CATALOG_NAME = 'logos-node-ts-modules';

/** The `module.mjs` of a shipped module's `node` variant. */
export function entrySource(m: ShippedModule): string {
  return (
    `// ${m.name} ${m.version}: the module ships with logosctl; this entry loads it from the tool's installation.\n` +
    `export { default } from '${TOOL_PACKAGE_NAME}/${m.entry}';\n`
  );
}

/** The package of one shipped module. */
export function packShipped(m: ShippedModule): { bytes: Buffer; rootHash: string } {
  const { bytes, manifest } = packLgx(
    {
      manifestVersion: MANIFEST_VERSION,
      name: m.name,
      version: m.version,
      description: m.description,
      author: TOOL_PACKAGE_NAME,
      type: 'core',
      category: m.category,
      icon: '',
      dependencies: [],
      main: { node: 'module.mjs' },
      hashes: {},
    },
    [{ path: 'variants/node/module.mjs', data: Buffer.from(entrySource(m)) }],
  );
  return { bytes, rootHash: manifest.hashes.root! };
}

export interface BuiltPackage {
  readonly name: string;
  readonly version: string;
  readonly rootHash: string;
  readonly file: string;
}

function writeAtomic(path: string, data: string | Uint8Array): void {
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, data);
  renameSync(tmp, path);
}

/** Writes the shipped modules' packages and their catalog into `dir`; returns what it packed. */
export function buildShippedCatalog(dir: string, releasedAt = new Date().toISOString()): BuiltPackage[] {
  mkdirSync(dir, { recursive: true });
  const built: BuiltPackage[] = [];
  const packages: unknown[] = [];
  for (const m of SHIPPED_MODULES) {
    if (!existsSync(join(TOOL_ROOT, m.entry))) continue;
    const { bytes, rootHash } = packShipped(m);
    const file = `${m.name}-${m.version}.lgx`;
    writeAtomic(join(dir, file), bytes);
    built.push({ name: m.name, version: m.version, rootHash, file: join(dir, file) });
    packages.push({
      name: m.name,
      type: 'core',
      category: m.category,
      author: TOOL_PACKAGE_NAME,
      description: m.description,
      icon: '',
      versions: [
        {
          releasedAt,
          url: file,
          size: bytes.length,
          sha256: createHash('sha256').update(bytes).digest('hex'),
          rootHash,
          manifest: {
            manifestVersion: MANIFEST_VERSION,
            name: m.name,
            version: m.version,
            type: 'core',
            dependencies: [],
            main: { node: 'module.mjs' },
          },
          signature: null,
        },
      ],
    });
  }
  writeAtomic(
    join(dir, 'index.json'),
    `${JSON.stringify({ schemaVersion: 2, repositoryName: SHIPPED_CATALOG_NAME, packages }, null, 2)}\n`,
  );
  writeAtomic(
    join(dir, 'logos-repo.json'),
    `${JSON.stringify(
      {
        schemaVersion: 1,
        name: SHIPPED_CATALOG_NAME,
        displayName: 'Modules shipped with logos-node-ts',
        description: 'The blockchain, storage and delivery modules of this installation, as packages',
        indexUrl: 'index.json',
        trustedSigners: [],
      },
      null,
      2,
    )}\n`,
  );
  return built;
}
