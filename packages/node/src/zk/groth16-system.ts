/**
 * The Groth16 proof backend of the node: the ZkSig, proof-of-leadership, proof-of-claim and Blend
 * proof-of-quota circuits (zk/circuits), proved with snarkjs in worker threads and verified in-process
 * on a single-threaded WebAssembly curve. Proofs travel in the 128-byte arkworks-compressed form.
 */

import { availableParallelism } from 'node:os';
import type { Logger } from 'pino';
import {
  type PoqPublicInputs,
  type PoqWitness,
  poqCircuitInput,
  poqKeyNullifier,
  poqPublicInputList,
} from '../crypto/blend/poq.ts';
import type { Fr } from '../crypto/field.ts';
import {
  compressProof,
  groth16Verify,
  type PreparedVerifyingKey,
  prepareVerifyingKey,
  terminateCurve,
  zkSignatureFromBytes,
  zkSignatureToBytes,
} from '../crypto/groth16/index.ts';
import { zkPublicKey } from '../crypto/zk-keys.ts';
import {
  type Circuit,
  type PocPublicInputs,
  type PocWitness,
  type PolPublicInputs,
  type PolWitness,
  type PoqProof,
  type ProofSystem,
  type ProveOptions,
  ProvingUnavailable,
  polPublicInputList,
  ZKSIGN_MAX_KEYS,
  type ZkSignStatement,
} from '../ledger/proof-system.ts';
import type { Groth16ProofParts } from '../mantle/ops.ts';
import type { ZkSignature } from '../mantle/proofs.ts';
import type { Meter } from '../util/meter.ts';
import {
  ArtifactError,
  CIRCUITS,
  type CircuitFolder,
  type CircuitName,
  type CircuitProver,
  loadCircuitFolder,
} from './circuit-folder.ts';
import { proofDeadline } from './proof-deadline.ts';
import type { ProverBackendName } from './prover-backend.ts';
import { ProverPool, type ProverStats } from './prover-pool.ts';

const PAD_PK = zkPublicKey(0n);

const dec = (x: bigint | number) => x.toString();
const bits = (index: number, n = 32) => Array.from({ length: n }, (_, i) => dec((index >>> i) & 1));

/** The ZkSig circuit's public inputs: 32 keys (padded with the key of 0) and the message. */
export function zkSignPublic(st: ZkSignStatement): bigint[] {
  if (st.publicKeys.length > ZKSIGN_MAX_KEYS) throw new RangeError(`at most ${ZKSIGN_MAX_KEYS} keys`);
  const pks = [...st.publicKeys];
  while (pks.length < ZKSIGN_MAX_KEYS) pks.push(PAD_PK);
  return [...pks, st.msg];
}

const polPublic = polPublicInputList;

/** The PoL circuit's input (signal name → decimal values) for a statement and its witness. */
export function polCircuitInput(i: PolPublicInputs, w: PolWitness): Record<string, string | string[]> {
  return {
    entropy_contribution: dec(i.entropy_contribution),
    slot: dec(i.slot),
    epoch_nonce: dec(i.epoch_nonce),
    lottery_0: dec(i.lottery_0),
    lottery_1: dec(i.lottery_1),
    aged_root: dec(i.aged_root),
    latest_root: dec(i.latest_root),
    leader_pk1: dec(i.leader_pk1),
    leader_pk2: dec(i.leader_pk2),
    secret_key: dec(w.secret_key),
    note_value: dec(w.note_value),
    note_tx_hash: dec(w.note_tx_hash),
    note_output_index: dec(w.note_output_index),
    aged_path: w.aged_path.map(dec),
    aged_bits: bits(w.aged_index),
    latest_path: w.latest_path.map(dec),
    latest_bits: bits(w.latest_index),
  };
}

/** The PoC circuit's public inputs, in order. */
export function pocPublic(i: PocPublicInputs): bigint[] {
  return [i.voucher_nullifier, i.voucher_root, i.mantle_tx_hash];
}

/**
 * The PoQ circuit's public inputs and the proof as 128 bytes, or undefined when the statement cannot
 * be one the circuit proves (a signing key or a proof part of the wrong size): such a proof is false.
 */
export function poqStatement(
  i: PoqPublicInputs,
  keyNullifier: Fr,
  proof: Groth16ProofParts,
): { publicInputs: bigint[]; proof: Uint8Array } | undefined {
  if (i.signing_key.length !== 32) return undefined;
  if (proof.pi_a.length !== 32 || proof.pi_b.length !== 64 || proof.pi_c.length !== 32) return undefined;
  return { publicInputs: poqPublicInputList(i, keyNullifier), proof: zkSignatureToBytes(proof) };
}

export interface Groth16Options {
  /** A circuits folder in the reference's layout (src/zk/circuit-folder.ts), or its path. */
  readonly circuits: CircuitFolder | string;
  /** Prover processes (1). */
  readonly provers?: number;
  /** What they prove with: this project's prover (`wasm`, the default) or snarkjs. */
  readonly backend?: ProverBackendName;
  /** Worker threads of each prover process (`wasm`): the machine's cores shared among the processes. */
  readonly proverThreads?: number;
  /** Where dropped proof requests are logged (debug). */
  readonly logger?: Logger;
  /** Times the proofs made, by circuit (absent: not timed). */
  readonly meter?: Meter;
}

export class Groth16ProofSystem implements ProofSystem {
  readonly name = 'groth16';
  readonly secure = true;
  /** The prover backend. */
  readonly backend: ProverBackendName;
  private readonly pool: ProverPool;
  readonly folder: CircuitFolder;
  private readonly vks: Record<CircuitName, PreparedVerifyingKey>;

  constructor(opts: Groth16Options) {
    this.folder = typeof opts.circuits === 'string' ? loadCircuitFolder(opts.circuits) : opts.circuits;
    const vks = {} as Record<CircuitName, PreparedVerifyingKey>;
    for (const c of CIRCUITS) {
      const a = this.folder.circuits[c];
      try {
        vks[c] = prepareVerifyingKey(a.verificationKey);
      } catch (e) {
        throw new ArtifactError(
          `verification key ${a.verificationKeyPath} is not usable: ${(e as Error).message}`,
        );
      }
    }
    this.vks = vks;
    const provers = opts.provers ?? 1;
    this.backend = opts.backend ?? 'wasm';
    const threads = opts.proverThreads ?? Math.max(1, Math.floor(availableParallelism() / provers));
    this.pool = new ProverPool(provers, this.backend, threads, opts.logger, opts.meter);
  }

  /** The verification key of each circuit, as snarkjs wrote it (for verifier threads). */
  verificationKeys(): Record<CircuitName, unknown> {
    const out = {} as Record<CircuitName, unknown>;
    for (const c of CIRCUITS) out[c] = this.folder.circuits[c].verificationKey;
    return out;
  }

  cannotProve(circuit: Circuit): string | undefined {
    return this.folder.circuits[circuit].cannotProve;
  }

  /** The circuit's prover files; throws `ProvingUnavailable` (before any work) when there are none. */
  private prover(circuit: CircuitName): CircuitProver {
    const a = this.folder.circuits[circuit];
    if (!a.prover) throw new ProvingUnavailable(circuit, a.cannotProve ?? 'no witness generator');
    return a.prover;
  }

  /** Has the prover read the leadership circuit's files and build its curve before the first proof. */
  async warmPolProver(): Promise<void> {
    const p = this.folder.circuits.pol.prover;
    if (p !== undefined) await this.pool.warm(p.wasmPath, p.zkeyPath);
  }

  /** R1CS constraint count of a circuit, where the folder's manifest records it. */
  constraints(circuit: CircuitName): number | undefined {
    return this.folder.circuits[circuit].constraints;
  }

  /**
   * Proves `circuit`'s statement. The statement (witness input and expected public inputs) is built only
   * once the folder is known to have this circuit's prover, so a verify-only circuit fails at once.
   */
  private async prove(
    circuit: CircuitName,
    statement: () => { input: Record<string, string | string[]>; publicInputs: bigint[] },
    opts: ProveOptions = {},
  ): Promise<Uint8Array> {
    const a = this.prover(circuit);
    const { input, publicInputs } = statement();
    // A request without a signal of its own ends with the work that asked for it (an API request's).
    const signal = opts.signal ?? proofDeadline();
    const { proof, publicSignals } = await this.pool.prove(circuit, a.wasmPath, a.zkeyPath, input, {
      ...opts,
      ...(signal ? { signal } : {}),
    });
    const got = publicSignals.map(BigInt);
    if (got.length !== publicInputs.length || got.some((x, i) => x !== publicInputs[i])) {
      throw new Error(`${circuit}: the circuit's public signals differ from the statement`);
    }
    return compressProof(proof);
  }

  verifyZkSign(st: ZkSignStatement, sig: ZkSignature): Promise<boolean> {
    return groth16Verify(this.vks.zksig, zkSignPublic(st), zkSignatureToBytes(sig));
  }

  /** Proving time spent on proofs used and on proofs dropped or made for nothing. */
  get proverStats(): ProverStats {
    return this.pool.stats;
  }

  /** Proof requests waiting for a free prover. */
  get proverQueue(): number {
    return this.pool.waiting;
  }

  async proveZkSign(msg: bigint, secretKeys: readonly bigint[], opts?: ProveOptions): Promise<ZkSignature> {
    if (secretKeys.length > ZKSIGN_MAX_KEYS) throw new RangeError(`at most ${ZKSIGN_MAX_KEYS} keys`);
    const bytes = await this.prove(
      'zksig',
      () => {
        const sks = [...secretKeys];
        while (sks.length < ZKSIGN_MAX_KEYS) sks.push(0n);
        const pub = zkSignPublic({ msg, publicKeys: secretKeys.map(zkPublicKey) });
        return {
          input: { pks: pub.slice(0, ZKSIGN_MAX_KEYS).map(dec), msg: dec(msg), sks: sks.map(dec) },
          publicInputs: pub,
        };
      },
      opts,
    );
    return zkSignatureFromBytes(bytes);
  }

  verifyPol(inputs: PolPublicInputs, proof: Uint8Array): Promise<boolean> {
    return groth16Verify(this.vks.pol, polPublic(inputs), proof);
  }

  provePol(i: PolPublicInputs, w: PolWitness, opts?: ProveOptions): Promise<Uint8Array> {
    return this.prove('pol', () => ({ input: polCircuitInput(i, w), publicInputs: polPublic(i) }), opts);
  }

  verifyPoc(inputs: PocPublicInputs, proof: Uint8Array): Promise<boolean> {
    return groth16Verify(this.vks.poc, pocPublic(inputs), proof);
  }

  provePoc(i: PocPublicInputs, w: PocWitness): Promise<Uint8Array> {
    return this.prove('poc', () => ({
      input: {
        voucher_nullifier: dec(i.voucher_nullifier),
        voucher_root: dec(i.voucher_root),
        mantle_tx_hash: dec(i.mantle_tx_hash),
        voucher_secret: dec(w.voucher_secret),
        path: w.voucher_path.map(dec),
        index_bits: bits(w.voucher_index),
      },
      publicInputs: pocPublic(i),
    }));
  }

  async verifyPoq(i: PoqPublicInputs, keyNullifier: Fr, proof: Groth16ProofParts): Promise<boolean> {
    const st = poqStatement(i, keyNullifier, proof);
    return st !== undefined && groth16Verify(this.vks.poq, st.publicInputs, st.proof);
  }

  async provePoq(i: PoqPublicInputs, w: PoqWitness, opts?: ProveOptions): Promise<PoqProof> {
    let keyNullifier = 0n;
    const bytes = await this.prove(
      'poq',
      () => {
        keyNullifier = poqKeyNullifier(i.leader.pol_epoch_nonce, w);
        return { input: poqCircuitInput(i, w), publicInputs: poqPublicInputList(i, keyNullifier) };
      },
      opts,
    );
    return { proof: zkSignatureFromBytes(bytes), keyNullifier };
  }

  async close(): Promise<void> {
    await this.pool.close();
    await terminateCurve();
  }
}
