/**
 * A blending header, the per-layer part of the private header, 289 bytes in the clear
 * (F: blend/message/src/message/blending_header.rs): `signing_key 32 ‖ proof of quota 160 ‖
 * signature 64 ‖ proof of selection 32 ‖ is_last u8 (0 or 1)`. The signing key, proof of quota and
 * signature become the next layer's public header; the proof of selection designates the node that
 * decrypts this layer; `is_last` says the payload is revealed here.
 *
 * `pseudoRandomBlendingHeader(key)` is the filler a node rebuilds after removing a layer, so that the
 * header count stays constant: each field from `pseudo_random_sized_bytes("BlendInitialization",
 * key ‖ i)` for i = 1..4, the signing key being the public key of the 32 bytes taken as a secret seed.
 */
import { pseudoRandomBytes } from '../../crypto/blend/blake-rng.ts';
import { DOMAIN_INITIALIZATION } from '../../crypto/blend/cipher.ts';
import { layerPublicKey } from '../../crypto/blend/layer-keys.ts';
import { ED25519_PUBLIC_KEY_BYTES, ED25519_SIGNATURE_BYTES, isEd25519Point } from '../../crypto/ed25519.ts';
import type { ProofOfQuota, ProofOfSelection } from '../../mantle/ops.ts';
import { BlendMessageError } from './errors.ts';
import {
  PROOF_OF_QUOTA_SIZE,
  PROOF_OF_SELECTION_SIZE,
  proofOfQuotaUnchecked,
  proofOfSelectionUnchecked,
  readProofOfQuota,
  readProofOfSelection,
  writeProofOfQuota,
  writeProofOfSelection,
} from './proofs.ts';

export const BLENDING_HEADER_SIZE =
  ED25519_PUBLIC_KEY_BYTES + PROOF_OF_QUOTA_SIZE + ED25519_SIGNATURE_BYTES + PROOF_OF_SELECTION_SIZE + 1;

export interface BlendingHeader {
  readonly signingKey: Uint8Array;
  readonly proofOfQuota: ProofOfQuota;
  readonly signature: Uint8Array;
  readonly proofOfSelection: ProofOfSelection;
  readonly isLast: boolean;
}

const POQ_AT = ED25519_PUBLIC_KEY_BYTES;
const SIG_AT = POQ_AT + PROOF_OF_QUOTA_SIZE;
const POSEL_AT = SIG_AT + ED25519_SIGNATURE_BYTES;
const LAST_AT = POSEL_AT + PROOF_OF_SELECTION_SIZE;

export function writeBlendingHeader(out: Uint8Array, offset: number, h: BlendingHeader): void {
  if (h.signingKey.length !== ED25519_PUBLIC_KEY_BYTES || h.signature.length !== ED25519_SIGNATURE_BYTES) {
    throw new RangeError('a blending header holds a 32-byte key and a 64-byte signature');
  }
  out.set(h.signingKey, offset);
  writeProofOfQuota(out, offset + POQ_AT, h.proofOfQuota);
  out.set(h.signature, offset + SIG_AT);
  writeProofOfSelection(out, offset + POSEL_AT, h.proofOfSelection);
  out[offset + LAST_AT] = h.isLast ? 1 : 0;
}

export function encodeBlendingHeader(h: BlendingHeader): Uint8Array {
  const out = new Uint8Array(BLENDING_HEADER_SIZE);
  writeBlendingHeader(out, 0, h);
  return out;
}

function refuse(reason: string): never {
  throw new BlendMessageError('BLEND_MESSAGE_PRIVATE_HEADER', `blending header: ${reason}`, {
    variant: 'PrivateHeaderDeserializationFailed',
  });
}

/**
 * Decodes the decrypted blending header at `offset`. A header decrypted with the wrong key is random
 * bytes and fails here (a key off the curve, a non-canonical field element, an `is_last` byte above 1)
 * or at its proof of selection.
 */
export function readBlendingHeader(bytes: Uint8Array, offset: number): BlendingHeader {
  if (bytes.length - offset < BLENDING_HEADER_SIZE) refuse('too short');
  const signingKey = bytes.slice(offset, offset + POQ_AT);
  if (!isEd25519Point(signingKey)) refuse('signing key is not an Ed25519 point');
  const proofOfQuota = readProofOfQuota(bytes, offset + POQ_AT);
  if (proofOfQuota === undefined) refuse('key nullifier is not canonical');
  const proofOfSelection = readProofOfSelection(bytes, offset + POSEL_AT);
  if (proofOfSelection === undefined) refuse('proof of selection is not canonical');
  const last = bytes[offset + LAST_AT]!;
  if (last > 1) refuse(`is_last byte ${last}`);
  return {
    signingKey,
    proofOfQuota,
    signature: bytes.slice(offset + SIG_AT, offset + POSEL_AT),
    proofOfSelection,
    isLast: last === 1,
  };
}

function concatByte(key: Uint8Array, b: number): Uint8Array {
  const out = new Uint8Array(key.length + 1);
  out.set(key, 0);
  out[key.length] = b;
  return out;
}

/** The reconstructable filler header of `key` (F: `BlendingHeader::pseudo_random`). */
export function pseudoRandomBlendingHeader(key: Uint8Array): BlendingHeader {
  const field = (i: number, size: number) =>
    pseudoRandomBytes(DOMAIN_INITIALIZATION, concatByte(key, i), size);
  return {
    signingKey: layerPublicKey(field(1, ED25519_PUBLIC_KEY_BYTES)),
    proofOfQuota: proofOfQuotaUnchecked(field(2, PROOF_OF_QUOTA_SIZE)),
    signature: field(3, ED25519_SIGNATURE_BYTES),
    proofOfSelection: proofOfSelectionUnchecked(field(4, PROOF_OF_SELECTION_SIZE)),
    isLast: false,
  };
}
