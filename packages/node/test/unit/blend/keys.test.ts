/**
 * A node's Blend keys, looked up in its key store's configured keys: the Ed25519 seed and the Zk secret
 * the Blend section names, none when it names none, and a ConfigError naming the key for a missing key
 * or one of another kind.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError } from '@logos-ts/shared/config-fields';
import { DEFAULT_BLEND } from '../../../src/blend/index.ts';
import { blendKeys } from '../../../src/blend/keys.ts';
import { hexToBytes } from '../../../src/codec/hex.ts';
import { frFromBytes } from '../../../src/crypto/field.ts';

const ED = '11'.repeat(32);
const ZK = `${'05'.repeat(31)}00`;
const KEYS = {
  signing: { kind: 'Ed25519', secret: ED },
  zk: { kind: 'Zk', secret: ZK },
} as const;

test('the named keys are read: the Ed25519 seed as bytes, the Zk secret as a field element', () => {
  const keys = blendKeys(
    { ...DEFAULT_BLEND, non_ephemeral_signing_key_id: 'signing', core_zk_secret_key_kms_id: 'zk' },
    KEYS,
  );
  assert.deepEqual(keys.signingSeed, hexToBytes(ED));
  assert.equal(keys.zkSecret, frFromBytes(hexToBytes(ZK)));
});

test('a node that names no Blend key has none', () => {
  assert.deepEqual(blendKeys(DEFAULT_BLEND, KEYS), { signingSeed: null, zkSecret: null });
});

test('a missing key or a key of another kind stops the node, naming the key', () => {
  assert.throws(
    () => blendKeys({ ...DEFAULT_BLEND, non_ephemeral_signing_key_id: 'nope' }, KEYS),
    (e) =>
      e instanceof ConfigError &&
      e.message === 'blend.non_ephemeral_signing_key_id: no such key in kms.backend.keys',
  );
  assert.throws(
    () => blendKeys({ ...DEFAULT_BLEND, non_ephemeral_signing_key_id: 'zk' }, KEYS),
    (e) => e instanceof ConfigError && e.message === 'blend.non_ephemeral_signing_key_id: not an Ed25519 key',
  );
  assert.throws(
    () => blendKeys({ ...DEFAULT_BLEND, core_zk_secret_key_kms_id: 'signing' }, KEYS),
    (e) => e instanceof ConfigError && e.message === 'blend.core.zk.secret_key_kms_id: not a Zk key',
  );
});
