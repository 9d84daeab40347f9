import assert from 'node:assert/strict';
import { test } from 'node:test';
import { blake2b } from '@noble/hashes/blake2.js';
import { BlakeRng, blake2b512, pseudoRandomBytes } from '../../../../src/crypto/blend/blake-rng.ts';
import { selectionIndex } from '../../../../src/crypto/blend/selection.ts';
import { frToBytes, leBytesToBigint } from '../../../../src/crypto/field.ts';

const enc = (s: string) => new TextEncoder().encode(s);

function u64le(i: number): Uint8Array {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigUint64(0, BigInt(i), true);
  return b;
}

/** The stream as F defines it, written out with @noble/hashes (an independent Blake2b). */
function modelStream(seed: Uint8Array, length: number): Uint8Array {
  const out = new Uint8Array(length);
  for (let i = 0, off = 0; off < length; i++, off += 64) {
    const block = blake2b(new Uint8Array([...seed, ...u64le(i)]), { dkLen: 64 });
    out.set(block.subarray(0, Math.min(64, length - off)), off);
  }
  return out;
}

test('blake2b512 is Blake2b with a 64-byte digest of the concatenated parts', () => {
  const parts = [enc('BlendHeader'), new Uint8Array(32).fill(7)];
  assert.deepEqual(
    blake2b512(...parts),
    blake2b(new Uint8Array([...parts[0]!, ...parts[1]!]), { dkLen: 64 }),
  );
});

test('the stream is Blake2b-512(seed ‖ u64_le(i)) blocks, whatever the read sizes', () => {
  const seed = blake2b(enc('seed'), { dkLen: 64 });
  const want = modelStream(seed, 1000);
  const rng = BlakeRng.fromSeedBytes(seed);
  const got = new Uint8Array(1000);
  let off = 0;
  for (const n of [1, 7, 64, 63, 129, 0, 300]) {
    rng.fillBytes(got.subarray(off, off + n));
    off += n;
  }
  rng.fillBytes(got.subarray(off));
  assert.deepEqual(got, want);
});

test('nextU32 and nextU64 read the next bytes little-endian', () => {
  const seed = new Uint8Array(64).fill(9);
  const s = modelStream(seed, 12);
  const rng = BlakeRng.fromSeedBytes(seed);
  assert.equal(rng.nextU32(), Number(leBytesToBigint(s.subarray(0, 4))));
  assert.equal(rng.nextU64(), leBytesToBigint(s.subarray(4, 12)));
});

test('xorInto XORs the same stream fillBytes gives', () => {
  const seed = new Uint8Array(64).fill(3);
  const data = new Uint8Array(200).map((_, i) => i);
  const copy = data.slice();
  BlakeRng.fromSeedBytes(seed).xorInto(data);
  const s = modelStream(seed, 200);
  assert.deepEqual(
    data,
    copy.map((b, i) => b ^ s[i]!),
  );
});

test('domain seeding is Blake2b-512(domain ‖ key), and matches the selection index of proofs of selection', () => {
  const key = new Uint8Array(32).fill(5);
  assert.deepEqual(pseudoRandomBytes(enc('D'), key, 100), modelStream(blake2b512(enc('D'), key), 100));
  for (const r of [0n, 1n, 123456789n, 2n ** 250n]) {
    const want = leBytesToBigint(pseudoRandomBytes(enc('BlendNode'), frToBytes(r), 8)) % 7n;
    assert.equal(selectionIndex(r, 7n), want);
  }
});

test('a seed of the wrong size is refused', () => {
  assert.throws(() => BlakeRng.fromSeedBytes(new Uint8Array(32)), RangeError);
});

test('two streams from entropy differ', () => {
  assert.notDeepEqual(BlakeRng.fromEntropy().nextBytes(64), BlakeRng.fromEntropy().nextBytes(64));
});
