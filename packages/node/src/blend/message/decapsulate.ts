/**
 * The node side of Blend: verifying a received message and removing the layer addressed to this node
 * (F: blend/message/src/encap/{encapsulated,validated,decapsulated}.rs, reward/token.rs).
 *
 * - `verifyPublicHeaderSignature`: the public header's signature over private header ‖ payload
 *   (`verify_header_signature`, what a node checks before forwarding);
 * - `verifyPublicHeader`: that signature, then the proof of quota against the header's signing key
 *   (`verify_public_header`);
 * - `decapsulateVerified`: for a verified message, the shared key from the node's non-ephemeral X25519
 *   secret and the header's signing key; every blending header decrypted; the first decoded (a layer
 *   not for this node decodes as garbage and is refused here or at its proof of selection); its proof
 *   of selection verified for the public header's key nullifier; the headers shifted left and the
 *   last rebuilt as the pseudo-random header of the shared key, encrypted; the payload decrypted; the
 *   next public header `{key, proof of quota, signature}` taken from the first blending header and its
 *   signature verified over the new part. A layer that is not the last also has that next proof of
 *   quota verified and gives the next message; the last one gives the payload, decoded.
 * - `decapsulate`: `verifyPublicHeader` then `decapsulateVerified`.
 *
 * Each removed layer yields a blending token: the layer's public signing key, its proof of quota and
 * the proof of selection found in it (the ledger's activity proof without its epoch).
 *
 * The proofs are checked by a `LayerProofVerifier` the caller provides: the Groth16 proof of quota is
 * verified elsewhere (asynchronously), and the proof of selection needs this node's membership index.
 * A verifier that throws counts as a refusal.
 */
import { ed25519Verify } from '../../crypto/ed25519.ts';
import type { Fr } from '../../crypto/field.ts';
import type { BlendActivityProof, ProofOfQuota, ProofOfSelection } from '../../mantle/ops.ts';
import {
  BLENDING_HEADER_SIZE,
  encodeBlendingHeader,
  pseudoRandomBlendingHeader,
  readBlendingHeader,
} from './blending-header.ts';
import {
  assumePublicHeaderVerified,
  type EncapsulatedMessage,
  type EncapsulatedPart,
  layerCount,
  signingBody,
  type VerifiedEncapsulatedMessage,
} from './encapsulated.ts';
import { BlendMessageError } from './errors.ts';
import { cipherPayload, headerKeystream, layerKey, xorHeaders } from './layer-cipher.ts';
import { decodePayload, type PayloadType } from './payload.ts';
import type { PublicHeader } from './public-header.ts';

export interface LayerProofVerifier {
  /** A PoQ bound to this ephemeral signing key (32-byte Ed25519 public key). */
  proofOfQuota(poq: ProofOfQuota, signingKey: Uint8Array): Promise<boolean>;
  /** A PoSel designating this node (its membership index) for this key nullifier. */
  proofOfSelection(poSel: ProofOfSelection, keyNullifier: Fr): boolean;
}

/** What a removed layer proves this node did (F: `BlendingToken`). */
export type BlendingToken = Omit<BlendActivityProof, 'epoch'>;

export type DecapsulationOutput =
  | {
      readonly kind: 'incomplete';
      /** The message for the next node, its public header already verified by this node. */
      readonly message: VerifiedEncapsulatedMessage;
      readonly blendingToken: BlendingToken;
    }
  | {
      readonly kind: 'complete';
      readonly payloadType: PayloadType;
      /** The payload body without its padding. */
      readonly body: Uint8Array;
      readonly blendingToken: BlendingToken;
    };

function signatureError(): BlendMessageError {
  return new BlendMessageError('BLEND_MESSAGE_SIGNATURE', 'the layer signature does not verify', {
    variant: 'SignatureVerificationFailed',
  });
}

function verifiesOver(header: PublicHeader, part: EncapsulatedPart): boolean {
  return ed25519Verify(header.signingKey, signingBody(part), header.signature);
}

/** Runs a proof check; a refusal, or a verifier that throws, is the given error. */
async function requireProof(
  check: () => boolean | Promise<boolean>,
  code: 'BLEND_MESSAGE_PROOF_OF_QUOTA' | 'BLEND_MESSAGE_PROOF_OF_SELECTION',
): Promise<void> {
  let ok = false;
  let cause: unknown;
  try {
    ok = await check();
  } catch (e) {
    cause = e;
  }
  if (ok === true) return;
  const [what, variant] =
    code === 'BLEND_MESSAGE_PROOF_OF_QUOTA'
      ? ['quota', 'ProofOfQuotaVerificationFailed']
      : ['selection', 'ProofOfSelectionVerificationFailed'];
  throw new BlendMessageError(code, `the proof of ${what} is refused`, { variant }, cause);
}

function checkProofOfQuota(verifier: LayerProofVerifier, header: PublicHeader): Promise<void> {
  return requireProof(
    () => verifier.proofOfQuota(header.proofOfQuota, header.signingKey),
    'BLEND_MESSAGE_PROOF_OF_QUOTA',
  );
}

/** The public header's signature over private header ‖ payload (F: `verify_header_signature`). */
export function verifyPublicHeaderSignature(message: EncapsulatedMessage): boolean {
  return verifiesOver(message.publicHeader, message);
}

/** Verifies the public header's signature, then its proof of quota (F: `verify_public_header`). */
export async function verifyPublicHeader(
  message: EncapsulatedMessage,
  verifier: LayerProofVerifier,
): Promise<VerifiedEncapsulatedMessage> {
  if (!verifyPublicHeaderSignature(message)) throw signatureError();
  await checkProofOfQuota(verifier, message.publicHeader);
  return assumePublicHeaderVerified(message);
}

/**
 * Removes the layer of a verified message addressed to this node, whose non-ephemeral X25519 secret
 * (`x25519SecretFromEd25519` of its Ed25519 signing key) is `nodeSecret`.
 */
export async function decapsulateVerified(
  message: VerifiedEncapsulatedMessage,
  nodeSecret: Uint8Array,
  verifier: LayerProofVerifier,
): Promise<DecapsulationOutput> {
  const { publicHeader } = message;
  const sharedKey = layerKey(nodeSecret, publicHeader.signingKey);
  const layers = layerCount(message);
  if (layers < 1 || !Number.isInteger(layers)) {
    throw new BlendMessageError('BLEND_MESSAGE_EMPTY', 'the message has no blending header', {
      variant: 'EmptyEncapsulationInputs',
    });
  }

  const keystream = headerKeystream(sharedKey);
  const privateHeader = message.privateHeader.slice();
  xorHeaders(privateHeader, keystream);
  const first = readBlendingHeader(privateHeader, 0);
  await requireProof(
    () => verifier.proofOfSelection(first.proofOfSelection, publicHeader.proofOfQuota.key_nullifier),
    'BLEND_MESSAGE_PROOF_OF_SELECTION',
  );

  privateHeader.copyWithin(0, BLENDING_HEADER_SIZE);
  const filler = encodeBlendingHeader(pseudoRandomBlendingHeader(sharedKey));
  xorHeaders(filler, keystream);
  privateHeader.set(filler, privateHeader.length - BLENDING_HEADER_SIZE);
  const payload = message.payload.slice();
  cipherPayload(payload, sharedKey);

  const next: EncapsulatedMessage = {
    publicHeader: {
      signingKey: first.signingKey,
      proofOfQuota: first.proofOfQuota,
      signature: first.signature,
    },
    privateHeader,
    payload,
  };
  if (!verifiesOver(next.publicHeader, next)) throw signatureError();
  const blendingToken: BlendingToken = {
    signing_key: publicHeader.signingKey,
    proof_of_quota: publicHeader.proofOfQuota,
    proof_of_selection: first.proofOfSelection,
  };
  if (!first.isLast) {
    await checkProofOfQuota(verifier, next.publicHeader);
    return { kind: 'incomplete', message: assumePublicHeaderVerified(next), blendingToken };
  }
  const revealed = decodePayload(payload);
  return { kind: 'complete', payloadType: revealed.type, body: revealed.body, blendingToken };
}

/** Verifies the public header, then removes the layer addressed to this node. */
export async function decapsulate(
  message: EncapsulatedMessage,
  nodeSecret: Uint8Array,
  verifier: LayerProofVerifier,
): Promise<DecapsulationOutput> {
  return decapsulateVerified(await verifyPublicHeader(message, verifier), nodeSecret, verifier);
}
