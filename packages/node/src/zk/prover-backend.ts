/**
 * What a prover process (prover-process.ts) proves with: this project's Groth16 prover (`wasm`,
 * @logos-ts/groth16: WebAssembly over worker threads) or snarkjs (`snarkjs`, the fallback). Both read
 * the same circuit files (a circom witness generator and a snarkjs/circom proving key) and answer
 * proofs in snarkjs' JSON form, which verify under the same verification key.
 */
import type { SnarkjsProof } from 'snarkjs';

export type ProverBackendName = 'wasm' | 'snarkjs';
export const PROVER_BACKENDS: readonly ProverBackendName[] = ['wasm', 'snarkjs'];

export interface ProverBackend {
  /** Reads the circuit's files and readies what proving needs, so that the first proof costs no more. */
  warm(wasmPath: string, zkeyPath: string): Promise<void>;
  /** A proof; an aborted `signal` stops it where the backend can (snarkjs runs to its end). */
  prove(
    wasmPath: string,
    zkeyPath: string,
    input: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<{ proof: SnarkjsProof; publicSignals: string[] }>;
  close(): Promise<void>;
}
