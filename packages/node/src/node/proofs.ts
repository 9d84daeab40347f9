/**
 * The node's proofs: the circuits folder (`--circuits`, `proofs.circuits`, `LBC_ROOT_DIR`, else the
 * shipped one), checked whole before anything is written; the proof backend on it; the verifier that
 * checks blocks and transactions on worker threads; and the roles a backend that cannot prove a circuit
 * leaves off, said once at start.
 */

import { ConfigError } from '@logos-ts/shared/config-fields';
import type { Logger } from 'pino';
import type { Deployment } from '../ledger/deployment.ts';
import type { Circuit, ProofSystem } from '../ledger/proof-system.ts';
import type { Meter } from '../util/meter.ts';
import {
  CIRCUITS,
  CIRCUITS_ENV,
  type CircuitFolder,
  type CircuitsSource,
  chooseCircuitsDir,
  createProofSystem,
  Groth16ProofSystem,
  loadCircuitFolder,
  type ProverBackendName,
  pooledVerifier,
} from '../zk/index.ts';

/** What the node's options say of its proofs. */
export interface ProofsOptions {
  readonly deployment: Deployment;
  /** The config's `proofs` section: `circuits` and the prover `backend`. */
  readonly config: {
    readonly proofs: { readonly circuits: string | null; readonly backend: ProverBackendName };
  };
  /** `--circuits`, ahead of the config's `proofs.circuits` and `LBC_ROOT_DIR`. */
  readonly circuitsDir?: string;
  /** The folder the config's relative paths are resolved against. */
  readonly baseDir: string;
  /** A backend given by the caller (tests); no circuits folder is read then. */
  readonly proofs?: ProofSystem;
}

/** How an error names where the circuits folder came from. */
const CIRCUITS_SOURCE_LABEL: Readonly<Record<CircuitsSource, string>> = {
  option: '--circuits',
  config: 'proofs.circuits',
  LBC_ROOT_DIR: 'LBC_ROOT_DIR',
  shipped: 'the shipped circuits folder',
};

/**
 * The proof backend: the caller's, else one on the chosen circuits folder (a bad folder stops the
 * node); the roles it leaves off are said at once.
 */
export function openProofSystem(opts: ProofsOptions, log: Logger, meter?: Meter): ProofSystem {
  const proofs =
    opts.proofs ??
    createProofSystem(opts.deployment, {
      circuits: loadCircuits(opts, log),
      backend: opts.config.proofs.backend,
      logger: log,
      ...(meter ? { meter } : {}),
    });
  log.info(
    { backend: proofs.name, ...(proofs instanceof Groth16ProofSystem ? { prover: proofs.backend } : {}) },
    'proof backend ready',
  );
  logRolesOff(proofs, log);
  return proofs;
}

/** The verifier of blocks and transactions: `proofs` on `threads` worker threads (Groth16). */
export async function openVerifier(proofs: ProofSystem, threads: number, log: Logger): Promise<ProofSystem> {
  const verifier = await pooledVerifier(proofs, threads);
  log.info({ verifier: verifier.name }, 'proof verification ready');
  return verifier;
}

/** Chooses and checks the circuits folder. */
function loadCircuits(opts: ProofsOptions, log: Logger): CircuitFolder {
  const { dir, from } = chooseCircuitsDir({
    option: opts.circuitsDir,
    config: opts.config.proofs.circuits ?? undefined,
    configBaseDir: opts.baseDir,
  });
  // inferred: a network proved with the reference's keys cannot be followed with this node's own (docs/design/fidelity.md)
  if (from === 'shipped' && opts.deployment.circuits === 'reference')
    throw new ConfigError(
      `deployment ${opts.deployment.name}: this node cannot verify this network's proofs with its own circuits: they are made with the reference's circuit keys. Give the reference's circuits release folder (logos-blockchain-circuits, unpacked) with --circuits, proofs.circuits or ${CIRCUITS_ENV}`,
    );
  let folder: CircuitFolder;
  try {
    folder = loadCircuitFolder(dir);
  } catch (e) {
    throw new ConfigError(`${CIRCUITS_SOURCE_LABEL[from]}: ${(e as Error).message}`);
  }
  const provers = CIRCUITS.filter((c) => folder.circuits[c].prover !== undefined);
  log.info({ folder: dir, from, pinned: folder.pinned, provers }, 'circuits folder loaded');
  return folder;
}

/** What a node that cannot prove a circuit does not do. */
const ROLES_OF: Readonly<Record<Circuit, string>> = {
  pol: 'block production (the leader does not play the lottery)',
  poq: 'Blend messages of its own (cover traffic, proposals and transactions sent through Blend)',
  zksig:
    'wallet transactions and ZK signatures (transfers, /wallet/sign/zk, SDP, channel deposits, PoW claims)',
  poc: 'leader reward claims (/leader/claim)',
};

/**
 * Says, once at start, which roles are off because the backend cannot prove their circuit.
 * inferred: the reference always has its native witness generators and has no such follower mode (docs/design/fidelity.md)
 */
function logRolesOff(proofs: ProofSystem, log: Logger): void {
  const off = new Set<Circuit>();
  for (const c of CIRCUITS) {
    const reason = proofs.cannotProve?.(c);
    if (reason === undefined) continue;
    off.add(c);
    log.warn({ circuit: c, off: ROLES_OF[c], reason }, `role off: ${ROLES_OF[c]}`);
  }
  if (off.size > 0)
    log.warn(
      { circuits: [...off] },
      'this node follows the chain as a validating follower for these circuits: it verifies their proofs and cannot make them',
    );
}
