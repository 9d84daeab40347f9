/**
 * The key store's section of `user_config.yaml` (`kms`): its type, the reference default and its
 * parser. Keys are written `<key id>: !Zk <hex>` or `<key id>: !Ed25519 <hex>`; a key id is any string
 * (F `KeyId = String`, `services/key-management-system/src/backend/preload.rs`). The node's own tools
 * name keys by the hex of their public key, the id the wallet's signing endpoints look keys up by.
 */
import { ConfigError, hex64, isObj, mapping, only } from '@logos-ts/shared/config-fields';

/**
 * A key id as configured: any string. One of 64 hex characters is lower-cased (and one YAML read as an
 * integer is its digits), so the hex of a public key names the same key however it is written.
 */
export function keyId(raw: unknown, path: string): string {
  if (typeof raw === 'bigint' || (typeof raw === 'string' && /^[0-9a-fA-F]{64}$/.test(raw)))
    return hex64(raw, path);
  if (typeof raw !== 'string') throw new ConfigError(`${path}: expected a key id (a string)`);
  return raw;
}

export type KeyKind = 'Zk' | 'Ed25519';

export interface KmsSection {
  readonly backend: { readonly keys: Readonly<Record<string, { kind: KeyKind; secret: string }>> };
}

export const DEFAULT_KMS: KmsSection = { backend: { keys: {} } };

export function parseKmsSection(raw: unknown): KmsSection {
  const kms = mapping(raw, 'kms');
  only(kms, ['backend'], 'kms');
  const kb = mapping(kms.backend, 'kms.backend');
  only(kb, ['keys'], 'kms.backend');
  const keys: Record<string, { kind: KeyKind; secret: string }> = {};
  for (const [id, v] of Object.entries(mapping(kb.keys, 'kms.backend.keys'))) {
    const path = `kms.backend.keys.${id}`;
    if (!isObj(v) || (v.__key !== 'Zk' && v.__key !== 'Ed25519'))
      throw new ConfigError(`${path}: expected !Zk <hex> or !Ed25519 <hex>`);
    keys[keyId(id, path)] = { kind: v.__key, secret: hex64(v.secret, path) };
  }
  return { backend: { keys } };
}
