/**
 * The key store: key ids must be the hex of their keys' public keys (a clear config error naming the
 * id, never the secret), Ed25519 and ZK signing by public key, the 1..32 key bound of a ZK signature.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bytesToHex } from '../../../src/codec/hex.ts';
import { ed25519PublicKey, ed25519Verify } from '../../../src/crypto/ed25519.ts';
import { frToBytes } from '../../../src/crypto/field.ts';
import { zkPublicKey } from '../../../src/crypto/zk-keys.ts';
import { KeyStore, KmsError, zkKeyId } from '../../../src/kms/index.ts';
import { ConfigError } from '../../../src/util/config-fields.ts';
import { INSECURE_TEST_PROOFS, insecureTestZkSign } from '../../../src/zk/insecure-test-proofs.ts';

const edSecret = new Uint8Array(32).fill(7);
const edPk = ed25519PublicKey(edSecret);
const zkSecret = 12345n;
const zkPk = zkPublicKey(zkSecret);
const deps = { proofs: INSECURE_TEST_PROOFS };

function store() {
  return KeyStore.init(
    {
      backend: {
        keys: {
          [bytesToHex(edPk)]: { kind: 'Ed25519', secret: bytesToHex(edSecret) },
          [zkKeyId(zkPk)]: { kind: 'Zk', secret: bytesToHex(frToBytes(zkSecret)) },
        },
      },
    },
    deps,
  );
}

test('a key id that is not its public key is a config error naming the id, not the secret', () => {
  const secret = bytesToHex(frToBytes(zkSecret));
  const wrong = '11'.repeat(32);
  assert.throws(
    () => KeyStore.init({ backend: { keys: { [wrong]: { kind: 'Zk', secret } } } }, deps),
    (e) => e instanceof ConfigError && e.message.includes(wrong) && !e.message.includes(secret),
  );
  assert.throws(
    () =>
      KeyStore.init(
        { backend: { keys: { [wrong]: { kind: 'Ed25519', secret: bytesToHex(edSecret) } } } },
        deps,
      ),
    (e) => e instanceof ConfigError && /Ed25519 public key/.test(e.message),
  );
  assert.throws(
    () => KeyStore.init({ backend: { keys: { [wrong]: { kind: 'Zk', secret: 'ff'.repeat(32) } } } }, deps),
    /not a canonical field element/,
  );
});

test('signs by public key; unknown keys and more than 32 ZK keys are refused', async () => {
  const s = store();
  assert.equal(JSON.stringify({ s }), '{"s":"[KeyStore]"}');
  const msg = new Uint8Array(32).fill(3);
  assert.ok(ed25519Verify(edPk, msg, s.signEd25519(msg, edPk)));
  assert.throws(
    () => s.signEd25519(msg, new Uint8Array(32)),
    (e) => e instanceof KmsError && e.code === 'KMS_KEY_NOT_FOUND',
  );
  assert.deepEqual(await s.signZk(5n, [zkPk]), insecureTestZkSign(5n, [zkSecret]));
  await assert.rejects(
    s.signZk(5n, Array(33).fill(zkPk)),
    (e) => e instanceof KmsError && e.code === 'KMS_KEY_COUNT',
  );
  await assert.rejects(s.signZk(5n, []), /1 to 32 keys, got 0/);
  await assert.rejects(s.signZk(5n, [zkPk + 1n]), /no ZK key/);
  assert.equal(s.hasZk(zkPk), true);
  assert.deepEqual(s.zkSecretKeys([zkPk, 1n]), [zkSecret]);
  assert.equal(s.zkSecretById(zkKeyId(zkPk)), zkSecret);
});
