/** F: blend/crypto/src/cipher.rs tests, ported. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Cipher } from '../../../../src/crypto/blend/cipher.ts';

const enc = (s: string) => new TextEncoder().encode(s);
const TEST_DOMAIN = enc('test-domain');

function encrypt(data: Uint8Array, cipher: Cipher): Uint8Array {
  const buf = data.slice();
  cipher.apply(buf);
  return buf;
}
const decrypt = encrypt;

function xor(a: Uint8Array, b: Uint8Array): Uint8Array {
  assert.equal(a.length, b.length);
  return a.map((x, i) => x ^ b[i]!);
}

/** The next `n` keystream bytes (encrypting zeros). */
const next = (cipher: Cipher, n: number) => encrypt(new Uint8Array(n), cipher);

// F: blend/crypto/src/cipher.rs::tests::cipher_deterministic_pseudo_random_bytes
test('cipher_deterministic_pseudo_random_bytes', () => {
  const seed = enc('test-seed');
  let cipher = new Cipher(TEST_DOMAIN, seed);
  const bytes1 = next(cipher, 64);
  const bytes2 = next(cipher, 64);
  assert.equal(bytes1.length, 64);
  assert.notDeepEqual(bytes1, bytes2);
  cipher = new Cipher(TEST_DOMAIN, seed);
  assert.deepEqual(next(cipher, 64), bytes1);
  assert.deepEqual(next(cipher, 64), bytes2);
  cipher = new Cipher(TEST_DOMAIN, enc('different-seed'));
  assert.notDeepEqual(next(cipher, 64), bytes1);
  assert.notDeepEqual(next(cipher, 64), bytes2);
});

// F: blend/crypto/src/cipher.rs::tests::cipher_encrypt_decrypt
test('cipher_encrypt_decrypt', () => {
  const seed = enc('test-seed');
  let cipher = new Cipher(TEST_DOMAIN, seed);
  const e1 = encrypt(enc('hello'), cipher);
  const e2 = encrypt(enc('world'), cipher);
  cipher = new Cipher(TEST_DOMAIN, seed);
  assert.deepEqual(decrypt(e1, cipher), enc('hello'));
  assert.deepEqual(decrypt(e2, cipher), enc('world'));
});

// F: blend/crypto/src/cipher.rs::tests::cipher_encrypt_decrypt_with_different_seed
test('cipher_encrypt_decrypt_with_different_seed', () => {
  let cipher = new Cipher(TEST_DOMAIN, enc('test-seed'));
  const e1 = encrypt(enc('hello'), cipher);
  const e2 = encrypt(enc('world'), cipher);
  cipher = new Cipher(TEST_DOMAIN, enc('different-seed'));
  assert.notDeepEqual(decrypt(e1, cipher), enc('hello'));
  assert.notDeepEqual(decrypt(e2, cipher), enc('world'));
});

// F: blend/crypto/src/cipher.rs::tests::xor_leakage_security
test('xor_leakage_security', () => {
  const plain1 = enc('hello');
  const plain2 = enc('world');
  const cipher = new Cipher(TEST_DOMAIN, enc('test-seed'));
  const encrypted1 = encrypt(plain1, cipher);
  const encrypted2 = encrypt(plain2, cipher);
  const xorCiphers = xor(encrypted1, encrypted2);
  assert.notDeepEqual(xorCiphers, xor(plain1, plain2));
  assert.notDeepEqual(xor(plain1, xorCiphers), plain2);
});

// F: blend/crypto/src/cipher.rs::tests::xor_leakage_security_in_encapsulation
test('xor_leakage_security_in_encapsulation', () => {
  const plain1 = enc('hello');
  const plain2 = enc('world');
  const seed1 = enc('seed1');
  const seed2 = enc('seed2');
  const encrypted2 = encrypt(plain2, new Cipher(TEST_DOMAIN, seed2));
  let cipher1 = new Cipher(TEST_DOMAIN, seed1);
  const encrypted1 = encrypt(plain1, cipher1);
  const doubleEncrypted2 = encrypt(encrypted2, cipher1);
  const mixed = xor(encrypted1, doubleEncrypted2);
  cipher1 = new Cipher(TEST_DOMAIN, seed1);
  assert.deepEqual(decrypt(encrypted1, cipher1), plain1);
  assert.deepEqual(decrypt(doubleEncrypted2, cipher1), encrypted2);
  assert.notDeepEqual(xor(plain1, mixed), encrypted2);
});
