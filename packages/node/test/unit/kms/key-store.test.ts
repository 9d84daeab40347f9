/**
 * The key store: key ids are any string (F `KeyId = String`, the preload backend's tests use
 * `blend/1`, `test1`, `test2`); signing by public key looks the key up under the hex of that public key
 * (F's wallet), with F's refusal texts; the 1..32 key bound of a ZK signature; the leader's keys are
 * the store's keys under the ids of `wallet.known_keys`.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError } from '@logos-ts/shared/config-fields';
import { bytesToHex } from '../../../src/codec/hex.ts';
import { ed25519PublicKey, ed25519Verify } from '../../../src/crypto/ed25519.ts';
import { frToBytes } from '../../../src/crypto/field.ts';
import { zkPublicKey } from '../../../src/crypto/zk-keys.ts';
import { KeyStore, KmsError, zkKeyId } from '../../../src/kms/index.ts';
import { parseUserConfig } from '../../../src/node/config.ts';
import { leaderKeys } from '../../../src/wallet/index.ts';
import { INSECURE_TEST_PROOFS, insecureTestZkSign } from '../../../src/zk/insecure-test-proofs.ts';

const edSecret = new Uint8Array(32).fill(7);
const edPk = ed25519PublicKey(edSecret);
const zkSecret = 12345n;
const zkPk = zkPublicKey(zkSecret);
const deps = { proofs: INSECURE_TEST_PROOFS };
const zkHex = bytesToHex(frToBytes(zkSecret));
const edHex = bytesToHex(edSecret);

function store() {
  return KeyStore.init(
    {
      backend: {
        keys: {
          [bytesToHex(edPk)]: { kind: 'Ed25519', secret: edHex },
          [zkKeyId(zkPk)]: { kind: 'Zk', secret: zkHex },
        },
      },
    },
    deps,
  );
}

test('serde_keys_from_yaml: key ids are any string (`test1`, `test2`, `blend/1`)', () => {
  const c = parseUserConfig(`
kms:
  backend:
    keys:
      test1: !Ed25519 ${edHex}
      test2: !Zk ${zkHex}
      blend/1: !Ed25519 ${edHex}
wallet:
  known_keys:
    test2: ${zkKeyId(zkPk)}
  voucher_master_key_id: test2
`);
  assert.deepEqual(Object.keys(c.kms.backend.keys).sort(), ['blend/1', 'test1', 'test2']);
  assert.deepEqual(c.kms.backend.keys.test2, { kind: 'Zk', secret: zkHex });
  assert.deepEqual(c.wallet.known_keys, { test2: zkKeyId(zkPk) });
  assert.equal(c.wallet.voucher_master_key_id, 'test2');
  // The store loads them: a key whose id is not its public key no longer stops the node.
  const s = KeyStore.init(c.kms, deps);
  assert.equal(s.zkSecretById('test2'), zkSecret);
  // A hex id is the same key however its case is written.
  const upper = parseUserConfig(
    `kms: { backend: { keys: { '${zkKeyId(zkPk).toUpperCase()}': !Zk ${zkHex} } } }`,
  );
  assert.deepEqual(Object.keys(upper.kms.backend.keys), [zkKeyId(zkPk)]);
});

test('a malformed secret is a config error naming the id, not the secret', () => {
  assert.throws(
    () => KeyStore.init({ backend: { keys: { 'blend/1': { kind: 'Zk', secret: 'ff'.repeat(32) } } } }, deps),
    (e) =>
      e instanceof ConfigError &&
      /kms\.backend\.keys\.blend\/1: .*not a canonical field element/.test(e.message),
  );
});

test('preload_backend / key_not_registered: signing by public key uses the key under its hex', async () => {
  const s = store();
  assert.equal(JSON.stringify({ s }), '{"s":"[KeyStore]"}');
  const msg = new Uint8Array(32).fill(3);
  assert.ok(ed25519Verify(edPk, msg, s.signEd25519(msg, edPk)));
  assert.deepEqual(await s.signZk(5n, [zkPk]), insecureTestZkSign(5n, [zkSecret]));
  assert.equal(s.hasZk(zkPk), true);
  assert.equal(s.hasEd25519(edPk), true);
  assert.equal(s.zkSecretById(zkKeyId(zkPk)), zkSecret);
  // F's texts: `WalletServiceError::KmsApi` around the KMS API's errors.
  assert.throws(
    () => s.signEd25519(msg, new Uint8Array(32)),
    (e) =>
      e instanceof KmsError &&
      e.code === 'KMS_KEY_NOT_FOUND' &&
      e.message === 'KMS API error: Failed to get signature.',
  );
  await assert.rejects(s.signZk(5n, [zkPk + 1n]), {
    message: `KMS API error: Failed to get multiple signature: NotRegisteredKeyId("${zkKeyId(zkPk + 1n)}")`,
  });
  // F `sign_zksig`: `ZkPublicKeys::try_from_iter` counts one past the bound, whatever the length.
  await assert.rejects(
    s.signZk(5n, Array(40).fill(zkPk)),
    (e) =>
      e instanceof KmsError &&
      e.code === 'KMS_KEY_COUNT' &&
      e.message === 'Item count 33 exceeds static maximum of 32',
  );
  // F: the KMS key enum's `sign_multiple` refuses an empty key list.
  await assert.rejects(s.signZk(5n, []), {
    message:
      'KMS API error: Failed to get multiple signature: KeyError(UnsupportedKey("Multi-key signature requires at least two keys."))',
  });
});

test('keys under other ids do not sign by public key; a key stored under another key does not sign for it', async () => {
  const named = KeyStore.init(
    {
      backend: {
        keys: {
          'blend/1': { kind: 'Ed25519', secret: edHex },
          test2: { kind: 'Zk', secret: zkHex },
          // The hex of zkPk + 1 names the key of zkPk.
          [zkKeyId(zkPk + 1n)]: { kind: 'Zk', secret: zkHex },
        },
      },
    },
    deps,
  );
  assert.equal(named.zkSecretById('test2'), zkSecret);
  assert.equal(named.hasEd25519(edPk), false);
  assert.throws(() => named.signEd25519(new Uint8Array(32), edPk), /Failed to get signature\./);
  await assert.rejects(named.signZk(5n, [zkPk]), /NotRegisteredKeyId/);
  await assert.rejects(named.signZk(5n, [zkPk + 1n]), /NotRegisteredKeyId/);
});

test("the leader's keys are the store's keys under the ids of wallet.known_keys", () => {
  const other = 777n;
  const s = KeyStore.init(
    {
      backend: {
        keys: {
          leader: { kind: 'Zk', secret: zkHex },
          [zkKeyId(zkPublicKey(other))]: { kind: 'Zk', secret: bytesToHex(frToBytes(other)) },
          master: { kind: 'Zk', secret: bytesToHex(frToBytes(99n)) },
        },
      },
    },
    deps,
  );
  const keys = leaderKeys(s, {
    known_keys: {
      leader: zkKeyId(zkPk),
      // Known under an id the store does not have: it plays no lottery.
      elsewhere: zkKeyId(zkPublicKey(other)),
      // An id naming a key of another public key: it plays no lottery.
      master: zkKeyId(zkPk),
    },
    voucher_master_key_id: 'master',
  });
  assert.deepEqual(keys.secretKeys, [zkSecret]);
  assert.equal(keys.voucherMaster, 99n);
  assert.equal(keys.voucherMasterKeyId, 'master');
});
