/**
 * The reference's framing of request/response streams (F `consensus/cryptarchia-sync/src/libp2p/packing.rs`):
 * each message is a u32 little-endian length followed by that many bytes. `FrameReader` reads frames
 * from a stream of chunks (a libp2p stream): the length is checked against the limit before the body
 * is allocated, and each frame must arrive within the frame timeout.
 */
import { FrameTimeout, FrameTooLarge, StreamTruncated } from './errors.ts';

/** A chunk as libp2p streams yield it: bytes, or a list of byte arrays (`Uint8ArrayList`). */
export type Chunk = Uint8Array | { subarray(): Uint8Array };

export const FRAME_PREFIX_BYTES = 4;
/** F `MAX_MSG_LEN`: no frame is larger than 16 MiB, sent or received, whatever the caller's limit. */
export const MAX_FRAME_BYTES = 16 * 1024 * 1024;

/** `len as u32 LE ‖ data`. */
export function encodeFrame(data: Uint8Array): Uint8Array {
  if (data.length > MAX_FRAME_BYTES) throw new FrameTooLarge(data.length, MAX_FRAME_BYTES);
  const out = new Uint8Array(FRAME_PREFIX_BYTES + data.length);
  new DataView(out.buffer).setUint32(0, data.length, true);
  out.set(data, FRAME_PREFIX_BYTES);
  return out;
}

function bytesOf(c: Chunk): Uint8Array {
  return c instanceof Uint8Array ? c : c.subarray();
}

/** Reads frames from chunks; `next()` yields one frame, or undefined at a clean end of the stream. */
export class FrameReader {
  private readonly it: AsyncIterator<Chunk>;
  /** The caller's limit, never above 16 MiB. */
  private readonly maxFrameBytes: number;
  /** Received bytes not consumed yet, as chunks (joined only when a frame is complete). */
  private chunks: Uint8Array[] = [];
  private size = 0;
  private ended = false;

  constructor(
    source: AsyncIterable<Chunk>,
    maxFrameBytes: number,
    private readonly frameTimeoutMs: number,
  ) {
    this.it = source[Symbol.asyncIterator]();
    this.maxFrameBytes = Math.min(maxFrameBytes, MAX_FRAME_BYTES);
  }

  /** Pulls one more chunk (false at the end of the stream). */
  private async pull(deadline: number): Promise<boolean> {
    if (this.ended) return false;
    const left = deadline - Date.now();
    if (left <= 0) throw new FrameTimeout(this.frameTimeoutMs);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new FrameTimeout(this.frameTimeoutMs)), left);
    });
    try {
      const r = await Promise.race([this.it.next(), timeout]);
      if (r.done === true) {
        this.ended = true;
        return false;
      }
      const b = bytesOf(r.value);
      if (b.length > 0) {
        this.chunks.push(b);
        this.size += b.length;
      }
      return true;
    } finally {
      clearTimeout(timer);
    }
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

  /** The next frame; undefined when the stream ends cleanly between frames. */
  async next(): Promise<Uint8Array | undefined> {
    const deadline = Date.now() + this.frameTimeoutMs;
    while (this.size < FRAME_PREFIX_BYTES) {
      if (!(await this.pull(deadline))) {
        if (this.size === 0) return undefined;
        throw new StreamTruncated('length prefix');
      }
    }
    const prefix = this.take(FRAME_PREFIX_BYTES);
    const len = new DataView(prefix.buffer).getUint32(0, true);
    // Checked before the body is gathered: a peer cannot make us hold more than the limit.
    if (len > this.maxFrameBytes) throw new FrameTooLarge(len, this.maxFrameBytes);
    while (this.size < len) {
      if (!(await this.pull(deadline))) throw new StreamTruncated('body');
    }
    return this.take(len);
  }

  /** Stops reading (releases the underlying iterator). */
  /**
   * Stops reading. The source's `return` is not awaited: a stream that never ends (a peer that
   * keeps it open) would hold the caller forever.
   */
  async close(): Promise<void> {
    const r = this.it.return?.();
    if (r) void Promise.resolve(r).catch(() => {});
  }
}
