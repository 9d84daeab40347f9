/**
 * The wallet's section of `user_config.yaml` (`wallet`): its type, the reference defaults and its
 * parser. The key store's section (`kms`) is parsed by `kms/config.ts`.
 */

import { hex64, int, mapping, only } from '@logos-ts/shared/config-fields';
import { keyId } from '../kms/index.ts';

export interface WalletSection {
  /** key id (any string, F `KeyId`) → ZK public key (hex). */
  readonly known_keys: Readonly<Record<string, string>>;
  readonly voucher_master_key_id: string | null;
  readonly pending_note_expiry_blocks: number;
}

export const DEFAULT_WALLET: WalletSection = {
  known_keys: {},
  voucher_master_key_id: null,
  pending_note_expiry_blocks: 10,
};

export function parseWalletSection(raw: unknown): WalletSection {
  const wallet = mapping(raw, 'wallet');
  only(wallet, ['known_keys', 'voucher_master_key_id', 'pending_note_expiry_blocks'], 'wallet');
  const known: Record<string, string> = {};
  for (const [id, pk] of Object.entries(mapping(wallet.known_keys, 'wallet.known_keys')))
    known[keyId(id, `wallet.known_keys.${id}`)] = hex64(pk, `wallet.known_keys.${id}`);
  return {
    known_keys: known,
    voucher_master_key_id:
      wallet.voucher_master_key_id == null
        ? null
        : keyId(wallet.voucher_master_key_id, 'wallet.voucher_master_key_id'),
    pending_note_expiry_blocks: int(
      wallet.pending_note_expiry_blocks,
      DEFAULT_WALLET.pending_note_expiry_blocks,
      'wallet.pending_note_expiry_blocks',
    ),
  };
}
