/**
 * The sender side of Blend: a payload wrapped in one layer per selected node
 * (F: blend/message/src/encap/validated.rs `EncapsulatedMessageWithVerifiedPublicHeader::try_new`,
 * encapsulated.rs `EncapsulatedPart`/`EncapsulatedPrivateHeader`, input.rs `EncapsulationInput`).
 *
 * Inputs are in F's order: `inputs[0]` is the innermost layer (the last node, the one that reveals the
 * payload, `is_last`), `inputs[n-1]` the outermost (the first node, whose layer the public header
 * opens). Each input brings a fresh ephemeral Ed25519 key, a proof of quota bound to that key, the
 * proof of selection of the node it is addressed to and that node's non-ephemeral Ed25519 public key;
 * the layer's shared key is X25519 between the two, both converted from Ed25519.
 *
 * 1. The private header starts as `β_max − n` random filler headers (from fresh entropy, never
 *    reconstructable), then for j = n−1 … 0 the pseudo-random header of key_j encrypted with the keys
 *    of inputs 0 … j: exactly what the nodes rebuild when they shift a layer out, so that every
 *    signature still verifies after decryption.
 * 2. For i = 0 … n−1: the current part is signed with the previous layer's key (for i = 0, a random
 *    key with a random proof of quota that nobody verifies); the headers shift right by one, the first
 *    becomes `{previous key, previous proof of quota, that signature, input i's proof of selection,
 *    is_last = (i = 0)}`; every header and the payload are encrypted with input i's shared key.
 * 3. The public header carries input n−1's key and proof of quota and its signature over the part.
 *
 * Randomness is drawn in F's order (padding, fillers, the innermost key, the innermost proof of quota)
 * from `options.random`, node:crypto by default.
 */
import { pseudoRandomBytes } from '../../crypto/blend/blake-rng.ts';
import { DOMAIN_RANDOM_FILLER_HEADER } from '../../crypto/blend/cipher.ts';
import { layerPublicKey, layerSign } from '../../crypto/blend/layer-keys.ts';
import { x25519SecretFromEd25519 } from '../../crypto/blend/x25519.ts';
import { ED25519_SECRET_KEY_BYTES } from '../../crypto/ed25519.ts';
import type { ProofOfQuota, ProofOfSelection } from '../../mantle/ops.ts';
import {
  BLENDING_HEADER_SIZE,
  encodeBlendingHeader,
  pseudoRandomBlendingHeader,
  writeBlendingHeader,
} from './blending-header.ts';
import {
  assumePublicHeaderVerified,
  checkLayerCount,
  type EncapsulatedPart,
  signingBody,
  type VerifiedEncapsulatedMessage,
} from './encapsulated.ts';
import { BlendMessageError } from './errors.ts';
import { cipherPayload, headerKeystream, layerKey, xorHeaders } from './layer-cipher.ts';
import { encodePayload, type Payload, type RandomFill, secureRandomFill } from './payload.ts';
import { PROOF_OF_QUOTA_SIZE, proofOfQuotaUnchecked } from './proofs.ts';

export interface EncapsulationInput {
  /** The layer's fresh ephemeral Ed25519 secret key (32-byte seed); its public key signs the layer. */
  readonly ephemeralSigningKey: Uint8Array;
  /** The non-ephemeral Ed25519 public key of the node the layer is addressed to. */
  readonly recipientSigningKey: Uint8Array;
  /** A proof of quota bound to the ephemeral key's public key. */
  readonly proofOfQuota: ProofOfQuota;
  /** The proof of selection designating the recipient for that proof of quota's key nullifier. */
  readonly proofOfSelection: ProofOfSelection;
}

export interface EncapsulateOptions {
  /** The source of every random byte (padding, fillers, the innermost key and proof). */
  readonly random?: RandomFill;
}

/** The shared key of an input (F: `EncapsulationInput::try_new`). */
export function layerSharedKey(input: EncapsulationInput): Uint8Array {
  return layerKey(x25519SecretFromEd25519(input.ephemeralSigningKey), input.recipientSigningKey);
}

function randomBytes(random: RandomFill, n: number): Uint8Array {
  const out = new Uint8Array(n);
  random(out);
  return out;
}

/**
 * The private header before any layer is added (F: `EncapsulatedPrivateHeader::try_initialize`):
 * `numLayers − n` random fillers, then the reconstructable headers of the n shared keys (input order).
 */
export function initializePrivateHeader(
  sharedKeys: readonly Uint8Array[],
  numLayers: number,
  random: RandomFill = secureRandomFill,
): Uint8Array {
  if (sharedKeys.length === 0) {
    throw new BlendMessageError('BLEND_MESSAGE_EMPTY', 'no encapsulation input', {
      variant: 'EmptyEncapsulationInputs',
    });
  }
  if (sharedKeys.length > numLayers) {
    throw new BlendMessageError(
      'BLEND_MESSAGE_TOO_MANY_LAYERS',
      `${sharedKeys.length} encapsulation inputs for ${numLayers} layers`,
      { variant: 'EncapsulationCountExceeded', inputs: sharedKeys.length, numLayers },
    );
  }
  checkLayerCount(numLayers);
  const headers = new Uint8Array(BLENDING_HEADER_SIZE * numLayers);
  const unused = numLayers - sharedKeys.length;
  for (let i = 0; i < unused; i++) {
    const seed = randomBytes(random, 32);
    headers.set(
      pseudoRandomBytes(DOMAIN_RANDOM_FILLER_HEADER, seed, BLENDING_HEADER_SIZE),
      i * BLENDING_HEADER_SIZE,
    );
  }
  const keystreams = sharedKeys.map(headerKeystream);
  for (let j = sharedKeys.length - 1, slot = unused; j >= 0; j--, slot++) {
    const header = encodeBlendingHeader(pseudoRandomBlendingHeader(sharedKeys[j]!));
    // Encrypted with the keys of the inputs up to the first one whose key is key_j (F's `take_while_inclusive`).
    for (let m = 0; m < sharedKeys.length; m++) {
      xorHeaders(header, keystreams[m]!);
      if (equalBytes(sharedKeys[m]!, sharedKeys[j]!)) break;
    }
    headers.set(header, slot * BLENDING_HEADER_SIZE);
  }
  return headers;
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/**
 * Wraps `payload` in one layer per input for a deployment of `numLayers` (β_max) blend layers.
 * Throws a `BlendMessageError` for a body above `MAX_PAYLOAD_BODY_SIZE`, no input, more inputs than
 * layers, or an input whose key exchange is non-contributory.
 */
export function encapsulate(
  inputs: readonly EncapsulationInput[],
  payload: Payload,
  numLayers: number,
  options: EncapsulateOptions = {},
): VerifiedEncapsulatedMessage {
  const random = options.random ?? secureRandomFill;
  for (const input of inputs) {
    if (input.ephemeralSigningKey.length !== ED25519_SECRET_KEY_BYTES) {
      throw new RangeError(`an ephemeral signing key is ${ED25519_SECRET_KEY_BYTES} bytes`);
    }
  }
  const sharedKeys = inputs.map(layerSharedKey);
  const payloadBytes = encodePayload(payload, random);
  const privateHeader = initializePrivateHeader(sharedKeys, numLayers, random);
  const part: EncapsulatedPart = { privateHeader, payload: payloadBytes };

  let signingKey = randomBytes(random, ED25519_SECRET_KEY_BYTES);
  let proofOfQuota = proofOfQuotaUnchecked(randomBytes(random, PROOF_OF_QUOTA_SIZE));
  inputs.forEach((input, i) => {
    const signature = layerSign(signingKey, signingBody(part));
    privateHeader.copyWithin(BLENDING_HEADER_SIZE, 0, privateHeader.length - BLENDING_HEADER_SIZE);
    writeBlendingHeader(privateHeader, 0, {
      signingKey: layerPublicKey(signingKey),
      proofOfQuota,
      signature,
      proofOfSelection: input.proofOfSelection,
      isLast: i === 0,
    });
    xorHeaders(privateHeader, headerKeystream(sharedKeys[i]!));
    cipherPayload(payloadBytes, sharedKeys[i]!);
    signingKey = input.ephemeralSigningKey;
    proofOfQuota = input.proofOfQuota;
  });

  return assumePublicHeaderVerified({
    publicHeader: {
      signingKey: layerPublicKey(signingKey),
      proofOfQuota,
      signature: layerSign(signingKey, signingBody(part)),
    },
    ...part,
  });
}
