/**
 * The modules shipped with this tool as `.lgx` packages, and their catalog (operator.md §0, §1.7, §5.2
 * step 3): `blockchain_module` 0.2.4, `storage_module` 2.1.2 and `delivery_module` 0.2.1, the versions the
 * Testnet v0.2.1 guide pins. Each is a package of this workspace (`@logos-ts/blockchain-module`, …) and a
 * dependency of the tool, so a package carries the manifest and a `node` variant whose `module.mjs`
 * re-exports the module by its package name (an ordinary package import, resolved from the tool: see
 * module-host.ts), not the code itself. Packing is deterministic, so a module's root hash is the same on
 * every machine.
 *
 * `buildShippedCatalog(dir)` writes `<name>-<version>.lgx` for each module whose entry file exists, an
 * `index.json` listing them and a `logos-repo.json` naming it (relative URLs; see catalog.ts).
 */
import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeFileAtomic } from '@logos-ts/shared/atomic-file';
import { packLgx } from './lgx.ts';
import { MANIFEST_VERSION } from './manifest.ts';

/** The author named in the shipped packages. */
export const TOOL_PACKAGE_NAME = '@logos-ts/logosctl';

export interface ShippedModule {
  readonly name: string;
  readonly version: string;
  /** The module's package (its default export is the module factory). */
  readonly package: string;
  readonly category: string;
  readonly description: string;
}

export const SHIPPED_MODULES: readonly ShippedModule[] = [
  {
    name: 'blockchain_module',
    version: '0.2.4',
    package: '@logos-ts/blockchain-module',
    category: 'blockchain',
    description: 'Logos blockchain node (this node, run in the module host)',
  },
  {
    name: 'storage_module',
    version: '2.1.2',
    package: '@logos-ts/storage-module',
    category: 'storage',
    description: 'Logos Storage node',
  },
  {
    name: 'delivery_module',
    version: '0.2.1',
    package: '@logos-ts/delivery-module',
    category: 'messaging',
    description: 'Logos Delivery (Waku) node',
  },
];

/** The name and id of the catalog of shipped modules. */
export const SHIPPED_CATALOG_NAME = 'logos-node-ts-modules';

/**
 * The `module.mjs` of a shipped module's `node` variant.
 * inferred: a re-export by package name, so root hashes differ from the guide's (docs/design/fidelity.md
 * "Packages of the shipped modules").
 */
export function entrySource(m: ShippedModule): string {
  return (
    `// ${m.name} ${m.version}: the module ships with logosctl; this entry loads it by its package name.\n` +
    `export { default } from '${m.package}';\n`
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

/** The module file of a shipped module in this installation, or undefined when it is not installed. */
export function shippedModuleFile(m: ShippedModule): string | undefined {
  try {
    return fileURLToPath(import.meta.resolve(m.package));
  } catch {
    return undefined;
  }
}

export interface BuiltPackage {
  readonly name: string;
  readonly version: string;
  readonly rootHash: string;
  readonly file: string;
}

/** Packages and catalogs are for anyone to read (served over HTTP, say): mode 644 under the usual umask. */
const PUBLIC_MODE = 0o644;

/** Writes the shipped modules' packages and their catalog into `dir`; returns what it packed. */
export function buildShippedCatalog(dir: string, releasedAt = new Date().toISOString()): BuiltPackage[] {
  mkdirSync(dir, { recursive: true });
  const built: BuiltPackage[] = [];
  const packages: unknown[] = [];
  for (const m of SHIPPED_MODULES) {
    if (shippedModuleFile(m) === undefined) continue;
    const { bytes, rootHash } = packShipped(m);
    const file = `${m.name}-${m.version}.lgx`;
    writeFileAtomic(join(dir, file), bytes, false, PUBLIC_MODE);
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
  writeFileAtomic(
    join(dir, 'index.json'),
    `${JSON.stringify({ schemaVersion: 2, repositoryName: SHIPPED_CATALOG_NAME, packages }, null, 2)}\n`,
    false,
    PUBLIC_MODE,
  );
  writeFileAtomic(
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
    false,
    PUBLIC_MODE,
  );
  return built;
}
