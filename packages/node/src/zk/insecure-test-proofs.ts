/**
 * INSECURE: a deterministic stand-in for the zero-knowledge backend, for unit tests only.
 *
 * A "proof" here is a hash of the public inputs. Anyone can compute it without any secret, so it
 * proves nothing; it only lets tests exercise the ledger's wiring (right statement, right public
 * inputs, right message). `secure` is false and the node refuses to run a non-test deployment with it.
 */

import { bytesEqual, concatBytes } from '../codec/hex.ts';
import { blake2b256, tag } from '../crypto/blake2b.ts';
import {
  PoqInputError,
  type PoqPublicInputs,
  type PoqWitness,
  poqCircuitInput,
  poqKeyNullifier,
  poqPublicInputList,
  poqWitnessSatisfies,
} from '../crypto/blend/poq.ts';
import { type Fr, frToBytes } from '../crypto/field.ts';
import { zkPublicKey } from '../crypto/zk-keys.ts';
import {
  type PocPublicInputs,
  type PolPublicInputs,
  type PoqProof,
  type ProofChecks,
  type ProofSystem,
  polPublicInputList,
  type ZkSignStatement,
} from '../ledger/proof-system.ts';
import type { Groth16ProofParts } from '../mantle/ops.ts';
import type { ZkSignature } from '../mantle/proofs.ts';

const ZK = tag('INSECURE_TEST_ZKSIGN');
const POL = tag('INSECURE_TEST_POL');
const POC = tag('INSECURE_TEST_POC');
const POQ = tag('INSECURE_TEST_POQ');

function frs(xs: readonly Fr[]): Uint8Array {
  return concatBytes(...xs.map(frToBytes));
}

function expand(domain: Uint8Array, body: Uint8Array, n: number): Uint8Array {
  const out = new Uint8Array(n);
  for (let i = 0; i * 32 < n; i++) {
    out.set(blake2b256(domain, Uint8Array.of(i), body).subarray(0, Math.min(32, n - i * 32)), i * 32);
  }
  return out;
}

function parts(b: Uint8Array): Groth16ProofParts {
  return { pi_a: b.slice(0, 32), pi_b: b.slice(32, 96), pi_c: b.slice(96, 128) };
}

function partsEqual(a: Groth16ProofParts, b: Groth16ProofParts): boolean {
  return bytesEqual(a.pi_a, b.pi_a) && bytesEqual(a.pi_b, b.pi_b) && bytesEqual(a.pi_c, b.pi_c);
}

function zkSig(st: ZkSignStatement): ZkSignature {
  return parts(expand(ZK, frs([st.msg, ...st.publicKeys]), 128));
}

function polProof(i: PolPublicInputs): Uint8Array {
  return expand(POL, frs(polPublicInputList(i)), 128);
}

function pocProof(i: PocPublicInputs): Uint8Array {
  return expand(POC, frs([i.voucher_nullifier, i.voucher_root, i.mantle_tx_hash]), 128);
}

/** Undefined for a signing key that is not 32 bytes (no proof is valid for it). */
function poqProof(i: PoqPublicInputs, keyNullifier: Fr): Groth16ProofParts | undefined {
  if (i.signing_key.length !== 32) return undefined;
  return parts(expand(POQ, frs(poqPublicInputList(i, keyNullifier)), 128));
}

/** Proves only what the circuit would: the inputs fit it and the witness satisfies the statement. */
function provePoqInsecure(i: PoqPublicInputs, w: PoqWitness): PoqProof {
  poqCircuitInput(i, w);
  if (!poqWitnessSatisfies(i, w)) throw new PoqInputError('the witness does not satisfy the proof of quota');
  const keyNullifier = poqKeyNullifier(i.leader.pol_epoch_nonce, w);
  return { proof: poqProof(i, keyNullifier)!, keyNullifier };
}

/** The synchronous checks, for the pure ledger in unit tests. */
export const INSECURE_TEST_CHECKS: ProofChecks = {
  verifyZkSign: (st, sig) => partsEqual(zkSig(st), sig),
  verifyPol: (inputs, proof) => bytesEqual(polProof(inputs), proof),
  verifyPoc: (inputs, proof) => bytesEqual(pocProof(inputs), proof),
  verifyPoq(inputs, keyNullifier, proof) {
    const want = poqProof(inputs, keyNullifier);
    return want !== undefined && partsEqual(want, proof);
  },
};

export const INSECURE_TEST_PROOFS: ProofSystem = {
  name: 'insecure-test-proofs',
  secure: false,
  verifyZkSign: async (st, sig) => INSECURE_TEST_CHECKS.verifyZkSign(st, sig),
  verifyPol: async (inputs, proof) => INSECURE_TEST_CHECKS.verifyPol(inputs, proof),
  verifyPoc: async (inputs, proof) => INSECURE_TEST_CHECKS.verifyPoc(inputs, proof),
  verifyPoq: async (inputs, keyNullifier, proof) =>
    INSECURE_TEST_CHECKS.verifyPoq(inputs, keyNullifier, proof),
  proveZkSign: async (msg, secretKeys) => insecureTestZkSign(msg, secretKeys),
  provePol: async (inputs) => polProof(inputs),
  provePoc: async (inputs) => pocProof(inputs),
  provePoq: async (inputs, witness) => provePoqInsecure(inputs, witness),
  close: async () => {},
};

/** Synchronous signing for tests that build many transactions. */
export function insecureTestZkSign(msg: Fr, secretKeys: readonly Fr[]): ZkSignature {
  return zkSig({ msg, publicKeys: secretKeys.map(zkPublicKey) });
}

/** Synchronous proof of leadership for test block producers. */
export function insecureTestPolProof(inputs: PolPublicInputs): Uint8Array {
  return polProof(inputs);
}

/** Synchronous proof of claim for tests. */
export function insecureTestPocProof(inputs: PocPublicInputs): Uint8Array {
  return pocProof(inputs);
}

/** Synchronous proof of quota for tests (throws as the real prover would refuse). */
export function insecureTestPoqProof(inputs: PoqPublicInputs, witness: PoqWitness): PoqProof {
  return provePoqInsecure(inputs, witness);
}

/**
 * The insecure proof of quota of a statement, made without any witness: for tests that need a proof
 * the insecure backend accepts for given public inputs and key nullifier.
 */
export function insecureTestPoqProofOf(inputs: PoqPublicInputs, keyNullifier: Fr): Groth16ProofParts {
  const proof = poqProof(inputs, keyNullifier);
  if (proof === undefined) throw new PoqInputError('a signing key has 32 bytes');
  return proof;
}
