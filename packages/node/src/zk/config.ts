/**
 * The `proofs` section of `user_config.yaml`, a section of this node only (the reference builds its
 * circuits and its prover into the binary):
 * - `circuits`: the folder of circuit artifacts in the reference's layout (src/zk/circuit-folder.ts),
 *   relative to the config file's folder. `--circuits` overrides it, and `LBC_ROOT_DIR` (the reference
 *   build's variable) is used when neither is given.
 * - `backend`: what proofs are made with: `wasm`, this node's own Groth16 prover (the default), or
 *   `snarkjs`, the fallback. Both make proofs that verify under the same keys.
 */
import { mapping, oneOf, only, str } from '@logos-ts/shared/config-fields';
import { PROVER_BACKENDS, type ProverBackendName } from './prover-backend.ts';

export interface ProofsSection {
  /** The circuits folder; null: `LBC_ROOT_DIR`, else the folder of this node's own circuits. */
  readonly circuits: string | null;
  readonly backend: ProverBackendName;
}

// inferred: the reference proves natively; who makes a proof is this node's choice (docs/design/fidelity.md "Who makes the proofs")
export const DEFAULT_PROOFS: ProofsSection = { circuits: null, backend: 'wasm' };

export function parseProofsSection(raw: unknown): ProofsSection {
  const m = mapping(raw, 'proofs');
  only(m, ['circuits', 'backend'], 'proofs');
  const backend = oneOf(m.backend ?? undefined, DEFAULT_PROOFS.backend, 'proofs.backend', PROVER_BACKENDS);
  if (m.circuits === undefined || m.circuits === null) return { circuits: null, backend };
  const circuits = str(m.circuits, '', 'proofs.circuits');
  return { circuits: circuits === '' ? null : circuits, backend };
}
