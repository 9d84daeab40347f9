/**
 * The keys the leader plays the lottery with: the key store's ZK secret keys whose public keys the
 * wallet knows (`wallet.known_keys`), and the voucher master key (the key store's ZK key named by
 * `wallet.voucher_master_key_id`; F: the wallet derives vouchers through the KMS with that key id).
 */
import { hexToBytes } from '../codec/hex.ts';
import { type Fr, frFromBytes } from '../crypto/field.ts';
import type { KeyStore } from '../kms/index.ts';
import type { WalletSection } from './config.ts';

export interface LeaderKeys {
  /** Secret keys of the wallet's notes that may lead. */
  readonly secretKeys: readonly Fr[];
  /** The voucher master secret key, if the key store holds a ZK key under the configured id. */
  readonly voucherMaster: Fr | undefined;
  /** The configured voucher master key id (for messages). */
  readonly voucherMasterKeyId: string | null;
}

export function leaderKeys(
  kms: KeyStore,
  wallet: Pick<WalletSection, 'known_keys' | 'voucher_master_key_id'>,
): LeaderKeys {
  const knownPks = Object.values(wallet.known_keys).map((hex) => frFromBytes(hexToBytes(hex)));
  const masterId = wallet.voucher_master_key_id;
  return {
    secretKeys: kms.zkSecretKeys(knownPks),
    voucherMaster: masterId !== null ? kms.zkSecretById(masterId) : undefined,
    voucherMasterKeyId: masterId,
  };
}
