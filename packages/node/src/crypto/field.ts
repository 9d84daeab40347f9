/**
 * The BN254 scalar field Fr, the field of Poseidon2 and of the Groth16 circuits.
 *
 * Values are plain bigints in [0, p). The canonical byte form is 32 bytes little-endian;
 * the JSON form is the lowercase hex of those bytes (so Fr(1) is "01" followed by 62 zeros).
 */
import { LogosError } from '@logos-ts/shared/errors';

export type Fr = bigint;

/** p = 21888242871839275222246405745257275088548364400416034343698204186575808495617 */
export const FR_MODULUS = 0x30644e72e131a029b85045b68181585d2833e84879b9709143e1f593f0000001n;

export const FR_BYTES = 32;

export class FieldError extends LogosError {
  constructor(message: string) {
    super('FIELD_ERROR', message);
  }
}

export function isFr(x: bigint): boolean {
  return x >= 0n && x < FR_MODULUS;
}

/** Returns x if it is a canonical field element, else throws. */
export function fr(x: bigint | number): Fr {
  const v = BigInt(x);
  if (!isFr(v)) throw new FieldError(`value is not a canonical field element (must be 0 <= x < p)`);
  return v;
}

/** Reduces any non-negative or negative integer into [0, p). */
export function frMod(x: bigint): Fr {
  const r = x % FR_MODULUS;
  return r < 0n ? r + FR_MODULUS : r;
}

export function frAdd(a: Fr, b: Fr): Fr {
  const s = a + b;
  return s >= FR_MODULUS ? s - FR_MODULUS : s;
}

export function frMul(a: Fr, b: Fr): Fr {
  return (a * b) % FR_MODULUS;
}

/** Little-endian unsigned integer of a byte string of any length. */
export function leBytesToBigint(bytes: Uint8Array): bigint {
  let v = 0n;
  for (let i = bytes.length - 1; i >= 0; i--) v = (v << 8n) | BigInt(bytes[i]!);
  return v;
}

/** 32 little-endian bytes of a field element (or any integer below 2^256). */
export function frToBytes(x: Fr): Uint8Array {
  if (x < 0n || x >> 256n !== 0n) throw new FieldError('value does not fit in 32 bytes');
  const out = new Uint8Array(FR_BYTES);
  let v = x;
  for (let i = 0; i < FR_BYTES; i++) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
}

/** Strict decoding: exactly 32 bytes, canonical (< p). The reference's `fr_from_bytes`. */
export function frFromBytes(bytes: Uint8Array): Fr {
  if (bytes.length !== FR_BYTES)
    throw new FieldError(`field element must be ${FR_BYTES} bytes, got ${bytes.length}`);
  const v = leBytesToBigint(bytes);
  if (v >= FR_MODULUS) throw new FieldError('field element is not canonical (>= p)');
  return v;
}

/** `Fr::from_le_bytes_mod_order`: any byte string read little-endian, reduced mod p. */
export function frFromBytesModOrder(bytes: Uint8Array): Fr {
  return leBytesToBigint(bytes) % FR_MODULUS;
}

const hashFrs = new WeakMap<Uint8Array, { readonly bytes: Uint8Array; readonly fr: Fr }>();

/**
 * {@link frFromBytesModOrder} of a hash (a transaction's, an op's), kept per byte array and checked
 * against a copy of its bytes: a pending transaction is executed again and again (the mempool's view on
 * each new tip, block building), each time asking for its hash and its ops' ids as field elements.
 */
export function hashFr(bytes: Uint8Array): Fr {
  const known = hashFrs.get(bytes);
  if (known !== undefined && known.bytes.length === bytes.length) {
    let same = true;
    for (let i = 0; i < bytes.length && same; i++) same = known.bytes[i] === bytes[i];
    if (same) return known.fr;
  }
  const fr = frFromBytesModOrder(bytes);
  hashFrs.set(bytes, { bytes: bytes.slice(), fr });
  return fr;
}

/** Fr as the little-endian integer of an ASCII tag, as the reference derives its domain constants. */
export function frFromAscii(tag: string): Fr {
  return fr(leBytesToBigint(new TextEncoder().encode(tag)));
}
