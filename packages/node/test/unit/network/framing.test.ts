/** The u32 LE framing of request/response streams: limits checked before allocation, truncation, timeouts. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  encodeFrame,
  FrameReader,
  FrameTimeout,
  FrameTooLarge,
  StreamTruncated,
} from '../../../src/network/index.ts';

async function* chunks(...cs: Uint8Array[]): AsyncIterable<Uint8Array> {
  for (const c of cs) yield c;
}

test('encodeFrame writes the length as u32 little-endian', () => {
  assert.deepEqual([...encodeFrame(Uint8Array.from([9, 8, 7]))], [3, 0, 0, 0, 9, 8, 7]);
  assert.deepEqual([...encodeFrame(new Uint8Array(0))], [0, 0, 0, 0]);
});

test('frames split across chunks, several per chunk, then a clean end', async () => {
  const all = Uint8Array.from([
    ...encodeFrame(Uint8Array.from([1, 2])),
    ...encodeFrame(Uint8Array.from([3])),
  ]);
  const r = new FrameReader(chunks(all.subarray(0, 1), all.subarray(1, 5), all.subarray(5)), 10, 1000);
  assert.deepEqual([...(await r.next())!], [1, 2]);
  assert.deepEqual([...(await r.next())!], [3]);
  assert.equal(await r.next(), undefined);
});

test('a length above the limit is refused from the prefix alone', async () => {
  // 4 GiB - 1 announced, no body sent: refused before waiting for (or allocating) it
  const r = new FrameReader(chunks(Uint8Array.from([0xff, 0xff, 0xff, 0xff])), 1024, 1000);
  await assert.rejects(
    r.next(),
    (e) => e instanceof FrameTooLarge && e.length === 0xffffffff && e.limit === 1024,
  );
  const exact = new FrameReader(chunks(encodeFrame(new Uint8Array(1024))), 1024, 1000);
  assert.equal((await exact.next())!.length, 1024);
});

test('a stream ending inside a prefix or a body is truncated', async () => {
  await assert.rejects(new FrameReader(chunks(Uint8Array.from([1, 0])), 10, 1000).next(), StreamTruncated);
  await assert.rejects(
    new FrameReader(chunks(Uint8Array.from([3, 0, 0, 0, 1])), 10, 1000).next(),
    StreamTruncated,
  );
});

test('a frame that does not arrive in time times out', async () => {
  async function* slow(): AsyncIterable<Uint8Array> {
    yield Uint8Array.from([1, 0, 0, 0]);
    await new Promise((r) => setTimeout(r, 500));
    yield Uint8Array.from([1]);
  }
  await assert.rejects(new FrameReader(slow(), 10, 50).next(), FrameTimeout);
});

test('whatever the caller allows, a received frame above 16 MiB is refused from its prefix (F unpack_from_reader)', async () => {
  // A ~4 GiB prefix is refused at once, even when the caller's own limit is larger than 16 MiB.
  async function* prefix(): AsyncIterable<Uint8Array> {
    yield Uint8Array.from([0xff, 0xff, 0xff, 0xff]);
  }
  await assert.rejects(
    new FrameReader(prefix(), 0xffffffff, 1000).next(),
    (e) => e instanceof FrameTooLarge && e.limit === 16 * 1024 * 1024 && e.length === 0xffffffff,
  );
});
