/**
 * Byte-level reader and writer of the reference's binary codec: fixed-width little-endian integers,
 * raw byte strings, and length prefixes whose width depends on the bound of the list.
 */
import { DecodeError, EncodeError } from './errors.ts';

export type PrefixWidth = 1 | 2 | 4 | 8;

/** Width of a list's length prefix for a list of at most `max` items (lb_codec's BoundedVec rule). */
export function prefixWidth(max: number): PrefixWidth {
  if (max <= 0xff) return 1;
  if (max <= 0xffff) return 2;
  if (max <= 0xffffffff) return 4;
  return 8;
}

export class Writer {
  private buf: Uint8Array;
  private view: DataView;
  private pos = 0;

  constructor(initialSize = 256) {
    this.buf = new Uint8Array(initialSize);
    this.view = new DataView(this.buf.buffer);
  }

  get length(): number {
    return this.pos;
  }

  private reserve(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
    this.view = new DataView(next.buffer);
  }

  u8(v: number): void {
    this.reserve(1);
    this.buf[this.pos++] = v;
  }

  u16(v: number): void {
    this.reserve(2);
    this.view.setUint16(this.pos, v, true);
    this.pos += 2;
  }

  u32(v: number): void {
    this.reserve(4);
    this.view.setUint32(this.pos, v, true);
    this.pos += 4;
  }

  u64(v: bigint): void {
    this.reserve(8);
    this.view.setBigUint64(this.pos, v, true);
    this.pos += 8;
  }

  bytes(b: Uint8Array): void {
    this.reserve(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }

  prefix(width: PrefixWidth, n: number): void {
    if (width === 1) this.u8(n);
    else if (width === 2) this.u16(n);
    else if (width === 4) this.u32(n);
    else this.u64(BigInt(n));
  }

  /** The bytes written so far (a copy, safe to keep). */
  finish(): Uint8Array {
    return this.buf.slice(0, this.pos);
  }
}

export class Reader {
  private readonly view: DataView;
  private pos = 0;

  constructor(private readonly buf: Uint8Array) {
    this.view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  }

  get offset(): number {
    return this.pos;
  }

  get remaining(): number {
    return this.buf.length - this.pos;
  }

  private need(n: number): void {
    if (this.pos + n > this.buf.length) {
      throw new DecodeError(
        `unexpected end of input (need ${n} bytes at offset ${this.pos}, have ${this.remaining})`,
      );
    }
  }

  u8(): number {
    this.need(1);
    return this.buf[this.pos++]!;
  }

  u16(): number {
    this.need(2);
    const v = this.view.getUint16(this.pos, true);
    this.pos += 2;
    return v;
  }

  u32(): number {
    this.need(4);
    const v = this.view.getUint32(this.pos, true);
    this.pos += 4;
    return v;
  }

  u64(): bigint {
    this.need(8);
    const v = this.view.getBigUint64(this.pos, true);
    this.pos += 8;
    return v;
  }

  /** A view into the input of `n` bytes (no copy). */
  bytes(n: number): Uint8Array {
    this.need(n);
    const out = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }

  /** A length prefix of the given width, checked against [min, max]. */
  prefix(width: PrefixWidth, min: number, max: number): number {
    let n: number;
    if (width === 8) {
      const big = this.u64();
      if (big > BigInt(max)) throw new DecodeError(`length ${big} is above the maximum ${max}`);
      n = Number(big);
    } else {
      n = width === 1 ? this.u8() : width === 2 ? this.u16() : this.u32();
    }
    if (n < min) throw new DecodeError(`length ${n} is below the minimum ${min}`);
    if (n > max) throw new DecodeError(`length ${n} is above the maximum ${max}`);
    return n;
  }

  /** Throws unless every byte was consumed. */
  end(): void {
    if (this.pos !== this.buf.length) {
      throw new DecodeError(`${this.remaining} trailing bytes after offset ${this.pos}`);
    }
  }
}

export function writeWith(fn: (w: Writer) => void, initialSize?: number): Uint8Array {
  const w = new Writer(initialSize);
  fn(w);
  return w.finish();
}

export function checkRange(v: number, max: number, what: string): void {
  if (!Number.isInteger(v) || v < 0 || v > max)
    throw new EncodeError(`${what} ${v} is out of range 0..${max}`);
}
