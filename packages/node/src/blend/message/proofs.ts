/**
 * The byte forms of the proofs a Blend layer carries (F: blend/proofs/src/{quota,selection}/mod.rs):
 * a proof of quota is 160 bytes, `key_nullifier` (Fr, 32 bytes LE) ‖ pi_a 32 ‖ pi_b 64 ‖ pi_c 32 (the
 * compressed Groth16 points, kept as bytes); a proof of selection is its `selection_randomness`
 * (Fr, 32 bytes LE). Decoding requires canonical field elements (`fr_from_bytes`); the "unchecked"
 * forms reduce mod p (`fr_from_bytes_unchecked`, used for pseudo-random fillers).
 */
import { FR_MODULUS, frToBytes, leBytesToBigint } from '../../crypto/field.ts';
import type { ProofOfQuota, ProofOfSelection } from '../../mantle/ops.ts';

export const KEY_NULLIFIER_SIZE = 32;
export const PROOF_OF_QUOTA_SIZE = 160;
export const PROOF_OF_SELECTION_SIZE = 32;

const PI_A = 32;
const PI_B = 64;
const PI_C = 32;

function checkLength(name: string, bytes: Uint8Array, size: number): void {
  if (bytes.length !== size) throw new RangeError(`${name} must be ${size} bytes, got ${bytes.length}`);
}

/** Writes the 160-byte form of `p` at `offset`. */
export function writeProofOfQuota(out: Uint8Array, offset: number, p: ProofOfQuota): void {
  checkLength('pi_a', p.proof.pi_a, PI_A);
  checkLength('pi_b', p.proof.pi_b, PI_B);
  checkLength('pi_c', p.proof.pi_c, PI_C);
  out.set(frToBytes(p.key_nullifier), offset);
  out.set(p.proof.pi_a, offset + KEY_NULLIFIER_SIZE);
  out.set(p.proof.pi_b, offset + KEY_NULLIFIER_SIZE + PI_A);
  out.set(p.proof.pi_c, offset + KEY_NULLIFIER_SIZE + PI_A + PI_B);
}

export function encodeProofOfQuota(p: ProofOfQuota): Uint8Array {
  const out = new Uint8Array(PROOF_OF_QUOTA_SIZE);
  writeProofOfQuota(out, 0, p);
  return out;
}

function proofOfQuotaWith(bytes: Uint8Array, offset: number, keyNullifier: bigint): ProofOfQuota {
  const at = offset + KEY_NULLIFIER_SIZE;
  return {
    key_nullifier: keyNullifier,
    proof: {
      pi_a: bytes.slice(at, at + PI_A),
      pi_b: bytes.slice(at + PI_A, at + PI_A + PI_B),
      pi_c: bytes.slice(at + PI_A + PI_B, at + PI_A + PI_B + PI_C),
    },
  };
}

/** The proof of quota at `offset`, or undefined when its key nullifier is not canonical. */
export function readProofOfQuota(bytes: Uint8Array, offset: number): ProofOfQuota | undefined {
  const nullifier = leBytesToBigint(bytes.subarray(offset, offset + KEY_NULLIFIER_SIZE));
  return nullifier < FR_MODULUS ? proofOfQuotaWith(bytes, offset, nullifier) : undefined;
}

/** A proof of quota from any 160 bytes, the key nullifier reduced mod p (`from_bytes_unchecked`). */
export function proofOfQuotaUnchecked(bytes: Uint8Array): ProofOfQuota {
  checkLength('a proof of quota', bytes, PROOF_OF_QUOTA_SIZE);
  return proofOfQuotaWith(bytes, 0, leBytesToBigint(bytes.subarray(0, KEY_NULLIFIER_SIZE)) % FR_MODULUS);
}

export function writeProofOfSelection(out: Uint8Array, offset: number, p: ProofOfSelection): void {
  out.set(frToBytes(p.selection_randomness), offset);
}

/** The proof of selection at `offset`, or undefined when it is not canonical. */
export function readProofOfSelection(bytes: Uint8Array, offset: number): ProofOfSelection | undefined {
  const r = leBytesToBigint(bytes.subarray(offset, offset + PROOF_OF_SELECTION_SIZE));
  return r < FR_MODULUS ? { selection_randomness: r } : undefined;
}

/** A proof of selection from any 32 bytes, reduced mod p (`from_bytes_unchecked`). */
export function proofOfSelectionUnchecked(bytes: Uint8Array): ProofOfSelection {
  checkLength('a proof of selection', bytes, PROOF_OF_SELECTION_SIZE);
  return { selection_randomness: leBytesToBigint(bytes) % FR_MODULUS };
}
