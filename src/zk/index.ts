/**
 * Choosing the proof backend of a node: Groth16 with the configured keys for every deployment; the
 * insecure test backend only when asked for and only on a test deployment.
 */
import { assertProofSystemAllowed, type Deployment } from '../ledger/deployment.ts';
import type { ProofSystem } from '../ledger/proof-system.ts';
import { DEFAULT_KEYS_DIR } from './artifacts.ts';
import { Groth16ProofSystem } from './groth16-system.ts';
import { INSECURE_TEST_PROOFS } from './insecure-test-proofs.ts';

export interface ProofSystemOptions {
  /** Folder of circuit artifacts; the shipped devnet keys by default. */
  readonly keysDir?: string;
  /** Use the insecure test backend (refused unless the deployment is a test deployment). */
  readonly insecureTestProofs?: boolean;
  readonly provers?: number;
}

export function createProofSystem(d: Deployment, opts: ProofSystemOptions = {}): ProofSystem {
  const system = opts.insecureTestProofs
    ? INSECURE_TEST_PROOFS
    : new Groth16ProofSystem({
        keysDir: opts.keysDir ?? DEFAULT_KEYS_DIR,
        ...(opts.provers ? { provers: opts.provers } : {}),
      });
  assertProofSystemAllowed(d, system);
  return system;
}
