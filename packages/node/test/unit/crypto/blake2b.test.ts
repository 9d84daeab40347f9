import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { blake2b } from '@noble/hashes/blake2.js';
import { bytesToHex } from '../../../src/codec/hex.ts';
import { blake2b256 } from '../../../src/crypto/blake2b.ts';

test('Blake2b-256 known answers (digest length in the parameter block, not truncated Blake2b-512)', () => {
  assert.equal(
    bytesToHex(blake2b256(new Uint8Array())),
    '0e5751c026e543b2e8ab2eb06099daa1d1e5df47778f7787faab45cdf12fe3a8',
  );
  assert.equal(
    bytesToHex(blake2b256(new TextEncoder().encode('abc'))),
    'bddd813c634239723171ef3fee98579b94964e3bb1cb3e427262c8c068d52319',
  );
});

test('Blake2b-256 agrees with @noble/hashes on random inputs, whole or in parts', () => {
  for (let i = 0; i < 200; i++) {
    const m = new Uint8Array(randomBytes(i * 7));
    const want = bytesToHex(blake2b(m, { dkLen: 32 }));
    assert.equal(bytesToHex(blake2b256(m)), want);
    const cut = Math.floor(m.length / 3);
    assert.equal(
      bytesToHex(blake2b256(m.subarray(0, cut), m.subarray(cut, 2 * cut), m.subarray(2 * cut))),
      want,
    );
  }
});

test('Blake2b-256 result is independent of later input mutation', () => {
  const m = new Uint8Array([1, 2, 3]);
  const h = blake2b256(m);
  m[0] = 9;
  assert.equal(bytesToHex(h), bytesToHex(blake2b(new Uint8Array([1, 2, 3]), { dkLen: 32 })));
});
