/**
 * The reference's framing of request/response streams (F `consensus/cryptarchia-sync/src/libp2p/packing.rs`):
 * each message is a u32 little-endian length followed by that many bytes, at most 16 MiB, and each
 * frame must arrive within the frame timeout. The frames are read and written by the shared framing (`@logos-ts/shared/framing`);
 * this file gives them the network's limits and errors.
 */
import {
  type Chunk,
  type FrameFormat,
  FrameReader as Frames,
  encodeFrame as frame,
} from '@logos-ts/shared/framing';
import { FrameTimeout, FrameTooLarge, StreamTruncated } from './errors.ts';

export type { Chunk } from '@logos-ts/shared/framing';

export const FRAME_PREFIX_BYTES = 4;
/** F `MAX_MSG_LEN`: no frame is larger than 16 MiB, sent or received, whatever the caller's limit. */
export const MAX_FRAME_BYTES = 16 * 1024 * 1024;

const NETWORK_FRAMES: FrameFormat = {
  prefix: 'u32le',
  maxBytes: MAX_FRAME_BYTES,
  tooLarge: (length, limit) => new FrameTooLarge(length, limit),
  truncated: (what) => new StreamTruncated(what),
};

/** `len as u32 LE ‖ data`. */
export const encodeFrame = (data: Uint8Array): Uint8Array => frame(NETWORK_FRAMES, data);

/** Reads u32 LE frames of at most `maxFrameBytes` (never above 16 MiB), each within `frameTimeoutMs`. */
export class FrameReader extends Frames {
  constructor(source: AsyncIterable<Chunk>, maxFrameBytes: number, frameTimeoutMs: number) {
    super(source, NETWORK_FRAMES, {
      maxBytes: maxFrameBytes,
      timeout: { ms: frameTimeoutMs, error: (ms) => new FrameTimeout(ms) },
    });
  }
}
