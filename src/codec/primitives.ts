/**
 * Codecs of the small types every chain structure is made of: 32-byte ids, bare hashes,
 * Ed25519 keys and signatures.
 */
import { isValidEd25519PublicKey } from '../crypto/ed25519.ts';
import { type Codec, fixedBytes } from './schema.ts';

/** HeaderId, TxHash, ChannelId, MsgId, DeclarationId, ContentId: 64 lowercase hex, `0x` accepted on input. */
export const id32: Codec<Uint8Array> = fixedBytes(32, 'hex-or-0x', 'a 32-byte id (64 hex characters)');

/** A bare `Hash = [u8; 32]` (op ids in UTXOs and events, PoW block hashes): a JSON array of 32 integers. */
export const hashArray: Codec<Uint8Array> = fixedBytes(32, 'array', 'a 32-byte hash (array of 32 integers)');

/** `Ed25519PublicKey`: must decode to a curve point that is not of small order. */
export const ed25519PublicKey: Codec<Uint8Array> = fixedBytes(
  32,
  'hex',
  'an Ed25519 public key (64 hex characters)',
  (b) =>
    isValidEd25519PublicKey(b) ? undefined : 'not a valid Ed25519 public key (small order or not a point)',
);

/** `UnverifiedEd25519PublicKey` (leader keys, inscription signers, channel keys): any 32 bytes. */
export const unverifiedEd25519PublicKey: Codec<Uint8Array> = fixedBytes(
  32,
  'hex',
  'an Ed25519 public key (64 hex characters)',
);

export const ed25519Signature: Codec<Uint8Array> = fixedBytes(
  64,
  'hex',
  'an Ed25519 signature (128 hex characters)',
);

/** A 128-byte compressed Groth16 proof (PoL, PoC) as 256 hex characters. */
export const groth16ProofHex: Codec<Uint8Array> = fixedBytes(128, 'hex', 'a proof (256 hex characters)');

export const ZERO_32 = new Uint8Array(32);
