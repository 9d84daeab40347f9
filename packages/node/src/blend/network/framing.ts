/**
 * Framing of Blend streams (F `blend/network/src/lib.rs` `send_msg`/`recv_msg`): each message is a u16
 * little-endian length followed by the message. Every Blend message of a deployment has the same size,
 * so a reader is given that size and refuses a frame announcing any other length as soon as its prefix
 * is read, before the body is gathered (F reads any u16 length and then fails to decode it: the same
 * outcome for the peer, without holding its bytes).
 */
import { BlendFrameLength, BlendMessageTooLarge, BlendStreamTruncated } from './errors.ts';

/** A chunk as libp2p streams yield it: bytes, or a list of byte arrays (`Uint8ArrayList`). */
export type Chunk = Uint8Array | { subarray(): Uint8Array };

export const BLEND_FRAME_PREFIX_BYTES = 2;
/** The largest message a u16 prefix can announce. */
export const MAX_BLEND_MESSAGE_BYTES = 0xffff;

/** `len as u16 LE ‖ message`. */
export function encodeBlendFrame(message: Uint8Array): Uint8Array {
  if (message.length > MAX_BLEND_MESSAGE_BYTES) throw new BlendMessageTooLarge(message.length);
  const out = new Uint8Array(BLEND_FRAME_PREFIX_BYTES + message.length);
  out[0] = message.length & 0xff;
  out[1] = message.length >>> 8;
  out.set(message, BLEND_FRAME_PREFIX_BYTES);
  return out;
}

/** Reads frames of exactly `messageBytes` from a stream of chunks. */
export class BlendFrameReader {
  private readonly it: AsyncIterator<Chunk>;
  /** Received bytes not consumed yet. */
  private pending: Uint8Array = new Uint8Array(0);
  private ended = false;

  constructor(
    source: AsyncIterable<Chunk>,
    private readonly messageBytes: number,
  ) {
    this.it = source[Symbol.asyncIterator]();
  }

  /** Reads until at least `n` bytes are buffered; false when the stream ends first. */
  private async fill(n: number): Promise<boolean> {
    while (this.pending.length < n) {
      if (this.ended) return false;
      const r = await this.it.next();
      if (r.done === true) {
        this.ended = true;
        return false;
      }
      const b = r.value instanceof Uint8Array ? r.value : r.value.subarray();
      if (b.length === 0) continue;
      if (this.pending.length === 0) this.pending = b;
      else {
        const joined = new Uint8Array(this.pending.length + b.length);
        joined.set(this.pending);
        joined.set(b, this.pending.length);
        this.pending = joined;
      }
    }
    return true;
  }

  private take(n: number): Uint8Array {
    const out = this.pending.slice(0, n);
    this.pending = this.pending.subarray(n);
    return out;
  }

  /** The next message; undefined when the stream ends cleanly between frames. */
  async next(): Promise<Uint8Array | undefined> {
    if (!(await this.fill(BLEND_FRAME_PREFIX_BYTES))) {
      if (this.pending.length === 0) return undefined;
      throw new BlendStreamTruncated('length prefix');
    }
    const prefix = this.take(BLEND_FRAME_PREFIX_BYTES);
    const len = prefix[0]! | (prefix[1]! << 8);
    // inferred: F reads any u16 length and fails to decode a wrong size; refused here before the body
    if (len !== this.messageBytes) throw new BlendFrameLength(len, this.messageBytes);
    if (!(await this.fill(len))) throw new BlendStreamTruncated('body');
    return this.take(len);
  }

  /** Stops reading; the source's `return` is not awaited (a peer may keep its stream open). */
  close(): void {
    const r = this.it.return?.();
    if (r) void Promise.resolve(r).catch(() => {});
  }
}
