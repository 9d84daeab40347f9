/**
 * The wallet's and the key store's sections of `user_config.yaml` (`wallet`, `kms`): their types, the
 * reference defaults and their parser. Keys are written `!Zk <hex>` or `!Ed25519 <hex>`.
 */
import { ConfigError, hex64, int, isObj, mapping, only } from '../util/config-fields.ts';

export interface WalletSection {
  /** key id (hex) → ZK public key (hex). */
  readonly known_keys: Readonly<Record<string, string>>;
  readonly voucher_master_key_id: string | null;
  readonly pending_note_expiry_blocks: number;
}

export interface KmsSection {
  readonly backend: { readonly keys: Readonly<Record<string, { kind: 'Zk' | 'Ed25519'; secret: string }>> };
}

export const DEFAULT_WALLET: WalletSection = {
  known_keys: {},
  voucher_master_key_id: null,
  pending_note_expiry_blocks: 10,
};
export const DEFAULT_KMS: KmsSection = { backend: { keys: {} } };

export function parseWalletSection(raw: unknown): WalletSection {
  const wallet = mapping(raw, 'wallet');
  only(wallet, ['known_keys', 'voucher_master_key_id', 'pending_note_expiry_blocks'], 'wallet');
  const known: Record<string, string> = {};
  for (const [id, pk] of Object.entries(mapping(wallet.known_keys, 'wallet.known_keys')))
    known[hex64(id, `wallet.known_keys.${id}`)] = hex64(pk, `wallet.known_keys.${id}`);
  return {
    known_keys: known,
    voucher_master_key_id:
      wallet.voucher_master_key_id == null
        ? null
        : hex64(wallet.voucher_master_key_id, 'wallet.voucher_master_key_id'),
    pending_note_expiry_blocks: int(
      wallet.pending_note_expiry_blocks,
      DEFAULT_WALLET.pending_note_expiry_blocks,
      'wallet.pending_note_expiry_blocks',
    ),
  };
}

export function parseKmsSection(raw: unknown): KmsSection {
  const kms = mapping(raw, 'kms');
  only(kms, ['backend'], 'kms');
  const kb = mapping(kms.backend, 'kms.backend');
  only(kb, ['keys'], 'kms.backend');
  const keys: Record<string, { kind: 'Zk' | 'Ed25519'; secret: string }> = {};
  for (const [id, v] of Object.entries(mapping(kb.keys, 'kms.backend.keys'))) {
    const path = `kms.backend.keys.${id}`;
    if (!isObj(v) || (v.__key !== 'Zk' && v.__key !== 'Ed25519'))
      throw new ConfigError(`${path}: expected !Zk <hex> or !Ed25519 <hex>`);
    keys[hex64(id, path)] = { kind: v.__key, secret: hex64(v.secret, path) };
  }
  return { backend: { keys } };
}
