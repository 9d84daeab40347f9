/**
 * Length-prefixed frames on a byte stream (a libp2p stream), the one implementation every stream
 * protocol uses: the node's request/response and Blend streams, the storage module's block exchange, the
 * delivery module's Waku request/response. Each protocol keeps its own byte format, given by a `FrameFormat`:
 * - `u32le`: a u32 little-endian length, then the bytes (F `consensus/cryptarchia-sync/src/libp2p/packing.rs`,
 *   the request/response streams of network/);
 * - `u16le`: a u16 little-endian length, then the bytes (F `blend/network/src/lib.rs` `send_msg`/`recv_msg`);
 * - `varint`: an unsigned LEB128 length, then the bytes (nim-libp2p `writeLp`/`readLp`).
 * A received length is checked against the limits as soon as its prefix is read, before the body is
 * gathered, so a peer cannot make the reader hold more than the limit. The errors are the protocol's
 * own, made by its format.
 */
import { LogosError } from './errors.ts';

/** A length prefix that no format allows (a varint longer than 5 bytes), unless the format says otherwise. */
export class FrameMalformed extends LogosError {
  constructor(what: string) {
    super('FRAME_MALFORMED', what);
  }
}

/** A chunk as libp2p streams yield it: bytes, or a list of byte arrays (`Uint8ArrayList`). */
export type Chunk = Uint8Array | { subarray(): Uint8Array };

/** How a frame's length is written before it. */
export type LengthPrefix = 'u16le' | 'u32le' | 'varint';

/** The largest length each prefix can carry (a varint is read up to 5 bytes: a u32). */
const PREFIX_MAX: Readonly<Record<LengthPrefix, number>> = {
  u16le: 0xffff,
  u32le: 0xffff_ffff,
  varint: 0xffff_ffff,
};

/** The longest varint prefix read (5 × 7 bits hold any u32). */
const MAX_VARINT_BYTES = 5;

/** A protocol's frames: its length prefix, its largest frame and its errors. */
export interface FrameFormat {
  readonly prefix: LengthPrefix;
  /** No frame is larger, sent or received, whatever a reader's own limit (at most what the prefix carries). */
  readonly maxBytes: number;
  /** A frame above the limit: one to be sent, or one a received prefix announces. */
  readonly tooLarge: (length: number, limit: number) => Error;
  /** The stream ended inside a frame. */
  readonly truncated: (what: 'length prefix' | 'body') => Error;
  /** A prefix no length can have (a varint over 5 bytes); `FrameMalformed` if not given. */
  readonly malformed?: (what: string) => Error;
}

/** What one reader accepts beyond its format. */
export interface FrameReaderOptions {
  /** The largest frame this reader takes (the format's `maxBytes` if larger). */
  readonly maxBytes?: number;
  /** Only frames of exactly `bytes`: a prefix announcing another length is `error`'s. */
  readonly exact?: { readonly bytes: number; readonly error: (length: number, expected: number) => Error };
  /** Each frame must arrive within `ms` of the call for it, else `error`'s. */
  readonly timeout?: { readonly ms: number; readonly error: (ms: number) => Error };
}

function prefixOf(prefix: LengthPrefix, length: number): Uint8Array {
  if (prefix === 'u16le') return Uint8Array.of(length & 0xff, length >>> 8);
  if (prefix === 'u32le') {
    const out = new Uint8Array(4);
    new DataView(out.buffer).setUint32(0, length, true);
    return out;
  }
  const out: number[] = [];
  let v = length;
  while (v >= 0x80) {
    out.push((v & 0x7f) | 0x80);
    v = Math.floor(v / 128);
  }
  out.push(v);
  return Uint8Array.from(out);
}

/** The frame of `data`: its length in the format's prefix, then the bytes. */
export function encodeFrame(format: FrameFormat, data: Uint8Array): Uint8Array {
  const limit = Math.min(format.maxBytes, PREFIX_MAX[format.prefix]);
  if (data.length > limit) throw format.tooLarge(data.length, limit);
  const prefix = prefixOf(format.prefix, data.length);
  const out = new Uint8Array(prefix.length + data.length);
  out.set(prefix);
  out.set(data, prefix.length);
  return out;
}

/** Reads frames from chunks; `next()` yields one frame, or undefined at a clean end of the stream. */
export class FrameReader {
  private readonly it: AsyncIterator<Chunk>;
  private readonly maxBytes: number;
  /** Received bytes not consumed yet, as chunks (joined only when a frame is complete). */
  private chunks: Uint8Array[] = [];
  private size = 0;
  private ended = false;

  constructor(
    source: AsyncIterable<Chunk>,
    private readonly format: FrameFormat,
    private readonly opts: FrameReaderOptions = {},
  ) {
    this.it = source[Symbol.asyncIterator]();
    this.maxBytes = Math.min(opts.maxBytes ?? Infinity, format.maxBytes, PREFIX_MAX[format.prefix]);
  }

  /** The next frame; undefined when the stream ends cleanly between frames. */
  async next(): Promise<Uint8Array | undefined> {
    const deadline = this.opts.timeout ? Date.now() + this.opts.timeout.ms : Infinity;
    let prefix = this.readPrefix();
    while (prefix === undefined) {
      if (!(await this.pull(deadline))) {
        if (this.size === 0) return undefined;
        throw this.format.truncated('length prefix');
      }
      prefix = this.readPrefix();
    }
    const { length, bytes } = prefix;
    this.take(bytes);
    // Checked before the body is gathered.
    const exact = this.opts.exact;
    if (exact && length !== exact.bytes) throw exact.error(length, exact.bytes);
    if (length > this.maxBytes) throw this.format.tooLarge(length, this.maxBytes);
    while (this.size < length) {
      if (!(await this.pull(deadline))) throw this.format.truncated('body');
    }
    return this.take(length);
  }

  /**
   * Stops reading. The source's `return` is not awaited: a stream that never ends (a peer that
   * keeps it open) would hold the caller forever.
   */
  close(): void {
    const r = this.it.return?.();
    if (r) void Promise.resolve(r).catch(() => {});
  }

  /** The buffered length prefix (the length and the prefix's size), undefined while incomplete. */
  private readPrefix(): { length: number; bytes: number } | undefined {
    const p = this.format.prefix;
    if (p === 'u16le' || p === 'u32le') {
      const bytes = p === 'u16le' ? 2 : 4;
      if (this.size < bytes) return undefined;
      const b = this.peek(bytes);
      const length =
        p === 'u16le' ? b[0]! | (b[1]! << 8) : new DataView(b.buffer, b.byteOffset).getUint32(0, true);
      return { length, bytes };
    }
    let length = 0;
    let mul = 1;
    let i = 0;
    for (const c of this.chunks) {
      for (const byte of c) {
        length += (byte & 0x7f) * mul;
        mul *= 128;
        i++;
        if ((byte & 0x80) === 0) return { length, bytes: i };
        if (i >= MAX_VARINT_BYTES) {
          const what = `length prefix: a varint longer than ${MAX_VARINT_BYTES} bytes`;
          throw this.format.malformed?.(what) ?? new FrameMalformed(what);
        }
      }
    }
    return undefined;
  }

  /** Pulls one more chunk (false at the end of the stream). */
  private async pull(deadline: number): Promise<boolean> {
    if (this.ended) return false;
    const timeout = this.opts.timeout;
    let r: IteratorResult<Chunk>;
    if (timeout === undefined) r = await this.it.next();
    else {
      const left = deadline - Date.now();
      if (left <= 0) throw timeout.error(timeout.ms);
      let timer: NodeJS.Timeout | undefined;
      const expired = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(timeout.error(timeout.ms)), left);
      });
      try {
        r = await Promise.race([this.it.next(), expired]);
      } finally {
        clearTimeout(timer);
      }
    }
    if (r.done === true) {
      this.ended = true;
      return false;
    }
    const b = r.value instanceof Uint8Array ? r.value : r.value.subarray();
    if (b.length > 0) {
      this.chunks.push(b);
      this.size += b.length;
    }
    return true;
  }

  /** The first `n` buffered bytes (n ≤ size), left buffered. */
  private peek(n: number): Uint8Array {
    const first = this.chunks[0]!;
    if (first.length >= n) return first.subarray(0, n);
    const out = new Uint8Array(n);
    let off = 0;
    for (const c of this.chunks) {
      const k = Math.min(c.length, n - off);
      out.set(c.subarray(0, k), off);
      off += k;
      if (off === n) break;
    }
    return out;
  }

  /** Removes and returns the first `n` buffered bytes (n ≤ size). */
  private take(n: number): Uint8Array {
    const out = new Uint8Array(n);
    let off = 0;
    while (off < n) {
      const c = this.chunks[0]!;
      const k = Math.min(c.length, n - off);
      out.set(c.subarray(0, k), off);
      off += k;
      if (k === c.length) this.chunks.shift();
      else this.chunks[0] = c.subarray(k);
    }
    this.size -= n;
    return out;
  }
}
