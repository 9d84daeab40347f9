/**
 * The key store's section of `user_config.yaml` (`kms`): its type, the reference default and its
 * parser. Keys are written `<key id>: !Zk <hex>` or `<key id>: !Ed25519 <hex>`; the key id is the hex
 * of the key's public key (checked when the key store loads them, `key-store.ts`).
 */
import { ConfigError, hex64, isObj, mapping, only } from '../util/config-fields.ts';

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
    keys[hex64(id, path)] = { kind: v.__key, secret: hex64(v.secret, path) };
  }
  return { backend: { keys } };
}
