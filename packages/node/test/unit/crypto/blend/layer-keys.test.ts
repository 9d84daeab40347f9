import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { layerPublicKey, layerSign } from '../../../../src/crypto/blend/layer-keys.ts';
import { ed25519PublicKey, ed25519Sign, ed25519Verify } from '../../../../src/crypto/ed25519.ts';

test('layer keys and signatures are the bytes node:crypto gives', () => {
  for (let i = 0; i < 20; i++) {
    const seed = new Uint8Array(randomBytes(32));
    const message = new Uint8Array(randomBytes(i * 997));
    assert.deepEqual(layerPublicKey(seed), ed25519PublicKey(seed));
    const sig = layerSign(seed, message);
    assert.deepEqual(sig, ed25519Sign(seed, message));
    assert.ok(ed25519Verify(layerPublicKey(seed), message, sig));
  }
});

test('RFC 8032 test 1', () => {
  const seed = Buffer.from('9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60', 'hex');
  assert.equal(
    Buffer.from(layerPublicKey(seed)).toString('hex'),
    'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a',
  );
  assert.equal(
    Buffer.from(layerSign(seed, new Uint8Array())).toString('hex'),
    'e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b',
  );
});

test('a seed of the wrong size is refused', () => {
  assert.throws(() => layerPublicKey(new Uint8Array(31)), RangeError);
});
