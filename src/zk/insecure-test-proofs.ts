/**
 * INSECURE: a deterministic stand-in for the zero-knowledge backend, for unit tests only.
 *
 * A "proof" here is a hash of the public inputs. Anyone can compute it without any secret, so it
 * proves nothing; it only lets tests exercise the ledger's wiring (right statement, right public
 * inputs, right message). `secure` is false and the node refuses to run a non-test deployment with it.
 */

import { bytesEqual, concatBytes } from '../codec/hex.ts';
import { blake2b256, tag } from '../crypto/blake2b.ts';
import { type Fr, frToBytes } from '../crypto/field.ts';
import { zkPublicKey } from '../crypto/zk-keys.ts';
import {
  type PocPublicInputs,
  type PolPublicInputs,
  type ProofChecks,
  type ProofSystem,
  polPublicInputList,
  type ZkSignStatement,
} from '../ledger/proof-system.ts';
import type { ZkSignature } from '../mantle/proofs.ts';

const ZK = tag('INSECURE_TEST_ZKSIGN');
const POL = tag('INSECURE_TEST_POL');
const POC = tag('INSECURE_TEST_POC');

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

function zkSig(st: ZkSignStatement): ZkSignature {
  const b = expand(ZK, frs([st.msg, ...st.publicKeys]), 128);
  return { pi_a: b.slice(0, 32), pi_b: b.slice(32, 96), pi_c: b.slice(96, 128) };
}

function polProof(i: PolPublicInputs): Uint8Array {
  return expand(POL, frs(polPublicInputList(i)), 128);
}

function pocProof(i: PocPublicInputs): Uint8Array {
  return expand(POC, frs([i.voucher_nullifier, i.voucher_root, i.mantle_tx_hash]), 128);
}

/** The synchronous checks, for the pure ledger in unit tests. */
export const INSECURE_TEST_CHECKS: ProofChecks = {
  verifyZkSign(st, sig) {
    const want = zkSig(st);
    return (
      bytesEqual(want.pi_a, sig.pi_a) && bytesEqual(want.pi_b, sig.pi_b) && bytesEqual(want.pi_c, sig.pi_c)
    );
  },
  verifyPol: (inputs, proof) => bytesEqual(polProof(inputs), proof),
  verifyPoc: (inputs, proof) => bytesEqual(pocProof(inputs), proof),
};

export const INSECURE_TEST_PROOFS: ProofSystem = {
  name: 'insecure-test-proofs',
  secure: false,
  verifyZkSign: async (st, sig) => INSECURE_TEST_CHECKS.verifyZkSign(st, sig),
  verifyPol: async (inputs, proof) => INSECURE_TEST_CHECKS.verifyPol(inputs, proof),
  verifyPoc: async (inputs, proof) => INSECURE_TEST_CHECKS.verifyPoc(inputs, proof),
  proveZkSign: async (msg, secretKeys) => insecureTestZkSign(msg, secretKeys),
  provePol: async (inputs) => polProof(inputs),
  provePoc: async (inputs) => pocProof(inputs),
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
