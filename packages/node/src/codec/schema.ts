/**
 * Typed codecs: each chain type is described once and gets its binary encoding (the reference's
 * lb_codec: fields in declaration order, no tags) and its JSON form (serde_json as the API writes it).
 *
 * Decoding is strict in both directions: wrong lengths, bounds, non-canonical field elements,
 * unknown variants and trailing bytes raise a DecodeError naming the field.
 * JSON decoding ignores unknown object members, as serde does by default.
 */

import { isJsonObject, type Json, JsonFloat } from '@logos-ts/shared/json';
import { FR_MODULUS, type Fr, frToBytes, leBytesToBigint } from '../crypto/field.ts';
import { type PrefixWidth, prefixWidth, Reader, Writer } from './binary.ts';
import { DecodeError, EncodeError, within } from './errors.ts';
import { bytesToHex, hexToBytesOrUndefined } from './hex.ts';

export interface Codec<T> {
  /** A short description of the JSON form, used in error messages. */
  readonly kind: string;
  write(w: Writer, v: T): void;
  read(r: Reader): T;
  toJson(v: T): Json;
  fromJson(j: Json | undefined): T;
}

export type Infer<C> = C extends Codec<infer T> ? T : never;

// ---------- whole-value helpers ----------

export function encode<T>(codec: Codec<T>, v: T, sizeHint = 256): Uint8Array {
  const w = new Writer(sizeHint);
  codec.write(w, v);
  return w.finish();
}

/** Decodes exactly one value; trailing bytes are an error. */
export function decode<T>(codec: Codec<T>, bytes: Uint8Array): T {
  const r = new Reader(bytes);
  const v = codec.read(r);
  r.end();
  return v;
}

function typeName(j: Json | undefined): string {
  if (j === undefined) return 'nothing';
  if (j === null) return 'null';
  if (j instanceof JsonFloat) return `a floating point number ${j.value}`;
  if (Array.isArray(j)) return 'an array';
  if (typeof j === 'object') return 'an object';
  if (typeof j === 'bigint') return 'a number';
  return `a ${typeof j}`;
}

export function expected(kind: string, got: Json | undefined): DecodeError {
  return new DecodeError(`expected ${kind}, got ${typeName(got)}`);
}

// ---------- integers ----------

/**
 * A JSON number that serde_json reads as an integer. `-0` is not one: serde_json parses it as the
 * float -0.0 (floats with a fraction or exponent are already `JsonFloat`).
 */
function isJsonInteger(j: Json | undefined): j is number {
  return typeof j === 'number' && Number.isInteger(j) && !Object.is(j, -0);
}

function jsonInteger(j: Json | undefined, max: bigint, kind: string): bigint {
  let v: bigint;
  if (typeof j === 'bigint') v = j;
  else if (isJsonInteger(j)) v = BigInt(j);
  else throw expected(kind, j);
  if (v < 0n || v > max) throw new DecodeError(`${v} is out of range for ${kind}`);
  return v;
}

function smallUint(bits: 8 | 16 | 32): Codec<number> {
  const max = 2 ** bits - 1;
  const kind = `u${bits}`;
  const bigMax = BigInt(max);
  return {
    kind,
    write(w, v) {
      if (!Number.isInteger(v) || v < 0 || v > max) throw new EncodeError(`${v} is out of range for ${kind}`);
      if (bits === 8) w.u8(v);
      else if (bits === 16) w.u16(v);
      else w.u32(v);
    },
    read: bits === 8 ? (r) => r.u8() : bits === 16 ? (r) => r.u16() : (r) => r.u32(),
    toJson: (v) => v,
    fromJson: (j) => Number(jsonInteger(j, bigMax, kind)),
  };
}

export const u8 = smallUint(8);
export const u16 = smallUint(16);
export const u32 = smallUint(32);

export const U64_MAX = 0xffffffffffffffffn;

/** u64 as bigint; JSON numbers of any size (parse chain JSON with parseJson to keep them exact). */
export const u64: Codec<bigint> = {
  kind: 'u64',
  write(w, v) {
    if (typeof v !== 'bigint' || v < 0n || v > U64_MAX) throw new EncodeError(`${v} is out of range for u64`);
    w.u64(v);
  },
  read: (r) => r.u64(),
  toJson: (v) => (v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v),
  fromJson: (j) => jsonInteger(j, U64_MAX, 'u64'),
};

// ---------- bytes ----------

function jsonHex(
  j: Json | undefined,
  length: number | undefined,
  allowPrefix: boolean,
  kind: string,
): Uint8Array {
  if (typeof j !== 'string') throw expected(kind, j);
  const b = hexToBytesOrUndefined(j, allowPrefix);
  if (!b) throw new DecodeError(`invalid hex string for ${kind}`);
  if (length !== undefined && b.length !== length) {
    throw new DecodeError(
      `${kind} must be ${length} bytes (${2 * length} hex characters), got ${b.length} bytes`,
    );
  }
  return b;
}

function jsonByteArray(j: Json | undefined, length: number | undefined, kind: string): Uint8Array {
  if (!Array.isArray(j)) throw expected(kind, j);
  if (length !== undefined && j.length !== length) {
    throw new DecodeError(`${kind} must have ${length} items, got ${j.length}`);
  }
  const out = new Uint8Array(j.length);
  for (let i = 0; i < j.length; i++) {
    const x = j[i];
    if (!isJsonInteger(x) || x < 0 || x > 255) {
      throw new DecodeError(`expected a byte (0..255), got ${typeName(x)}`).under(i);
    }
    out[i] = x;
  }
  return out;
}

export type BytesJson = 'hex' | 'hex-or-0x' | 'array' | 'hex-or-array';

/** Fixed-size byte string. */
export function fixedBytes(
  length: number,
  json: BytesJson,
  kind = `${length} bytes`,
  check?: (b: Uint8Array) => string | undefined,
): Codec<Uint8Array> {
  const validate = (b: Uint8Array): Uint8Array => {
    const problem = check?.(b);
    if (problem) throw new DecodeError(problem);
    return b;
  };
  return {
    kind,
    write(w, v) {
      if (v.length !== length) throw new EncodeError(`${kind} must be ${length} bytes, got ${v.length}`);
      w.bytes(v);
    },
    read: (r) => validate(r.bytes(length).slice()),
    toJson: json === 'array' ? (v) => Array.from(v) : (v) => bytesToHex(v),
    fromJson(j) {
      if (json === 'array' || (json === 'hex-or-array' && Array.isArray(j))) {
        return validate(jsonByteArray(j, length, kind));
      }
      return validate(jsonHex(j, length, json === 'hex-or-0x', kind));
    },
  };
}

/** Variable-length byte string with a length prefix sized by `max`. */
export function boundedBytes(min: number, max: number, json: BytesJson, kind = 'bytes'): Codec<Uint8Array> {
  const width = prefixWidth(max);
  const checkLen = (n: number) => {
    if (n < min || n > max) throw new DecodeError(`length ${n} is outside ${min}..${max}`);
  };
  return {
    kind,
    write(w, v) {
      if (v.length < min || v.length > max)
        throw new EncodeError(`${kind} length ${v.length} is outside ${min}..${max}`);
      w.prefix(width, v.length);
      w.bytes(v);
    },
    read: (r) => r.bytes(r.prefix(width, min, max)).slice(),
    toJson: json === 'array' ? (v) => Array.from(v) : (v) => bytesToHex(v),
    fromJson(j) {
      const b =
        json === 'array' || (json === 'hex-or-array' && Array.isArray(j))
          ? jsonByteArray(j, undefined, kind)
          : jsonHex(j, undefined, json === 'hex-or-0x', kind);
      checkLen(b.length);
      return b;
    },
  };
}

// ---------- field elements ----------

/**
 * BN254 Fr: 32 little-endian canonical bytes; JSON hex of those bytes. `serde_fr` decodes with the
 * `hex` crate, which takes no `0x` prefix. F: zk/groth16/src/serde.rs
 */
export const fr: Codec<Fr> = {
  kind: 'a field element (64 hex characters, little-endian)',
  write(w, v) {
    if (typeof v !== 'bigint' || v < 0n || v >= FR_MODULUS)
      throw new EncodeError('not a canonical field element');
    w.bytes(frToBytes(v));
  },
  read(r) {
    const v = leBytesToBigint(r.bytes(32));
    if (v >= FR_MODULUS) throw new DecodeError('field element is not canonical (>= the BN254 modulus)');
    return v;
  },
  toJson: (v) => bytesToHex(frToBytes(v)),
  fromJson(j) {
    const v = leBytesToBigint(jsonHex(j, 32, false, 'a field element (64 hex characters, little-endian)'));
    if (v >= FR_MODULUS) throw new DecodeError('field element is not canonical (>= the BN254 modulus)');
    return v;
  },
};

// ---------- lists ----------

/** BoundedVec<T, min, max>: a length prefix sized by `max`, then the items. JSON array. */
export function vec<T>(item: Codec<T>, min: number, max: number): Codec<T[]> {
  const width: PrefixWidth = prefixWidth(max);
  return {
    kind: `a list of ${item.kind}`,
    write(w, v) {
      if (v.length < min || v.length > max)
        throw new EncodeError(`list length ${v.length} is outside ${min}..${max}`);
      w.prefix(width, v.length);
      for (const x of v) item.write(w, x);
    },
    read(r) {
      const n = r.prefix(width, min, max);
      const out = new Array<T>(n);
      for (let i = 0; i < n; i++) {
        try {
          out[i] = item.read(r);
        } catch (e) {
          if (e instanceof DecodeError) throw e.under(i);
          throw e;
        }
      }
      return out;
    },
    toJson: (v) => v.map((x) => item.toJson(x)),
    fromJson(j) {
      if (!Array.isArray(j)) throw expected(`a list of ${item.kind}`, j);
      if (j.length < min || j.length > max)
        throw new DecodeError(`list length ${j.length} is outside ${min}..${max}`);
      return j.map((x, i) => within(i, () => item.fromJson(x)));
    },
  };
}

// ---------- structs ----------

type Fields<T> = { readonly [K in keyof T]: Codec<T[K]> };

/**
 * A struct: fields encoded in the order of the `fields` object, JSON members in the same order.
 * Unknown JSON members are ignored; missing ones are an error (`missing field`).
 */
export function struct<T extends object>(kind: string, fields: Fields<T>): Codec<T> {
  const entries = Object.entries(fields) as [keyof T & string, Codec<unknown>][];
  return {
    kind,
    write(w, v) {
      for (const [name, c] of entries) c.write(w, v[name]);
    },
    read(r) {
      const out = {} as T;
      for (const [name, c] of entries) {
        try {
          out[name] = c.read(r) as T[typeof name];
        } catch (e) {
          if (e instanceof DecodeError) throw e.under(name);
          throw e;
        }
      }
      return out;
    },
    toJson(v) {
      const out: { [k: string]: Json } = {};
      for (const [name, c] of entries) out[name] = c.toJson(v[name]);
      return out;
    },
    fromJson(j) {
      if (!isJsonObject(j)) throw expected(kind, j);
      const out = {} as T;
      for (const [name, c] of entries) {
        if (!Object.hasOwn(j, name)) throw new DecodeError(`missing field \`${name}\``);
        out[name] = within(name, () => c.fromJson(j[name])) as T[typeof name];
      }
      return out;
    },
  };
}

/** A value whose binary form is a constant tag byte and whose JSON form is a constant string. */
export function constant<V extends string>(byte: number, json: V, kind: string): Codec<V> {
  return {
    kind,
    write: (w) => w.u8(byte),
    read(r) {
      const b = r.u8();
      if (b !== byte) throw new DecodeError(`unknown ${kind} ${b}`);
      return json;
    },
    toJson: () => json,
    fromJson(j) {
      if (j !== json) throw new DecodeError(`unknown ${kind} ${JSON.stringify(j)}, expected "${json}"`);
      return json;
    },
  };
}

/** Maps a codec's value through a pair of conversions (e.g. binary bytes <-> parsed multiaddr). */
export function mapped<A, B>(
  inner: Codec<A>,
  to: (a: A) => B,
  from: (b: B) => A,
  kind = inner.kind,
): Codec<B> {
  return {
    kind,
    write: (w, v) => inner.write(w, from(v)),
    read: (r) => to(inner.read(r)),
    toJson: (v) => inner.toJson(from(v)),
    fromJson: (j) => to(inner.fromJson(j)),
  };
}
