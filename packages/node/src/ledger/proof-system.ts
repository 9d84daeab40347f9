/**
 * The zero-knowledge statements the ledger checks, behind one interface so the backend can be
 * chosen by the deployment: Groth16 for real networks, an insecure deterministic one for unit tests.
 *
 * The ledger is a pure, synchronous function: it asks `ProofChecks` for a yes or no. A real backend
 * verifies asynchronously (WebAssembly, worker threads), so blocks are applied with
 * `DeferredProofChecks`, which records every statement and answers yes; the records are then
 * verified together and the block is refused if any fails (see ledger/verified.ts).
 */

import { LogosError } from '@logos-ts/shared/errors';
import type { PoqPublicInputs, PoqWitness } from '../crypto/blend/poq.ts';
import type { Fr } from '../crypto/field.ts';
import type { Groth16ProofParts } from '../mantle/ops.ts';
import type { ZkSignature } from '../mantle/proofs.ts';

/** ZkSign: knowledge of the secret keys of up to 32 public keys, bound to a message (the tx hash as Fr). */
export interface ZkSignStatement {
  readonly msg: Fr;
  readonly publicKeys: readonly Fr[];
}

/** Proof of leadership public inputs, in the circuit's order. */
export interface PolPublicInputs {
  readonly entropy_contribution: Fr;
  readonly slot: bigint;
  readonly epoch_nonce: Fr;
  readonly lottery_0: Fr;
  readonly lottery_1: Fr;
  readonly aged_root: Fr;
  readonly latest_root: Fr;
  /** The one-time Ed25519 leader key, as two 16-byte little-endian halves. */
  readonly leader_pk1: Fr;
  readonly leader_pk2: Fr;
}

/** The PoL public inputs as the circuit takes them, in order. */
export function polPublicInputList(i: PolPublicInputs): bigint[] {
  return [
    i.entropy_contribution,
    i.slot,
    i.epoch_nonce,
    i.lottery_0,
    i.lottery_1,
    i.aged_root,
    i.latest_root,
    i.leader_pk1,
    i.leader_pk2,
  ];
}

/** The private part of a PoL proof: the winning note and its paths in the aged and latest UTXO trees. */
export interface PolWitness {
  readonly secret_key: Fr;
  readonly note_value: bigint;
  /** Where the note was created: the op id as a field element and the output index. */
  readonly note_tx_hash: Fr;
  readonly note_output_index: number;
  readonly aged_path: readonly Fr[];
  readonly aged_index: number;
  readonly latest_path: readonly Fr[];
  readonly latest_index: number;
}

/** Proof of claim public inputs: a leader reward voucher in the snapshot's voucher tree. */
export interface PocPublicInputs {
  readonly voucher_nullifier: Fr;
  readonly voucher_root: Fr;
  readonly mantle_tx_hash: Fr;
}

export interface PocWitness {
  readonly voucher_secret: Fr;
  readonly voucher_path: readonly Fr[];
  readonly voucher_index: number;
}

/** A proof of quota (Blend) with the key nullifier its circuit output. */
export interface PoqProof {
  readonly proof: Groth16ProofParts;
  readonly keyNullifier: Fr;
}

/** The checks the ledger asks for, answered synchronously. */
export interface ProofChecks {
  verifyZkSign(statement: ZkSignStatement, signature: ZkSignature, site?: ProofSite): boolean;
  verifyPol(inputs: PolPublicInputs, proof: Uint8Array): boolean;
  verifyPoc(inputs: PocPublicInputs, proof: Uint8Array, site?: ProofSite): boolean;
  verifyPoq(inputs: PoqPublicInputs, keyNullifier: Fr, proof: Groth16ProofParts, site?: ProofSite): boolean;
}

/** Where a proof sits, so that a failure deferred to later still names its transaction and operation. */
export interface ProofSite {
  readonly txHash: Uint8Array;
  readonly opIndex: number;
}

/** How a proof is queued when the prover is busy. */
export interface ProveOptions {
  /**
   * Until when the proof is useful: aborting drops the request if it waits, stops it if it is being
   * made (where the backend can), and counts a proof already made as made for nothing. The abort
   * reason (a string) says why, in the log.
   */
  readonly signal?: AbortSignal;
  /** What the proof is for (`slot 1234`, `cover`, …), for the log. */
  readonly what?: string;
  /** Called when a prover starts on the request (a backend without a queue may never call it). */
  readonly onStart?: () => void;
  /** Goes before the requests already waiting (a proof needed now rather than ahead of time). */
  readonly urgent?: boolean;
  /** Waits behind every request that is not (a proof made ahead of time, with time to spare). */
  readonly background?: boolean;
}

/** A proof backend: makes and verifies proofs of the four statements. */
export interface ProofSystem {
  /** Human-readable backend name, shown in logs. */
  readonly name: string;
  /** False for backends that anyone can forge: a node must refuse them outside tests. */
  readonly secure: boolean;

  verifyZkSign(statement: ZkSignStatement, signature: ZkSignature): Promise<boolean>;
  proveZkSign(msg: Fr, secretKeys: readonly Fr[], opts?: ProveOptions): Promise<ZkSignature>;

  verifyPol(inputs: PolPublicInputs, proof: Uint8Array): Promise<boolean>;
  provePol(inputs: PolPublicInputs, witness: PolWitness, opts?: ProveOptions): Promise<Uint8Array>;
  /** Gets the prover ready for proofs of leadership (keys loaded), where that takes time. */
  warmPolProver?(): Promise<void>;

  verifyPoc(inputs: PocPublicInputs, proof: Uint8Array): Promise<boolean>;
  provePoc(inputs: PocPublicInputs, witness: PocWitness): Promise<Uint8Array>;

  /** Blend's proof of quota, bound to the key nullifier it carries (never throws on bad input: false). */
  verifyPoq(inputs: PoqPublicInputs, keyNullifier: Fr, proof: Groth16ProofParts): Promise<boolean>;
  /** Refuses (throws) a witness that does not fit the circuit or does not satisfy the statement. */
  provePoq(inputs: PoqPublicInputs, witness: PoqWitness, opts?: ProveOptions): Promise<PoqProof>;

  /**
   * Why this backend cannot make proofs of a circuit (it verifies them all the same), or undefined when
   * it can. A backend without the method proves every circuit.
   */
  cannotProve?(circuit: Circuit): string | undefined;

  /** Releases workers and WebAssembly instances. */
  close(): Promise<void>;
}

/** The node's circuits: ZkSig, proof of leadership, proof of claim, Blend's proof of quota. */
export type Circuit = 'zksig' | 'pol' | 'poc' | 'poq';

/** A proof asked of a backend that can only verify that circuit (see `ProofSystem.cannotProve`). */
export class ProvingUnavailable extends LogosError {
  constructor(
    readonly circuit: Circuit,
    reason: string,
  ) {
    super('PROVING_UNAVAILABLE', `this node cannot make ${circuit} proofs: ${reason}`);
  }
}

/** The maximum number of keys one ZkSign proof covers. */
export const ZKSIGN_MAX_KEYS = 32;

/**
 * Checks that accept every proof. Only for blocks whose proofs this node already verified (replay
 * of its own storage) and for dry runs whose proofs are verified elsewhere (block building from a
 * mempool that verifies on admission, benchmarks of the state transition alone).
 */
export const PROOFS_ALREADY_VERIFIED: ProofChecks = {
  verifyZkSign: () => true,
  verifyPol: () => true,
  verifyPoc: () => true,
  verifyPoq: () => true,
};
