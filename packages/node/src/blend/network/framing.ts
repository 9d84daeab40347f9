/**
 * Framing of Blend streams (F `blend/network/src/lib.rs` `send_msg`/`recv_msg`): each message is a u16
 * little-endian length followed by the message. Every Blend message of a deployment has the same size,
 * so a reader is given that size and refuses a frame announcing any other length as soon as its prefix
 * is read, before the body is gathered (F reads any u16 length and then fails to decode it: the same
 * outcome for the peer, without holding its bytes). The frames are read and written by
 * the shared framing (`@logos-ts/shared/framing`); this file gives them Blend's limits and errors.
 */
import { type Chunk, encodeFrame, type FrameFormat, FrameReader } from '@logos-ts/shared/framing';
import { BlendFrameLength, BlendMessageTooLarge, BlendStreamTruncated } from './errors.ts';

export const BLEND_FRAME_PREFIX_BYTES = 2;
/** The largest message a u16 prefix can announce. */
export const MAX_BLEND_MESSAGE_BYTES = 0xffff;

const BLEND_FRAMES: FrameFormat = {
  prefix: 'u16le',
  maxBytes: MAX_BLEND_MESSAGE_BYTES,
  tooLarge: (length) => new BlendMessageTooLarge(length),
  truncated: (what) => new BlendStreamTruncated(what),
};

/** `len as u16 LE ‖ message`. */
export const encodeBlendFrame = (message: Uint8Array): Uint8Array => encodeFrame(BLEND_FRAMES, message);

/** Reads frames of exactly `messageBytes` from a stream of chunks. */
export class BlendFrameReader extends FrameReader {
  constructor(source: AsyncIterable<Chunk>, messageBytes: number) {
    // inferred: F reads any u16 length and fails to decode a wrong size; refused here before the body
    super(source, BLEND_FRAMES, {
      exact: { bytes: messageBytes, error: (length, expected) => new BlendFrameLength(length, expected) },
    });
  }
}
