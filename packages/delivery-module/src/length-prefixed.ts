/**
 * Varint-length-prefixed messages on libp2p streams, the framing of the Waku request/response
 * protocols (store query, metadata; nim-libp2p `writeLp`/`readLp`): the length is checked against the
 * caller's limit before the body is gathered.
 */
import { DeliveryError } from './errors.ts';

/** A chunk as libp2p streams yield it: bytes, or a list of byte arrays (`Uint8ArrayList`). */
export type Chunk = Uint8Array | { subarray(): Uint8Array };

export function encodeVarint(n: number): Uint8Array {
  const out: number[] = [];
  let v = n;
  while (v >= 0x80) {
    out.push((v & 0x7f) | 0x80);
    v = Math.floor(v / 128);
  }
  out.push(v);
  return Uint8Array.from(out);
}

export function lengthPrefixed(data: Uint8Array): Uint8Array {
  const prefix = encodeVarint(data.length);
  const out = new Uint8Array(prefix.length + data.length);
  out.set(prefix);
  out.set(data, prefix.length);
  return out;
}

/**
 * Reads one varint-length-prefixed message from `source`; the length is checked against `maxBytes`
 * before the body is gathered. Throws at an early end of the stream.
 */
export async function readLengthPrefixed(
  source: AsyncIterable<Chunk>,
  maxBytes: number,
): Promise<Uint8Array> {
  // the chunks are kept in a list and joined once at the end: copying everything gathered so far on
  // every chunk would cost quadratic time for a peer sending tiny chunks
  const chunks: Uint8Array[] = [];
  let total = 0;
  let len: number | undefined;
  let headerBytes = 0;
  for await (const c of source) {
    const b = c instanceof Uint8Array ? c : c.subarray();
    if (b.length === 0) continue;
    chunks.push(b);
    total += b.length;
    if (len === undefined) {
      // the varint is in the first 5 bytes at most
      let v = 0;
      let mul = 1;
      let i = 0;
      scan: for (const ch of chunks) {
        for (let j = 0; j < ch.length; j++, i++) {
          if (i >= 5) throw new DeliveryError('DELIVERY_BAD_FRAME', 'bad length prefix');
          v += (ch[j]! & 0x7f) * mul;
          mul *= 128;
          if ((ch[j]! & 0x80) === 0) {
            len = v;
            headerBytes = i + 1;
            break scan;
          }
        }
      }
      if (len !== undefined && len > maxBytes)
        throw new DeliveryError('DELIVERY_BAD_FRAME', `response of ${len} bytes exceeds ${maxBytes}`);
    }
    if (len !== undefined && total - headerBytes >= len) {
      const buf = new Uint8Array(total);
      let at = 0;
      for (const ch of chunks) {
        buf.set(ch, at);
        at += ch.length;
      }
      return buf.subarray(headerBytes, headerBytes + len);
    }
  }
  throw new DeliveryError('DELIVERY_BAD_FRAME', 'the store peer closed the stream before answering');
}
