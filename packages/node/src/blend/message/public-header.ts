/**
 * The public header of a Blend message, 257 bytes (F: blend/message/src/message/public_header.rs):
 * `version u8 (= 1) ‖ signing_key 32 (the layer's ephemeral Ed25519 key) ‖ proof of quota 160 ‖
 * signature 64` (the signature, by that key, over the private header ‖ payload bytes). Decoding refuses
 * another version, a signing key that is not a curve point and a non-canonical key nullifier, as F's
 * `BinaryDecode` does.
 */
import { ED25519_PUBLIC_KEY_BYTES, ED25519_SIGNATURE_BYTES, isEd25519Point } from '../../crypto/ed25519.ts';
import type { ProofOfQuota } from '../../mantle/ops.ts';
import { BlendMessageError } from './errors.ts';
import { PROOF_OF_QUOTA_SIZE, readProofOfQuota, writeProofOfQuota } from './proofs.ts';

export const BLEND_MESSAGE_VERSION = 1;
export const PUBLIC_HEADER_SIZE =
  1 + ED25519_PUBLIC_KEY_BYTES + PROOF_OF_QUOTA_SIZE + ED25519_SIGNATURE_BYTES;

export interface PublicHeader {
  readonly signingKey: Uint8Array;
  readonly proofOfQuota: ProofOfQuota;
  readonly signature: Uint8Array;
}

const KEY_AT = 1;
const POQ_AT = KEY_AT + ED25519_PUBLIC_KEY_BYTES;
const SIG_AT = POQ_AT + PROOF_OF_QUOTA_SIZE;

export function writePublicHeader(out: Uint8Array, offset: number, h: PublicHeader): void {
  if (h.signingKey.length !== ED25519_PUBLIC_KEY_BYTES || h.signature.length !== ED25519_SIGNATURE_BYTES) {
    throw new RangeError('a public header holds a 32-byte key and a 64-byte signature');
  }
  out[offset] = BLEND_MESSAGE_VERSION;
  out.set(h.signingKey, offset + KEY_AT);
  writeProofOfQuota(out, offset + POQ_AT, h.proofOfQuota);
  out.set(h.signature, offset + SIG_AT);
}

export function encodePublicHeader(h: PublicHeader): Uint8Array {
  const out = new Uint8Array(PUBLIC_HEADER_SIZE);
  writePublicHeader(out, 0, h);
  return out;
}

/** Decodes the public header at `offset` (the caller checked that 257 bytes are there). */
export function readPublicHeader(bytes: Uint8Array, offset: number): PublicHeader {
  const version = bytes[offset]!;
  if (version !== BLEND_MESSAGE_VERSION) {
    throw new BlendMessageError('BLEND_MESSAGE_VERSION', `unsupported Blend message version ${version}`, {
      variant: 'MessageDeserializationFailed',
      version,
    });
  }
  const signingKey = bytes.slice(offset + KEY_AT, offset + POQ_AT);
  if (!isEd25519Point(signingKey)) {
    throw new BlendMessageError(
      'BLEND_MESSAGE_MALFORMED',
      'public header: signing key is not an Ed25519 point',
      {
        variant: 'MessageDeserializationFailed',
      },
    );
  }
  const proofOfQuota = readProofOfQuota(bytes, offset + POQ_AT);
  if (proofOfQuota === undefined) {
    throw new BlendMessageError('BLEND_MESSAGE_MALFORMED', 'public header: key nullifier is not canonical', {
      variant: 'MessageDeserializationFailed',
    });
  }
  return { signingKey, proofOfQuota, signature: bytes.slice(offset + SIG_AT, offset + PUBLIC_HEADER_SIZE) };
}

export function decodePublicHeader(bytes: Uint8Array): PublicHeader {
  if (bytes.length !== PUBLIC_HEADER_SIZE) {
    throw new BlendMessageError('BLEND_MESSAGE_SIZE', `a public header is ${PUBLIC_HEADER_SIZE} bytes`, {
      variant: 'MessageDeserializationFailed',
      length: bytes.length,
    });
  }
  return readPublicHeader(bytes, 0);
}
