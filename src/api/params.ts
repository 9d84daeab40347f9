/** Parsing of path and query parameters, with the reference's plain-text rejections. */
import { hexToBytesOrUndefined } from '../codec/hex.ts';
import { Rejection } from './errors.ts';

export type Query = Record<string, string | undefined>;

/** A 32-byte id in a path or query (an optional 0x is accepted). */
export function id32(value: string | undefined, what: string): Uint8Array {
  const b = value === undefined ? undefined : hexToBytesOrUndefined(value, true);
  if (!b)
    throw new Rejection(
      400,
      `Invalid URL: Cannot parse \`${what}\` with value \`${value ?? ''}\`: invalid hex string`,
    );
  if (b.length !== 32)
    throw new Rejection(
      400,
      `Invalid URL: Cannot parse \`${what}\` with value \`${value}\`: expected 32 bytes, got ${b.length}`,
    );
  return b;
}

export function queryU64(q: Query, name: string, required: true): bigint;
export function queryU64(q: Query, name: string, required: false): bigint | undefined;
export function queryU64(q: Query, name: string, required: boolean): bigint | undefined {
  const v = q[name];
  if (v === undefined) {
    if (required) throw new Rejection(400, `Failed to deserialize query string: missing field \`${name}\``);
    return undefined;
  }
  if (!/^\d{1,20}$/.test(v) || BigInt(v) > 0xffffffffffffffffn) {
    throw new Rejection(400, `Failed to deserialize query string: ${name}: invalid digit found in string`);
  }
  return BigInt(v);
}

export function queryId(q: Query, name: string): Uint8Array | undefined {
  const v = q[name];
  return v === undefined ? undefined : id32(v, name);
}
