/**
 * The circuit manifest zk/keys/manifest.json: for each circuit folder (the reference's names: signature,
 * pol, poc, poq) its constraint count and the sha256 of its witness generator, proving key and
 * verification key (src/zk/circuit-folder.ts checks them at load), and (for keys made since it was recorded)
 * `source`, the hash of the circom sources the keys were made from, so a test can tell when a
 * circuit changed without new keys.
 *
 *   node --import tsx scripts/zk-manifest.ts poq     # records the named circuits (zk-ceremony.sh runs it)
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

const sha256 = (data: Uint8Array | string): string => createHash('sha256').update(data).digest('hex');

/**
 * The sha256 of zk/circuits/<name>.circom and every file it includes, recursively, each once, in
 * include order: `sha256(path ‖ "\n" ‖ sha256(content) ‖ "\n")` over the list.
 */
export function circuitSourceHash(name: string, root = ROOT): string {
  const seen: string[] = [];
  const visit = (file: string): void => {
    if (seen.includes(file)) return;
    seen.push(file);
    const text = readFileSync(join(root, file), 'utf8');
    for (const m of text.matchAll(/^\s*include\s+"([^"]+)"\s*;/gm)) visit(join(dirname(file), m[1]!));
  };
  visit(join('zk', 'circuits', `${name}.circom`));
  return sha256(seen.map((f) => `${f}\n${sha256(readFileSync(join(root, f)))}\n`).join(''));
}

/** The circuits folder's name of a circuit source (zk/circuits/<name>.circom): `zksig` is `signature`. */
export const circuitFolderName = (circuit: string): string => (circuit === 'zksig' ? 'signature' : circuit);

/** The circuit source of a circuits folder's entry. */
export const circuitSourceName = (folder: string): string => (folder === 'signature' ? 'zksig' : folder);

function record(names: readonly string[]): void {
  const path = join(ROOT, 'zk', 'keys', 'manifest.json');
  const manifest = existsSync(path) ? JSON.parse(readFileSync(path, 'utf8')) : { circuits: {} };
  for (const c of names) {
    const folder = circuitFolderName(c);
    const dir = join(ROOT, 'zk', 'keys', folder);
    manifest.circuits[folder] = {
      constraints: Number(readFileSync(join(dir, 'constraints.txt'), 'utf8').trim()),
      witness_generator: sha256(readFileSync(join(dir, 'witness_generator.wasm'))),
      proving_key: sha256(readFileSync(join(dir, 'proving_key.zkey'))),
      verification_key: sha256(readFileSync(join(dir, 'verification_key.json'))),
      source: circuitSourceHash(c),
    };
  }
  manifest.ceremony = 'logos devnet, powers of tau 2^15, one contribution per circuit';
  writeFileSync(path, `${JSON.stringify(manifest, null, 2)}\n`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url))
  record(process.argv.slice(2));
