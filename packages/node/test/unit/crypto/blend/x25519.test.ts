import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ed25519, x25519 } from '@noble/curves/ed25519.js';
import sodium from 'sodium-native';
import {
  sharedKeyWithEd25519,
  X25519KeyError,
  x25519PublicFromEd25519,
  x25519SecretFromEd25519,
  x25519SharedKey,
} from '../../../../src/crypto/blend/x25519.ts';
import { ed25519PublicKey } from '../../../../src/crypto/ed25519.ts';

const seed = (b: number) => new Uint8Array(32).fill(b);

test('conversions agree with libsodium and @noble/curves on ordinary keys', () => {
  for (let b = 1; b < 20; b++) {
    const pk = ed25519PublicKey(seed(b));
    const sodiumPk = Buffer.alloc(32);
    sodium.crypto_sign_ed25519_pk_to_curve25519(sodiumPk, Buffer.from(pk));
    assert.deepEqual(x25519PublicFromEd25519(pk), new Uint8Array(sodiumPk));
    assert.deepEqual(x25519PublicFromEd25519(pk), ed25519.utils.toMontgomery(pk));
    // noble's secret conversion is the clamped scalar; ours is unclamped, X25519 clamps both the same.
    const secret = x25519SecretFromEd25519(seed(b));
    assert.deepEqual(x25519.getPublicKey(secret), x25519PublicFromEd25519(pk));
  }
});

test('Diffie-Hellman on converted keys is symmetric', () => {
  const a = seed(1);
  const b = seed(2);
  const ab = sharedKeyWithEd25519(x25519SecretFromEd25519(a), ed25519PublicKey(b));
  const ba = sharedKeyWithEd25519(x25519SecretFromEd25519(b), ed25519PublicKey(a));
  assert.ok(ab);
  assert.deepEqual(ab, ba);
});

test('small-order keys give a non-contributory exchange, refused', () => {
  const identity = new Uint8Array(32);
  identity[0] = 1; // y = 1: the identity, u = 0
  assert.deepEqual(x25519PublicFromEd25519(identity), new Uint8Array(32));
  assert.equal(sharedKeyWithEd25519(x25519SecretFromEd25519(seed(1)), identity), undefined);
  // y = 0 (x^2 = -1): the points of order 4, u = 1
  const order4 = new Uint8Array(32);
  assert.equal(sharedKeyWithEd25519(x25519SecretFromEd25519(seed(1)), order4), undefined);
  assert.equal(x25519SharedKey(seed(1), new Uint8Array(32)), undefined);
});

test('a public key that is not a curve point is refused', () => {
  const bad = new Uint8Array(32);
  bad[0] = 2; // y = 2 is not on the curve
  assert.throws(() => x25519PublicFromEd25519(bad), X25519KeyError);
  assert.throws(() => x25519SecretFromEd25519(new Uint8Array(31)), X25519KeyError);
});
