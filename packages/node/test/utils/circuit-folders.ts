/**
 * Circuit folders in the reference's layout for tests: this node's own circuits (copied from the shipped
 * folder, without its manifest, as a release folder has none), with chosen circuits turned into the
 * reference's form: only a verification key and the native witness generator's data file, which this node
 * cannot run. `referencePol` puts the reference's own PoL verification key (test/fixtures/
 * reference-circuits) in `pol/`.
 */
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  CIRCUIT_DIRS,
  type CircuitName,
  NATIVE_WITNESS_GENERATOR,
  PROVING_KEY,
  SHIPPED_CIRCUITS_DIR,
  VERIFICATION_KEY,
} from '../../src/zk/circuit-folder.ts';

export const REFERENCE_POL_DIR = fileURLToPath(
  new URL('../fixtures/reference-circuits/pol/', import.meta.url),
);

export interface TestCircuitFolder {
  readonly dir: string;
  remove(): void;
}

export function testCircuitFolder(o: {
  /** Circuits left with the verification key and the native generator's data file only. */
  readonly verifyOnly?: readonly CircuitName[];
  /** Use the reference's PoL verification key (implies `pol` verify-only). */
  readonly referencePol?: boolean;
}): TestCircuitFolder {
  const dir = mkdtempSync(join(tmpdir(), 'circuits-'));
  for (const c of Object.keys(CIRCUIT_DIRS) as CircuitName[]) {
    const sub = join(dir, CIRCUIT_DIRS[c]);
    const from = join(SHIPPED_CIRCUITS_DIR, CIRCUIT_DIRS[c]);
    if (c === 'pol' && o.referencePol) {
      cpSync(join(REFERENCE_POL_DIR, VERIFICATION_KEY), join(sub, VERIFICATION_KEY));
    } else if (o.verifyOnly?.includes(c)) {
      cpSync(join(from, VERIFICATION_KEY), join(sub, VERIFICATION_KEY));
      cpSync(join(from, PROVING_KEY), join(sub, PROVING_KEY));
    } else {
      cpSync(from, sub, { recursive: true });
      continue;
    }
    // Stands for the reference's native witness generator data: this node never reads it.
    writeFileSync(join(sub, NATIVE_WITNESS_GENERATOR), 'native witness generator data');
  }
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
