/** Lowercase hex without prefix, the form every id and key takes in the node's JSON. */
const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

export function bytesToHex(bytes: Uint8Array): string {
  let s = '';
  for (let i = 0; i < bytes.length; i++) s += HEX[bytes[i]!];
  return s;
}

function nibble(c: number): number {
  if (c >= 48 && c <= 57) return c - 48; // 0-9
  if (c >= 97 && c <= 102) return c - 87; // a-f
  if (c >= 65 && c <= 70) return c - 55; // A-F
  return -1;
}

/**
 * Strict hex decoding. Returns undefined on odd length or a non-hex character, so callers can
 * raise an error naming their field. `allowPrefix` accepts a leading lowercase `0x`, as the
 * reference's `const_hex` decoders do (`0X` is not a prefix there).
 */
export function hexToBytesOrUndefined(hex: string, allowPrefix = false): Uint8Array | undefined {
  let start = 0;
  if (allowPrefix && hex.length >= 2 && hex[0] === '0' && hex[1] === 'x') start = 2;
  const len = hex.length - start;
  if (len % 2 !== 0) return undefined;
  const out = new Uint8Array(len / 2);
  for (let i = 0; i < out.length; i++) {
    const hi = nibble(hex.charCodeAt(start + 2 * i));
    const lo = nibble(hex.charCodeAt(start + 2 * i + 1));
    if (hi < 0 || lo < 0) return undefined;
    out[i] = (hi << 4) | lo;
  }
  return out;
}

export function hexToBytes(hex: string, allowPrefix = false): Uint8Array {
  const out = hexToBytesOrUndefined(hex, allowPrefix);
  if (!out) throw new TypeError('invalid hex string');
  return out;
}

export function concatBytes(...parts: readonly Uint8Array[]): Uint8Array {
  let len = 0;
  for (const p of parts) len += p.length;
  const out = new Uint8Array(len);
  let off = 0;
  for (const p of parts) {
    out.set(p, off);
    off += p.length;
  }
  return out;
}

export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

export const utf8 = {
  encode: (s: string): Uint8Array => new TextEncoder().encode(s),
  decode: (b: Uint8Array): string => new TextDecoder('utf-8', { fatal: true }).decode(b),
};
