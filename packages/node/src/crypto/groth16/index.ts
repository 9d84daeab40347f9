/**
 * Groth16 over BN254: the arkworks-compressed proof encoding and the verifiers.
 * See points.ts (encoding, flags), proof.ts (snarkjs JSON ↔ 128 bytes ↔ proof parts) and verifier.ts.
 */
export {
  compressG1,
  compressG2,
  decompressG1,
  decompressG2,
  FLAG_INFINITY,
  FLAG_Y_NEGATIVE,
  FP_MODULUS,
  type Fp2,
  FR_ORDER,
  fp2IsLarger,
  fpIsLarger,
  G1,
  G1_COMPRESSED_BYTES,
  type G1Point,
  G2,
  G2_COMPRESSED_BYTES,
  type G2Point,
  PointEncodingError,
  type PointEncodingReason,
} from './points.ts';
export {
  compressProof,
  decodeProof,
  decompressProof,
  encodeProof,
  Groth16Error,
  type Groth16Proof,
  PROOF_BYTES,
  type ProofParts,
  proofFromSnarkjs,
  proofToSnarkjs,
  type SnarkjsProof,
  zkSignatureFromBytes,
  zkSignatureToBytes,
} from './proof.ts';
export {
  PreparedVerifyingKey,
  prepareVerifyingKey,
  type SnarkjsVerificationKey,
  terminate,
  terminate as terminateCurve,
  verify,
  verify as groth16Verify,
  verifyBatch,
  verifyBatch as groth16VerifyBatch,
  verifyNoble,
  WasmGroth16,
  wasmVerifier,
} from './verifier.ts';
