/**
 * Waku messages of the `delivery_module` (operator.md §4.2, §6.3): the WakuMessage protobuf of
 * `@waku/proto` (size-checked before decoding), the deterministic message hash of 14/WAKU2-MESSAGE as
 * nwaku computes it (`computeMessageHash`: sha256 over pubsubTopic, payload, contentTopic, meta and the
 * timestamp as 8 bytes big-endian, 0 when absent), the JSON form of a message the store response
 * carries, and the payload argument of `send`.
 */

import type { Json } from '@logos-ts/shared/json';
import { ArgumentError } from '@logos-ts/shared/module-args';
import { sha256 } from '@noble/hashes/sha2.js';
import { WakuMessage } from '@waku/proto';
import { DeliveryError } from './errors.ts';

export type { WakuMessage };

const utf8 = new TextEncoder();

/** 14/WAKU2-MESSAGE deterministic hash (nwaku `computeMessageHash`). */
export function messageHash(pubsubTopic: string, m: WakuMessage): Uint8Array {
  const ts = new Uint8Array(8);
  new DataView(ts.buffer).setBigUint64(0, BigInt.asUintN(64, m.timestamp ?? 0n), false);
  const h = sha256.create();
  h.update(utf8.encode(pubsubTopic));
  h.update(m.payload);
  h.update(utf8.encode(m.contentTopic));
  h.update(m.meta ?? new Uint8Array());
  h.update(ts);
  return h.digest();
}

export const to0xHex = (b: Uint8Array): string => `0x${Buffer.from(b).toString('hex')}`;

/** Decodes a relayed WakuMessage; throws on more than `maxBytes` or a malformed protobuf. */
export function decodeWakuMessage(data: Uint8Array, maxBytes: number): WakuMessage {
  if (data.length > maxBytes)
    throw new DeliveryError('DELIVERY_BAD_MESSAGE', `message of ${data.length} bytes exceeds ${maxBytes}`);
  const m = WakuMessage.decode(data);
  if (m.contentTopic === '') throw new DeliveryError('DELIVERY_BAD_MESSAGE', 'message without content topic');
  return m;
}

export function encodeWakuMessage(m: WakuMessage): Uint8Array {
  return WakuMessage.encode(m);
}

/** Now, in nanoseconds since the Unix epoch (Waku message timestamps, event timestamps). */
export function nowNs(): bigint {
  return BigInt(Date.now()) * 1_000_000n;
}

/**
 * The `payload` argument of `send`: the text of a string argument as UTF-8 bytes, or a JSON array of
 * byte values (`json:[1,2,3]`).
 */
// inferred: the reference takes raw bytes; from logosctl a string argument is its UTF-8 bytes
export function payloadBytes(v: Json | undefined): Uint8Array {
  if (typeof v === 'string') return utf8.encode(v);
  if (typeof v === 'number' || typeof v === 'boolean') return utf8.encode(String(v));
  if (Array.isArray(v) && v.every((b) => typeof b === 'number' && Number.isInteger(b) && b >= 0 && b <= 255))
    return Uint8Array.from(v as number[]);
  throw new ArgumentError('payload must be a string or an array of byte values');
}

const bytesJson = (b: Uint8Array | undefined): Json => Array.from(b ?? []);

/**
 * A WakuMessage as nwaku's `%` renders it in a store response: byte fields as arrays of byte values,
 * the timestamp in nanoseconds.
 */
export function messageJson(m: WakuMessage): Json {
  return {
    payload: bytesJson(m.payload),
    contentTopic: m.contentTopic,
    meta: bytesJson(m.meta),
    version: m.version ?? 0,
    timestamp: m.timestamp ?? 0n,
    ephemeral: m.ephemeral ?? false,
    proof: bytesJson(undefined),
  };
}
