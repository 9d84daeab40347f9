/**
 * The `proofs` section of `user_config.yaml`, a section of this node only (the reference builds its
 * circuits into the binary): `circuits`, the folder of circuit artifacts in the reference's layout
 * (src/zk/circuit-folder.ts), relative to the config file's folder. `--circuits` overrides it, and
 * `LBC_ROOT_DIR` (the reference build's variable) is used when neither is given.
 */
import { mapping, only, str } from '@logos-ts/shared/config-fields';

export interface ProofsSection {
  /** The circuits folder; null: `LBC_ROOT_DIR`, else the folder of this node's own circuits. */
  readonly circuits: string | null;
}

export const DEFAULT_PROOFS: ProofsSection = { circuits: null };

export function parseProofsSection(raw: unknown): ProofsSection {
  const m = mapping(raw, 'proofs');
  only(m, ['circuits'], 'proofs');
  if (m.circuits === undefined || m.circuits === null) return DEFAULT_PROOFS;
  const circuits = str(m.circuits, '', 'proofs.circuits');
  return { circuits: circuits === '' ? null : circuits };
}
