/**
 * Varint-length-prefixed messages on libp2p streams, the framing of the Waku request/response
 * protocols (store query, metadata; nim-libp2p `writeLp`/`readLp`), read and written by the shared
 * framing (`@logos-ts/shared/framing`): the length is checked against the caller's limit before the
 * body is gathered.
 */
import { type Chunk, encodeFrame, type FrameFormat, FrameReader } from '@logos-ts/shared/framing';
import { DeliveryError } from './errors.ts';

export type { Chunk };

const badFrame = (message: string): DeliveryError => new DeliveryError('DELIVERY_BAD_FRAME', message);

/** Waku's frames: a varint length (at most a u32), then the bytes. */
const WAKU_FRAMES: FrameFormat = {
  prefix: 'varint',
  maxBytes: 0xffff_ffff,
  tooLarge: (length, limit) => badFrame(`response of ${length} bytes exceeds ${limit}`),
  truncated: () => badFrame('the store peer closed the stream before answering'),
  malformed: () => badFrame('bad length prefix'),
};

/** `varint(len) ‖ data`. */
export function lengthPrefixed(data: Uint8Array): Uint8Array {
  return encodeFrame(WAKU_FRAMES, data);
}

/**
 * Reads one varint-length-prefixed message from `source`; the length is checked against `maxBytes`
 * before the body is gathered. Throws at an early end of the stream.
 */
export async function readLengthPrefixed(
  source: AsyncIterable<Chunk>,
  maxBytes: number,
): Promise<Uint8Array> {
  const reader = new FrameReader(source, WAKU_FRAMES, { maxBytes });
  try {
    const message = await reader.next();
    if (message === undefined) throw WAKU_FRAMES.truncated('length prefix');
    return message;
  } finally {
    // one message a stream: the read side ends here, as leaving a for-await loop ends it
    reader.close();
  }
}
