/**
 * Varint-length-prefixed framing (store query, metadata): a message split into many tiny chunks is read
 * in linear time (a peer sending 1-byte chunks cannot make the reader copy quadratically), the
 * length limit is checked before the body, and a split or damaged prefix is handled.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DeliveryError } from '../../src/errors.ts';
import { lengthPrefixed, readLengthPrefixed } from '../../src/length-prefixed.ts';

async function* chunked(data: Uint8Array, size: number): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < data.length; i += size) yield data.subarray(i, i + size);
}

describe('delivery length-prefixed framing', () => {
  // A watchdog, not a timing figure: read linearly this takes well under a second; copying everything
  // gathered so far on each of the 131,072 chunks would move ~280 GB and never finish in time.
  test('a message in tiny chunks is read without quadratic copying', { timeout: 30_000 }, async () => {
    const body = new Uint8Array(4 << 20).map((_, i) => i & 0xff);
    const got = await readLengthPrefixed(chunked(lengthPrefixed(body), 32), 8 << 20);
    assert.deepEqual(got, body);
  });

  test('prefix split over chunks, extra bytes after the message, limits and early ends', async () => {
    const body = new Uint8Array(200).fill(7); // a 2-byte varint
    const framed = lengthPrefixed(body);
    const withTail = new Uint8Array([...framed, 1, 2, 3]);
    assert.deepEqual(await readLengthPrefixed(chunked(withTail, 1), 1000), body);
    assert.deepEqual(await readLengthPrefixed(chunked(withTail, 7), 1000), body);
    assert.deepEqual(
      await readLengthPrefixed(chunked(lengthPrefixed(new Uint8Array(0)), 1), 10),
      new Uint8Array(0),
    );
    await assert.rejects(
      readLengthPrefixed(chunked(framed, 1), 199),
      (e: unknown) =>
        e instanceof DeliveryError && e.code === 'DELIVERY_BAD_FRAME' && /exceeds 199/.test(e.message),
    );
    await assert.rejects(readLengthPrefixed(chunked(framed.subarray(0, 150), 3), 1000), /closed the stream/);
    await assert.rejects(
      readLengthPrefixed(chunked(new Uint8Array(6).fill(0x80), 1), 1000),
      /bad length prefix/,
    );
    // a Uint8ArrayList-like chunk
    async function* lists() {
      yield { subarray: () => framed.subarray(0, 1) };
      yield { subarray: () => framed.subarray(1) };
    }
    assert.deepEqual(await readLengthPrefixed(lists(), 1000), body);
  });
});
