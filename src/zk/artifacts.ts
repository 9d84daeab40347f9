/**
 * Circuit artifacts on disk: for each circuit a witness generator (.wasm), a proving key (.zkey) and
 * a verification key (verification_key.json), with their sha256 pinned in manifest.json and checked
 * at load, so a corrupted or swapped key is refused rather than producing unverifiable proofs.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LogosError } from '../errors/base.ts';

export type CircuitName = 'zksig' | 'pol' | 'poc' | 'poq';
export const CIRCUITS: readonly CircuitName[] = ['zksig', 'pol', 'poc', 'poq'];

export class ArtifactError extends LogosError {
  constructor(message: string) {
    super('ZK_ARTIFACT_ERROR', message);
  }
}

export interface CircuitArtifacts {
  /** Number of R1CS constraints, as recorded by the ceremony. */
  readonly constraints: number;
  readonly wasmPath: string;
  readonly zkeyPath: string;
  readonly verificationKey: unknown;
}

interface Manifest {
  /** `source`: the hash of the circom sources the keys were made from (scripts/zk-manifest.ts), when recorded. */
  readonly circuits: Record<
    CircuitName,
    { constraints: number; wasm: string; zkey: string; vkey: string; source?: string }
  >;
}

function sha256(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

function checked(dir: string, file: string, want: string): string {
  const path = join(dir, file);
  if (!existsSync(path)) throw new ArtifactError(`missing circuit artifact ${path}`);
  const got = sha256(path);
  if (got !== want)
    throw new ArtifactError(`circuit artifact ${path} has sha256 ${got}, the manifest pins ${want}`);
  return path;
}

export function loadArtifacts(keysDir: string): Record<CircuitName, CircuitArtifacts> {
  const manifestPath = join(keysDir, 'manifest.json');
  if (!existsSync(manifestPath)) throw new ArtifactError(`no circuit manifest at ${manifestPath}`);
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as Manifest;
  const out = {} as Record<CircuitName, CircuitArtifacts>;
  for (const name of CIRCUITS) {
    const m = manifest.circuits?.[name];
    if (!m) throw new ArtifactError(`the manifest has no entry for circuit ${name}`);
    const dir = join(keysDir, name);
    const wasmPath = checked(dir, `${name}.wasm`, m.wasm);
    const zkeyPath = checked(dir, `${name}.zkey`, m.zkey);
    const vkPath = checked(dir, 'verification_key.json', m.vkey);
    out[name] = {
      constraints: m.constraints,
      wasmPath,
      zkeyPath,
      verificationKey: JSON.parse(readFileSync(vkPath, 'utf8')),
    };
  }
  return out;
}

/** The artifacts shipped with the node (made by scripts/zk-ceremony.sh for the devnet). */
export const DEFAULT_KEYS_DIR = new URL('../../zk/keys/', import.meta.url).pathname;
