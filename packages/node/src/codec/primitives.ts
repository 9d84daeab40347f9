/**
 * Codecs of the small types every chain structure is made of: 32-byte ids, bare hashes,
 * Ed25519 keys and signatures.
 *
 * JSON hex: the reference decodes ids, Ed25519 keys and signatures and 128-byte proofs with
 * `const_hex`, which takes an optional lowercase `0x` and either case of hex digits
 * (F: core/src/utils/mod.rs, utils/src/lib.rs `deserialize_bytes_array`). Output is lowercase, no prefix.
 */
import { isEd25519Point } from '../crypto/ed25519.ts';
import { type Codec, fixedBytes } from './schema.ts';

/** HeaderId, TxHash, ChannelId, MsgId, DeclarationId, ContentId: 64 lowercase hex, `0x` accepted on input. */
export const id32: Codec<Uint8Array> = fixedBytes(32, 'hex-or-0x', 'a 32-byte id (64 hex characters)');

/** A bare `Hash = [u8; 32]` (op ids in UTXOs and events, PoW block hashes): a JSON array of 32 integers. */
export const hashArray: Codec<Uint8Array> = fixedBytes(32, 'array', 'a 32-byte hash (array of 32 integers)');

/**
 * An Ed25519 public key (header `leader_key`, inscription `signer`, channel keys, activity
 * `signing_key`, SDP `provider_id`): the bytes must decompress to a curve point, as ed25519-dalek's
 * `VerifyingKey::from_bytes` requires. Small-order points and non-canonical encodings (y >= p,
 * x = 0 with the sign bit set) are accepted and kept byte for byte.
 * F: kms/keys/src/keys/ed25519/{public.rs,mod.rs}
 */
export const ed25519PublicKey: Codec<Uint8Array> = fixedBytes(
  32,
  'hex-or-0x',
  'an Ed25519 public key (64 hex characters)',
  (b) => (isEd25519Point(b) ? undefined : 'not a valid Ed25519 public key (not a curve point)'),
);

/** An Ed25519 signature: any 64 bytes (checked only when verified). F: kms/keys/src/keys/ed25519/signature.rs */
export const ed25519Signature: Codec<Uint8Array> = fixedBytes(
  64,
  'hex-or-0x',
  'an Ed25519 signature (128 hex characters)',
);

/**
 * A 128-byte compressed Groth16 proof (PoL, PoC) as 256 hex characters.
 * F: core/src/proofs/{leader_proof.rs,leader_claim_proof.rs} `proof_serde`
 */
export const groth16ProofHex: Codec<Uint8Array> = fixedBytes(
  128,
  'hex-or-0x',
  'a proof (256 hex characters)',
);

export const ZERO_32 = new Uint8Array(32);
