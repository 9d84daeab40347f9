/**
 * A folder of circuit artifacts in the reference's layout (logos-blockchain-circuits releases, read by
 * its `circuit_artifacts!` macro and build script: `rust/logos-blockchain-circuits-common/src/
 * artifacts.rs`, `rust/logos-blockchain-circuits-build/src/lib.rs`): one sub-folder per circuit,
 * `signature`, `pol`, `poc` and `poq`, each with `proving_key.zkey`, `verification_key.json` and a
 * witness generator. The reference's witness generators are native (`witness_generator.dat` beside
 * static libraries), which this node cannot run; this node's own are circom WebAssembly
 * (`witness_generator.wasm`). So a circuit whose folder has a `.wasm` is proved and verified here, and
 * one with only the reference's native generator is verified only.
 *
 * The folder is checked whole before the node opens its storage: every file it needs exists, each
 * verification key is a BN254 Groth16 key with the circuit's number of public inputs, and each proving
 * key's header is readable and agrees. A `manifest.json` at the root (this node's own folders, made by
 * scripts/zk-ceremony.sh) pins the sha256 of every file it lists, so a corrupted or swapped key is
 * refused rather than producing unverifiable proofs.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LogosError } from '@logos-ts/shared/errors';
import type { Circuit } from '../ledger/proof-system.ts';
import { packageFile } from '../util/package-files.ts';
import { fileSource } from './binfile.ts';
import { readZkeyHeader } from './zkey-header.ts';

/** The node's circuits (the ledger's `Circuit`). */
export type CircuitName = Circuit;
export const CIRCUITS: readonly CircuitName[] = ['zksig', 'pol', 'poc', 'poq'];

/** Each circuit's sub-folder in the reference's layout (the ZkSig circuit is `signature`). */
export const CIRCUIT_DIRS: Readonly<Record<CircuitName, string>> = {
  zksig: 'signature',
  pol: 'pol',
  poc: 'poc',
  poq: 'poq',
};

/** The number of public inputs of each circuit, as the node builds its statements. */
export const PUBLIC_INPUTS: Readonly<Record<CircuitName, number>> = { zksig: 33, pol: 9, poc: 3, poq: 12 };

export const PROVING_KEY = 'proving_key.zkey';
export const VERIFICATION_KEY = 'verification_key.json';
/** This node's witness generator (circom WebAssembly). */
export const WITNESS_GENERATOR = 'witness_generator.wasm';
/** The reference's native witness generator data. */
export const NATIVE_WITNESS_GENERATOR = 'witness_generator.dat';

export class ArtifactError extends LogosError {
  constructor(message: string) {
    super('ZK_ARTIFACT_ERROR', message);
  }
}

export interface CircuitProver {
  readonly wasmPath: string;
  readonly zkeyPath: string;
}

export interface CircuitArtifacts {
  readonly dir: string;
  readonly verificationKeyPath: string;
  readonly verificationKey: unknown;
  /** R1CS constraint count, where the folder's manifest records it. */
  readonly constraints?: number;
  /** Present when this node can make proofs of the circuit. */
  readonly prover?: CircuitProver;
  /** Why this node cannot make proofs of the circuit, when `prover` is absent. */
  readonly cannotProve?: string;
}

export interface CircuitFolder {
  readonly root: string;
  /** Whether a manifest pinned the files' hashes. */
  readonly pinned: boolean;
  readonly circuits: Readonly<Record<CircuitName, CircuitArtifacts>>;
}

interface ManifestEntry {
  readonly constraints?: number;
  readonly witness_generator?: string;
  readonly proving_key?: string;
  readonly verification_key?: string;
}

const MANIFEST_FILES: ReadonlyArray<[keyof ManifestEntry, string]> = [
  ['witness_generator', WITNESS_GENERATOR],
  ['proving_key', PROVING_KEY],
  ['verification_key', VERIFICATION_KEY],
];

const isFile = (path: string): boolean => existsSync(path) && statSync(path).isFile();

function sha256(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

// inferred: a manifest pins this node's own folders; a release folder has none, as the reference's build
// checks no hashes either (docs/design/fidelity.md)
function readManifest(root: string): Record<string, ManifestEntry> | undefined {
  const path = join(root, 'manifest.json');
  if (!existsSync(path)) return undefined;
  let m: unknown;
  try {
    m = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new ArtifactError(`circuit manifest ${path} is not JSON: ${(e as Error).message}`);
  }
  const circuits = (m as { circuits?: unknown } | null)?.circuits;
  if (typeof circuits !== 'object' || circuits === null)
    throw new ArtifactError(`circuit manifest ${path} has no "circuits" mapping`);
  return circuits as Record<string, ManifestEntry>;
}

function checkPins(dir: string, pins: ManifestEntry): void {
  for (const [field, file] of MANIFEST_FILES) {
    const want = pins[field];
    if (want === undefined) continue;
    const path = join(dir, file);
    if (!isFile(path)) throw new ArtifactError(`missing circuit artifact ${path} (the manifest pins it)`);
    const got = sha256(path);
    if (got !== want)
      throw new ArtifactError(`circuit artifact ${path} has sha256 ${got}, the manifest pins ${want}`);
  }
}

function readVerificationKey(path: string, circuit: CircuitName): unknown {
  if (!isFile(path)) throw new ArtifactError(`missing verification key ${path}`);
  let vk: unknown;
  try {
    vk = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new ArtifactError(`verification key ${path} is not JSON: ${(e as Error).message}`);
  }
  const v = vk as { protocol?: unknown; curve?: unknown; nPublic?: unknown; IC?: unknown } | null;
  if (v?.protocol !== 'groth16' || v.curve !== 'bn128')
    throw new ArtifactError(`verification key ${path} is not a Groth16 key on bn128`);
  const want = PUBLIC_INPUTS[circuit];
  if (v.nPublic !== want)
    throw new ArtifactError(
      `verification key ${path} has ${String(v.nPublic)} public inputs; the ${circuit} circuit has ${want}`,
    );
  if (!Array.isArray(v.IC) || v.IC.length !== want + 1)
    throw new ArtifactError(
      `verification key ${path} has ${Array.isArray(v.IC) ? v.IC.length : 'no'} IC points, not ${want + 1}`,
    );
  return vk;
}

function checkProvingKey(path: string, circuit: CircuitName): void {
  let header: ReturnType<typeof readZkeyHeader>;
  let src: ReturnType<typeof fileSource> | undefined;
  try {
    src = fileSource(path);
    header = readZkeyHeader(src);
  } catch (e) {
    throw new ArtifactError(`proving key ${path} cannot be read: ${(e as Error).message}`);
  } finally {
    src?.close();
  }
  const want = PUBLIC_INPUTS[circuit];
  if (header.nPublic !== want)
    throw new ArtifactError(
      `proving key ${path} has ${header.nPublic} public inputs; the ${circuit} circuit has ${want}`,
    );
}

function loadCircuit(root: string, circuit: CircuitName, pins: ManifestEntry | undefined): CircuitArtifacts {
  const dir = join(root, CIRCUIT_DIRS[circuit]);
  if (!existsSync(dir) || !statSync(dir).isDirectory())
    throw new ArtifactError(`missing circuit folder ${dir}`);
  if (pins) checkPins(dir, pins);
  const verificationKeyPath = join(dir, VERIFICATION_KEY);
  const verificationKey = readVerificationKey(verificationKeyPath, circuit);
  const zkeyPath = join(dir, PROVING_KEY);
  const wasmPath = join(dir, WITNESS_GENERATOR);
  const hasZkey = isFile(zkeyPath);
  if (hasZkey) checkProvingKey(zkeyPath, circuit);
  const base = {
    dir,
    verificationKeyPath,
    verificationKey,
    ...(pins?.constraints !== undefined ? { constraints: pins.constraints } : {}),
  };
  if (isFile(wasmPath)) {
    if (!hasZkey)
      throw new ArtifactError(`missing proving key ${zkeyPath} (the folder has ${WITNESS_GENERATOR})`);
    return { ...base, prover: { wasmPath, zkeyPath } };
  }
  const cannotProve = isFile(join(dir, NATIVE_WITNESS_GENERATOR))
    ? `${dir} has the reference's native witness generator (${NATIVE_WITNESS_GENERATOR}), which this node cannot run, and no ${WITNESS_GENERATOR}`
    : `${dir} has no witness generator this node can run (${WITNESS_GENERATOR})`;
  return { ...base, cannotProve };
}

/** Loads and checks a circuit folder; throws `ArtifactError` naming the first file that is wrong. */
export function loadCircuitFolder(root: string): CircuitFolder {
  if (!existsSync(root) || !statSync(root).isDirectory())
    throw new ArtifactError(`circuits folder ${root} does not exist or is not a folder`);
  const manifest = readManifest(root);
  const circuits = {} as Record<CircuitName, CircuitArtifacts>;
  for (const c of CIRCUITS) circuits[c] = loadCircuit(root, c, manifest?.[CIRCUIT_DIRS[c]]);
  return { root, pinned: manifest !== undefined, circuits };
}

/** The folder this node ships: its own circuits, from this project's ceremony (scripts/zk-ceremony.sh). */
export const SHIPPED_CIRCUITS_DIR = fileURLToPath(packageFile('zk/keys/'));

/** The environment variable the reference's build reads the circuits folder from. */
export const CIRCUITS_ENV = 'LBC_ROOT_DIR';

export type CircuitsSource = 'option' | 'config' | typeof CIRCUITS_ENV | 'shipped';

/**
 * inferred: the run-time choice of folder is this node's own (docs/design/fidelity.md); the reference reads
 * `LBC_ROOT_DIR` when it is built.
 * Which circuits folder to use: `--circuits`, then the config's `proofs.circuits`, then `LBC_ROOT_DIR`,
 * then the shipped folder. Relative paths are taken from `baseDir` (the config's folder) for the
 * config key and from the working directory otherwise.
 */
export function chooseCircuitsDir(o: {
  readonly option?: string | undefined;
  readonly config?: string | undefined;
  readonly configBaseDir?: string;
  readonly env?: NodeJS.ProcessEnv;
}): { dir: string; from: CircuitsSource } {
  if (o.option) return { dir: resolve(o.option), from: 'option' };
  if (o.config) return { dir: resolve(o.configBaseDir ?? '.', o.config), from: 'config' };
  const env = (o.env ?? process.env)[CIRCUITS_ENV];
  if (env) return { dir: resolve(env), from: CIRCUITS_ENV };
  return { dir: SHIPPED_CIRCUITS_DIR, from: 'shipped' };
}
