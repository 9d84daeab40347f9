/**
 * The one length-prefixed framing of the node's streams, in its three byte formats (u16 LE, u32 LE,
 * varint): the bytes of each prefix, frames split anywhere across chunks, limits refused from the prefix
 * alone, a truncated stream, a frame that does not come in time, and the protocol's own errors.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  encodeFrame,
  type FrameFormat,
  FrameMalformed,
  FrameReader,
  type LengthPrefix,
} from '../../src/framing.ts';

class TooLarge extends Error {
  constructor(
    readonly length: number,
    readonly limit: number,
  ) {
    super(`too large: ${length} > ${limit}`);
  }
}
class Truncated extends Error {}
class WrongLength extends Error {}
class Late extends Error {}

const format = (prefix: LengthPrefix, maxBytes = 1 << 20): FrameFormat => ({
  prefix,
  maxBytes,
  tooLarge: (length, limit) => new TooLarge(length, limit),
  truncated: (what) => new Truncated(what),
});

async function* chunks(...cs: Uint8Array[]): AsyncIterable<Uint8Array> {
  for (const c of cs) yield c;
}

/** `bytes` one byte per chunk: every prefix and body split at every position. */
const bytewise = (bytes: Uint8Array) => chunks(...[...bytes].map((b) => Uint8Array.of(b)));

test('each prefix is written as its format says', () => {
  const data = new Uint8Array(300).fill(1);
  assert.deepEqual([...encodeFrame(format('u16le'), data).subarray(0, 2)], [0x2c, 0x01]);
  assert.deepEqual([...encodeFrame(format('u32le'), data).subarray(0, 4)], [0x2c, 0x01, 0, 0]);
  assert.deepEqual([...encodeFrame(format('varint'), data).subarray(0, 2)], [0xac, 0x02]);
  assert.deepEqual([...encodeFrame(format('varint'), Uint8Array.of(7))], [1, 7]);
  assert.equal(encodeFrame(format('varint'), data).length, 302);
});

test('frames read back in every format, whatever the chunking, then a clean end', async () => {
  for (const prefix of ['u16le', 'u32le', 'varint'] as const) {
    const f = format(prefix);
    const frames = [new Uint8Array(0), Uint8Array.of(1, 2, 3), new Uint8Array(200).fill(9)];
    const bytes = Uint8Array.from(frames.flatMap((d) => [...encodeFrame(f, d)]));
    for (const source of [chunks(bytes), bytewise(bytes)]) {
      const r = new FrameReader(source, f);
      for (const d of frames) assert.deepEqual(await r.next(), d, prefix);
      assert.equal(await r.next(), undefined);
    }
  }
});

test("a frame above the limit is refused from its prefix, with the format's error", async () => {
  const f = format('u32le', 1000);
  assert.throws(
    () => encodeFrame(f, new Uint8Array(1001)),
    (e) => e instanceof TooLarge && e.length === 1001 && e.limit === 1000,
  );
  // Only the prefix is sent: the body is never waited for.
  await assert.rejects(
    new FrameReader(chunks(Uint8Array.of(0xff, 0xff, 0xff, 0xff)), f, { maxBytes: 10 }).next(),
    (e) => e instanceof TooLarge && e.length === 0xffffffff && e.limit === 10,
  );
  await assert.rejects(
    new FrameReader(chunks(Uint8Array.of(0xe9, 0x07)), format('varint', 1000)).next(),
    (e) => e instanceof TooLarge && e.length === 1001 && e.limit === 1000,
  );
});

test('a varint prefix longer than 5 bytes is a FrameMalformed', async () => {
  await assert.rejects(
    new FrameReader(chunks(Uint8Array.of(0x80, 0x80, 0x80, 0x80, 0x80, 0x01)), format('varint')).next(),
    (e) => e instanceof FrameMalformed && /varint longer than 5 bytes/.test(e.message),
  );
});

test('a reader for one size refuses any other length before the body', async () => {
  const exact = {
    bytes: 5,
    error: (length: number, expected: number) => new WrongLength(`${length}/${expected}`),
  };
  const f = format('u16le');
  const ok = new FrameReader(chunks(encodeFrame(f, new Uint8Array(5))), f, { exact });
  assert.equal((await ok.next())?.length, 5);
  await assert.rejects(
    new FrameReader(chunks(Uint8Array.of(4, 0)), f, { exact }).next(),
    (e) => e instanceof WrongLength && e.message === '4/5',
  );
});

test('a stream ending inside a frame is truncated, naming where', async () => {
  const f = format('u32le');
  await assert.rejects(
    new FrameReader(chunks(Uint8Array.of(1, 0)), f).next(),
    (e) => e instanceof Truncated && e.message === 'length prefix',
  );
  await assert.rejects(
    new FrameReader(chunks(Uint8Array.of(3, 0, 0, 0, 1)), f).next(),
    (e) => e instanceof Truncated && e.message === 'body',
  );
  await assert.rejects(
    new FrameReader(chunks(Uint8Array.of(0x80)), format('varint')).next(),
    (e) => e instanceof Truncated && e.message === 'length prefix',
  );
});

test("a frame that does not come within the timeout is the timeout's error", async () => {
  async function* stalled(): AsyncIterable<Uint8Array> {
    yield Uint8Array.of(2, 0, 0, 0, 1);
    await new Promise((r) => setTimeout(r, 1000));
  }
  const timeout = { ms: 50, error: (ms: number) => new Late(String(ms)) };
  await assert.rejects(
    new FrameReader(stalled(), format('u32le'), { timeout }).next(),
    (e) => e instanceof Late && e.message === '50',
  );
});
