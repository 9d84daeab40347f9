import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ed25519 } from '@noble/curves/ed25519.js';
import { bytesToHex, hexToBytes } from '../../src/codec/hex.ts';
import {
  Ed25519Signer,
  ed25519GenerateSecretKey,
  ed25519PublicKey,
  ed25519Sign,
  ed25519Verify,
  isEd25519Point,
  isValidEd25519PublicKey,
} from '../../src/crypto/ed25519.ts';
import { REFERENCE } from '../vectors.ts';

test('keystore fixture key pairs (reference legacy_keystore.yaml)', () => {
  for (const { title, sk, pk } of REFERENCE.ed25519_keys.pairs) {
    assert.equal(bytesToHex(ed25519PublicKey(hexToBytes(sk))), pk, title);
  }
});

test('RFC 8032 test 1: key, signature of the empty message', () => {
  const sk = hexToBytes('9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60');
  const pk = ed25519PublicKey(sk);
  assert.equal(bytesToHex(pk), 'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a');
  const sig = ed25519Sign(sk, new Uint8Array());
  assert.equal(
    bytesToHex(sig),
    'e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b',
  );
  assert.equal(ed25519Verify(pk, new Uint8Array(), sig), true);
});

test('sign/verify agree with @noble/curves; tampering fails', () => {
  for (let i = 0; i < 20; i++) {
    const sk = ed25519GenerateSecretKey();
    const msg = new Uint8Array(32).fill(i);
    const signer = new Ed25519Signer(sk);
    const sig = signer.sign(msg);
    assert.equal(bytesToHex(sig), bytesToHex(ed25519.sign(msg, sk)));
    assert.equal(bytesToHex(signer.publicKey), bytesToHex(ed25519.getPublicKey(sk)));
    assert.equal(ed25519Verify(signer.publicKey, msg, sig), true);
    assert.equal(ed25519.verify(sig, msg, signer.publicKey), true);
    const badMsg = msg.slice();
    badMsg[0]! ^= 1;
    assert.equal(ed25519Verify(signer.publicKey, badMsg, sig), false);
    const badSig = sig.slice();
    badSig[10]! ^= 1;
    assert.equal(ed25519Verify(signer.publicKey, msg, badSig), false);
  }
});

test('verify returns false, never throws, on malformed keys and signatures', () => {
  const sk = ed25519GenerateSecretKey();
  const pk = ed25519PublicKey(sk);
  const msg = new Uint8Array(32);
  const sig = ed25519Sign(sk, msg);
  assert.equal(ed25519Verify(pk.subarray(0, 31), msg, sig), false);
  assert.equal(ed25519Verify(pk, msg, sig.subarray(0, 63)), false);
  assert.equal(ed25519Verify(new Uint8Array(32).fill(0xff), msg, sig), false);
  // S >= L (non-canonical scalar) is rejected.
  const highS = sig.slice();
  highS.set(new Uint8Array(32).fill(0xff), 32);
  assert.equal(ed25519Verify(pk, msg, highS), false);
});

test('public key validity: small-order points and non-points are refused', () => {
  assert.equal(isValidEd25519PublicKey(new Uint8Array(32)), false, 'all-zero key');
  const identity = new Uint8Array(32);
  identity[0] = 1;
  assert.equal(isEd25519Point(identity), true);
  assert.equal(isValidEd25519PublicKey(identity), false, 'identity is small order');
  // The base point (the reference conformance sample 5866…66) is valid.
  assert.equal(isValidEd25519PublicKey(hexToBytes(`58${'66'.repeat(31)}`)), true);
  // y = 2 is not on the curve.
  const notPoint = new Uint8Array(32);
  notPoint[0] = 2;
  assert.equal(isEd25519Point(notPoint), false);
  assert.equal(isValidEd25519PublicKey(notPoint), false);
  assert.equal(isValidEd25519PublicKey(new Uint8Array(31)), false);
});

test('a signer never shows its secret when serialised', () => {
  const signer = new Ed25519Signer(ed25519GenerateSecretKey());
  assert.equal(JSON.stringify({ signer }), '{"signer":"[Ed25519Signer]"}');
});
