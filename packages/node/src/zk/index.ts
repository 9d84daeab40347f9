/**
 * Choosing the proof backend of a node: Groth16 with the configured keys for every deployment; the
 * insecure test backend only when asked for and only on a test deployment.
 */

import type { Logger } from 'pino';
import { assertProofSystemAllowed, type Deployment } from '../ledger/deployment.ts';
import type { ProofSystem } from '../ledger/proof-system.ts';
import type { Meter } from '../util/meter.ts';
import { type CircuitFolder, SHIPPED_CIRCUITS_DIR } from './circuit-folder.ts';
import { Groth16ProofSystem } from './groth16-system.ts';
import { INSECURE_TEST_PROOFS } from './insecure-test-proofs.ts';
import type { ProverBackendName } from './prover-backend.ts';
import { VerifierPool, withVerifierPool } from './verifier-pool.ts';

export {
  ArtifactError,
  CIRCUITS,
  CIRCUITS_ENV,
  type CircuitFolder,
  type CircuitName,
  type CircuitsSource,
  chooseCircuitsDir,
  loadCircuitFolder,
  SHIPPED_CIRCUITS_DIR,
} from './circuit-folder.ts';
export { DEFAULT_PROOFS, type ProofsSection, parseProofsSection } from './config.ts';
export { Groth16ProofSystem } from './groth16-system.ts';
export { proofDeadline, withProofDeadline } from './proof-deadline.ts';
export { PROVER_BACKENDS, type ProverBackendName } from './prover-backend.ts';
export { VerifierPool, VerifierPoolError, withVerifierPool } from './verifier-pool.ts';

export interface ProofSystemOptions {
  /** The circuits folder (loaded, or its path); the shipped folder of this node's own circuits by default. */
  readonly circuits?: CircuitFolder | string;
  /** Use the insecure test backend (refused unless the deployment is a test deployment). */
  readonly insecureTestProofs?: boolean;
  readonly provers?: number;
  /** The Groth16 prover backend (`proofs.backend`): this node's own prover by default. */
  readonly backend?: ProverBackendName;
  /** Where the prover logs the requests it drops (debug). */
  readonly logger?: Logger;
  /** Times the proofs made, by circuit. */
  readonly meter?: Meter;
}

export function createProofSystem(d: Deployment, opts: ProofSystemOptions = {}): ProofSystem {
  const system = opts.insecureTestProofs
    ? INSECURE_TEST_PROOFS
    : new Groth16ProofSystem({
        circuits: opts.circuits ?? SHIPPED_CIRCUITS_DIR,
        ...(opts.provers ? { provers: opts.provers } : {}),
        ...(opts.backend ? { backend: opts.backend } : {}),
        ...(opts.logger ? { logger: opts.logger } : {}),
        ...(opts.meter ? { meter: opts.meter } : {}),
      });
  assertProofSystemAllowed(d, system);
  return system;
}

/**
 * The proof backend blocks and transactions are verified with: Groth16 verification moves to a pool of
 * `threads` worker threads (proving stays with `proofs`); any other backend (the test one) verifies as
 * it is. The result's `close` releases the pool only.
 */
export async function pooledVerifier(proofs: ProofSystem, threads: number): Promise<ProofSystem> {
  if (!(proofs instanceof Groth16ProofSystem)) {
    return {
      name: proofs.name,
      secure: proofs.secure,
      verifyZkSign: (st, sig) => proofs.verifyZkSign(st, sig),
      proveZkSign: (msg, sks, opts) => proofs.proveZkSign(msg, sks, opts),
      verifyPol: (inputs, proof) => proofs.verifyPol(inputs, proof),
      provePol: (inputs, witness, opts) => proofs.provePol(inputs, witness, opts),
      warmPolProver: () => proofs.warmPolProver?.() ?? Promise.resolve(),
      verifyPoc: (inputs, proof) => proofs.verifyPoc(inputs, proof),
      provePoc: (inputs, witness) => proofs.provePoc(inputs, witness),
      verifyPoq: (inputs, keyNullifier, proof) => proofs.verifyPoq(inputs, keyNullifier, proof),
      provePoq: (inputs, witness, opts) => proofs.provePoq(inputs, witness, opts),
      cannotProve: (circuit) => proofs.cannotProve?.(circuit),
      close: async () => {},
    };
  }
  const pool = await VerifierPool.start({ verificationKeys: proofs.verificationKeys(), size: threads });
  return withVerifierPool(proofs, pool);
}
