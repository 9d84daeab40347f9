/**
 * Blend stream framing (F `blend/network/src/lib.rs`): u16 LE length ‖ message; a frame of any length
 * other than the message size is refused from its prefix alone.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  BlendFrameLength,
  BlendFrameReader,
  BlendMessageTooLarge,
  BlendStreamTruncated,
  encodeBlendFrame,
} from '../../../../src/blend/network/index.ts';

async function* chunks(...parts: Uint8Array[]): AsyncIterable<Uint8Array> {
  for (const p of parts) yield p;
}

test('a frame is the u16 little-endian length then the message', () => {
  const f = encodeBlendFrame(new Uint8Array(0x0102).fill(7));
  assert.deepEqual([...f.subarray(0, 2)], [0x02, 0x01]);
  assert.equal(f.length, 2 + 0x0102);
  assert.throws(() => encodeBlendFrame(new Uint8Array(0x10000)), BlendMessageTooLarge);
});

test('frames split across chunks are read back whole, in order, then a clean end', async () => {
  const a = new Uint8Array(5).fill(1);
  const b = new Uint8Array(5).fill(2);
  const wire = new Uint8Array([...encodeBlendFrame(a), ...encodeBlendFrame(b)]);
  const r = new BlendFrameReader(chunks(wire.subarray(0, 1), wire.subarray(1, 4), wire.subarray(4)), 5);
  assert.deepEqual(await r.next(), a);
  assert.deepEqual(await r.next(), b);
  assert.equal(await r.next(), undefined);
});

test('a wrong length is refused before the body arrives', async () => {
  let pulledBody = false;
  async function* source(): AsyncIterable<Uint8Array> {
    yield new Uint8Array([4, 0]);
    pulledBody = true;
    yield new Uint8Array(4);
  }
  const r = new BlendFrameReader(source(), 5);
  await assert.rejects(
    r.next(),
    (e: unknown) => e instanceof BlendFrameLength && e.length === 4 && e.expected === 5,
  );
  assert.equal(pulledBody, false);
});

test('a stream ending inside a frame is truncated', async () => {
  await assert.rejects(new BlendFrameReader(chunks(new Uint8Array([5])), 5).next(), BlendStreamTruncated);
  await assert.rejects(
    new BlendFrameReader(chunks(new Uint8Array([5, 0, 1, 2])), 5).next(),
    (e: unknown) => e instanceof BlendStreamTruncated && e.code === 'BLEND_NETWORK_STREAM_TRUNCATED',
  );
});
