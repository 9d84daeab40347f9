/**
 * A node's Blend keys, from the keys of its key store's configuration (`kms.backend.keys`): the Ed25519
 * seed named by `blend.non_ephemeral_signing_key_id` (the Blend swarm's identity, its public key the SDP
 * provider id) and the Zk secret key named by `blend.core.zk.secret_key_kms_id` (it proves the core
 * quota). A node may name neither; a named key that is missing or of another kind stops the node.
 */
import { ConfigError } from '@logos-ts/shared/config-fields';
import { hexToBytes } from '../codec/hex.ts';
import { type Fr, frFromBytes } from '../crypto/field.ts';
import type { KmsSection } from '../kms/index.ts';
import type { BlendSection } from './config.ts';

export interface BlendKeys {
  /** The 32-byte Ed25519 seed of `blend.non_ephemeral_signing_key_id`; null when the node names none. */
  readonly signingSeed: Uint8Array | null;
  /** The Zk secret key of `blend.core.zk.secret_key_kms_id`; null when the node names none. */
  readonly zkSecret: Fr | null;
}

type Keys = KmsSection['backend']['keys'];

export function blendKeys(blend: BlendSection, keys: Keys): BlendKeys {
  const signingSeed = keyOf(
    keys,
    blend.non_ephemeral_signing_key_id,
    'Ed25519',
    'blend.non_ephemeral_signing_key_id',
  );
  const zk = keyOf(keys, blend.core_zk_secret_key_kms_id, 'Zk', 'blend.core.zk.secret_key_kms_id');
  return { signingSeed, zkSecret: zk === null ? null : frFromBytes(zk) };
}

function keyOf(keys: Keys, id: string | null, kind: 'Ed25519' | 'Zk', path: string): Uint8Array | null {
  if (id === null) return null;
  const key = keys[id];
  if (key?.kind !== kind)
    throw new ConfigError(
      `${path}: ${key === undefined ? 'no such key in kms.backend.keys' : `not ${kind === 'Zk' ? 'a Zk' : 'an Ed25519'} key`}`,
    );
  return hexToBytes(key.secret);
}
