/**
 * The zero-knowledge statements the ledger checks, behind one interface so the backend can be
 * chosen by the deployment: Groth16 for real networks, an insecure deterministic one for unit tests.
 *
 * Verification is synchronous (the ledger is a pure function); proving may take seconds and is async.
 */
import type { Fr } from '../crypto/field.ts';
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

/** The private part of a PoL proof: the winning note and its paths in the aged and latest UTXO trees. */
export interface PolWitness {
  readonly secret_key: Fr;
  readonly note_value: bigint;
  readonly note_id: Fr;
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

export interface ProofSystem {
  /** Human-readable backend name, shown in logs. */
  readonly name: string;
  /** False for backends that anyone can forge: a node must refuse them outside tests. */
  readonly secure: boolean;

  verifyZkSign(statement: ZkSignStatement, signature: ZkSignature): boolean;
  proveZkSign(msg: Fr, secretKeys: readonly Fr[]): Promise<ZkSignature>;

  verifyPol(inputs: PolPublicInputs, proof: Uint8Array): boolean;
  provePol(inputs: PolPublicInputs, witness: PolWitness): Promise<Uint8Array>;

  verifyPoc(inputs: PocPublicInputs, proof: Uint8Array): boolean;
  provePoc(inputs: PocPublicInputs, witness: PocWitness): Promise<Uint8Array>;
}

/** The maximum number of keys one ZkSign proof covers. */
export const ZKSIGN_MAX_KEYS = 32;
