/**
 * An encapsulated Blend message on the wire (F: blend/message/src/encap/encapsulated.rs,
 * `EncapsulatedMessage` and `EncapsulatedPart`): `public header 257 ‖ private header ‖ payload 18,195`,
 * the private header being exactly `numLayers` (β_max, `num_blend_layers`) encrypted blending headers of
 * 289 bytes. Every message of a deployment has the same size, `257 + 289·β_max + 18,195`, whatever the
 * number of layers actually used. The message id is the key nullifier of the public header's proof of
 * quota.
 *
 * Decoding checks the exact size before it allocates anything, then decodes the public header (version,
 * signing key on the curve, canonical key nullifier); the private header and payload are ciphertext.
 */
import type { Fr } from '../../crypto/field.ts';
import { BLENDING_HEADER_SIZE } from './blending-header.ts';
import { BlendMessageError } from './errors.ts';
import { PAYLOAD_SIZE } from './payload.ts';
import {
  PUBLIC_HEADER_SIZE,
  type PublicHeader,
  readPublicHeader,
  writePublicHeader,
} from './public-header.ts';

export interface EncapsulatedPart {
  /** `numLayers` encrypted blending headers, 289 bytes each. */
  readonly privateHeader: Uint8Array;
  /** The encrypted payload, `PAYLOAD_SIZE` bytes. */
  readonly payload: Uint8Array;
}

export interface EncapsulatedMessage extends EncapsulatedPart {
  readonly publicHeader: PublicHeader;
}

// inferred: F takes any non-zero u64 layer count; this bound only keeps a misconfigured count from
// sizing a huge buffer (deployments use a handful of layers).
/** The largest layer count a message size is computed for. */
const MAX_LAYERS = 1024;

/** Throws a RangeError unless `numLayers` is a usable layer count. */
export function checkLayerCount(numLayers: number): void {
  if (!Number.isInteger(numLayers) || numLayers < 1 || numLayers > MAX_LAYERS) {
    throw new RangeError(
      `the number of Blend layers must be an integer in 1..${MAX_LAYERS}, got ${numLayers}`,
    );
  }
}

export function encapsulatedPartSize(numLayers: number): number {
  checkLayerCount(numLayers);
  return BLENDING_HEADER_SIZE * numLayers + PAYLOAD_SIZE;
}

/** The size of every message of a deployment with `numLayers` blend layers. */
export function encapsulatedMessageSize(numLayers: number): number {
  return PUBLIC_HEADER_SIZE + encapsulatedPartSize(numLayers);
}

/** The number of blending headers a message carries. */
export function layerCount(part: EncapsulatedPart): number {
  return part.privateHeader.length / BLENDING_HEADER_SIZE;
}

/** The message id: the public header's key nullifier (F: `EncapsulatedMessage::id`). */
export function messageId(message: EncapsulatedMessage): Fr {
  return message.publicHeader.proofOfQuota.key_nullifier;
}

/** The bytes a layer's signature covers: private header ‖ payload. */
export function signingBody(part: EncapsulatedPart): Uint8Array {
  const out = new Uint8Array(part.privateHeader.length + part.payload.length);
  out.set(part.privateHeader, 0);
  out.set(part.payload, part.privateHeader.length);
  return out;
}

export function encodeEncapsulatedPart(part: EncapsulatedPart): Uint8Array {
  return signingBody(part);
}

export function encodeEncapsulatedMessage(message: EncapsulatedMessage): Uint8Array {
  const out = new Uint8Array(PUBLIC_HEADER_SIZE + message.privateHeader.length + message.payload.length);
  writePublicHeader(out, 0, message.publicHeader);
  out.set(message.privateHeader, PUBLIC_HEADER_SIZE);
  out.set(message.payload, PUBLIC_HEADER_SIZE + message.privateHeader.length);
  return out;
}

function sizeError(what: string, want: number, got: number, numLayers: number): BlendMessageError {
  return new BlendMessageError('BLEND_MESSAGE_SIZE', `${what} of ${got} bytes, expected ${want}`, {
    variant: 'MessageDeserializationFailed',
    length: got,
    expected: want,
    numLayers,
  });
}

function readPart(bytes: Uint8Array, offset: number, numLayers: number): EncapsulatedPart {
  const headerEnd = offset + BLENDING_HEADER_SIZE * numLayers;
  return {
    privateHeader: bytes.slice(offset, headerEnd),
    payload: bytes.slice(headerEnd, headerEnd + PAYLOAD_SIZE),
  };
}

export function decodeEncapsulatedPart(bytes: Uint8Array, numLayers: number): EncapsulatedPart {
  const want = encapsulatedPartSize(numLayers);
  if (bytes.length !== want) throw sizeError('an encapsulated part', want, bytes.length, numLayers);
  return readPart(bytes, 0, numLayers);
}

/** Decodes a message of a deployment with `numLayers` blend layers (the bytes are copied). */
export function decodeEncapsulatedMessage(bytes: Uint8Array, numLayers: number): EncapsulatedMessage {
  const want = encapsulatedMessageSize(numLayers);
  if (bytes.length !== want) throw sizeError('a Blend message', want, bytes.length, numLayers);
  const publicHeader = readPublicHeader(bytes, 0);
  return { publicHeader, ...readPart(bytes, PUBLIC_HEADER_SIZE, numLayers) };
}

declare const publicHeaderVerified: unique symbol;

/**
 * A message whose public header signature and proof of quota were verified, or that this node built
 * (F: `EncapsulatedMessageWithVerifiedPublicHeader`). Only `verifyPublicHeader`, `encapsulate` and
 * `assumePublicHeaderVerified` make one.
 */
export type VerifiedEncapsulatedMessage = EncapsulatedMessage & { readonly [publicHeaderVerified]: true };

/** Marks a message as verified without checking it (F: `from_message_unchecked`); for messages this node built. */
export function assumePublicHeaderVerified(message: EncapsulatedMessage): VerifiedEncapsulatedMessage {
  return message as VerifiedEncapsulatedMessage;
}
