/** Parsing of path and query parameter values, with the reference's plain-text rejections. */
import { hexToBytesOrUndefined } from '../codec/hex.ts';
import { Rejection } from './errors.ts';

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

/** An unsigned 64-bit integer in a query. */
export function parseU64(v: string, name: string): bigint {
  if (!/^\d{1,20}$/.test(v) || BigInt(v) > 0xffffffffffffffffn) {
    throw new Rejection(400, `Failed to deserialize query string: ${name}: invalid digit found in string`);
  }
  return BigInt(v);
}

/** A required query parameter that is missing. */
export function missingQueryField(name: string): Rejection {
  return new Rejection(400, `Failed to deserialize query string: missing field \`${name}\``);
}
