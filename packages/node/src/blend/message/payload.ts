/**
 * The payload of a Blend message, 18,195 bytes in the clear (F: blend/message/src/message/payload.rs):
 * `type u8 (0 Cover, 1 BlockProposal, 2 Transaction) ‖ actual_len u16 LE ‖ body padded to
 * MAX_PAYLOAD_BODY_SIZE`. The padding past the body is random bytes (never a fixed filler, so no part of
 * the payload is known plaintext). Decoding refuses an unknown type and an `actual_len` above the body
 * size.
 */
import { randomFillSync } from 'node:crypto';
import { BlendMessageError } from './errors.ts';

/** The largest block proposal: every payload body is padded to it. */
export const MAX_PAYLOAD_BODY_SIZE = 18_192;
export const PADDED_PAYLOAD_BODY_SIZE = 2 + MAX_PAYLOAD_BODY_SIZE;
export const PAYLOAD_SIZE = 1 + PADDED_PAYLOAD_BODY_SIZE;

export const PayloadType = { Cover: 0, BlockProposal: 1, Transaction: 2 } as const;
export type PayloadType = (typeof PayloadType)[keyof typeof PayloadType];

/** Block proposals and transactions are data; cover messages are not. */
export function isDataMessage(type: PayloadType): boolean {
  return type === PayloadType.BlockProposal || type === PayloadType.Transaction;
}

export interface Payload {
  readonly type: PayloadType;
  /** The body without its padding. */
  readonly body: Uint8Array;
}

/** Fills its argument with random bytes. */
export type RandomFill = (dst: Uint8Array) => void;

export const secureRandomFill: RandomFill = (dst) => {
  if (dst.length > 0) randomFillSync(dst);
};

function checkBody(body: Uint8Array): void {
  if (body.length > MAX_PAYLOAD_BODY_SIZE) {
    throw new BlendMessageError(
      'BLEND_MESSAGE_PAYLOAD_TOO_LARGE',
      `payload body of ${body.length} bytes exceeds ${MAX_PAYLOAD_BODY_SIZE}`,
      { variant: 'PayloadTooLarge', length: body.length },
    );
  }
}

/** Writes `actual_len ‖ body ‖ random padding` (18,194 bytes) at `offset`. */
function writePaddedBody(out: Uint8Array, offset: number, body: Uint8Array, random: RandomFill): void {
  checkBody(body);
  out[offset] = body.length & 0xff;
  out[offset + 1] = body.length >>> 8;
  out.set(body, offset + 2);
  random(out.subarray(offset + 2 + body.length, offset + PADDED_PAYLOAD_BODY_SIZE));
}

/** `PaddedPayloadBody`: `actual_len u16 LE ‖ body ‖ random padding`. */
export function encodePaddedPayloadBody(body: Uint8Array, random: RandomFill = secureRandomFill): Uint8Array {
  const out = new Uint8Array(PADDED_PAYLOAD_BODY_SIZE);
  writePaddedBody(out, 0, body, random);
  return out;
}

export function encodePayload(payload: Payload, random: RandomFill = secureRandomFill): Uint8Array {
  if (!isPayloadType(payload.type)) throw new RangeError(`unknown payload type ${payload.type}`);
  const out = new Uint8Array(PAYLOAD_SIZE);
  out[0] = payload.type;
  writePaddedBody(out, 1, payload.body, random);
  return out;
}

function isPayloadType(t: number): t is PayloadType {
  return t === PayloadType.Cover || t === PayloadType.BlockProposal || t === PayloadType.Transaction;
}

function refuse(reason: string, meta: Record<string, unknown>): never {
  throw new BlendMessageError('BLEND_MESSAGE_PAYLOAD', `payload: ${reason}`, {
    variant: 'PayloadDeserializationFailed',
    ...meta,
  });
}

/** The body of a padded payload body (`actual_len ‖ padded`), checked. */
export function decodePaddedPayloadBody(bytes: Uint8Array): Uint8Array {
  if (bytes.length !== PADDED_PAYLOAD_BODY_SIZE) refuse('wrong size', { length: bytes.length });
  const actualLen = bytes[0]! | (bytes[1]! << 8);
  if (actualLen > MAX_PAYLOAD_BODY_SIZE)
    refuse(`actual_len ${actualLen} exceeds ${MAX_PAYLOAD_BODY_SIZE}`, { actualLen });
  return bytes.slice(2, 2 + actualLen);
}

/** Decodes a decrypted payload (exactly `PAYLOAD_SIZE` bytes). */
export function decodePayload(bytes: Uint8Array): Payload {
  if (bytes.length !== PAYLOAD_SIZE) refuse('wrong size', { length: bytes.length });
  const type = bytes[0]!;
  if (!isPayloadType(type)) refuse(`unknown payload type ${type}`, { type });
  return { type, body: decodePaddedPayloadBody(bytes.subarray(1)) };
}
