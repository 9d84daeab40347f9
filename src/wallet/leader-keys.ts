/**
 * The keys the leader plays the lottery with, from the configured KMS and wallet: the KMS's Zk secret
 * keys whose public keys the wallet knows, and the voucher master key (the KMS Zk key named by
 * `wallet.voucher_master_key_id`; F: the wallet derives vouchers through the KMS with that key id).
 */
import { bytesToHex, hexToBytes } from '../codec/hex.ts';
import { type Fr, frFromBytes, frToBytes } from '../crypto/field.ts';
import { zkPublicKey } from '../crypto/zk-keys.ts';
import type { KmsSection, WalletSection } from './config.ts';

export interface LeaderKeys {
  /** Secret keys of the wallet's notes that may lead. */
  readonly secretKeys: readonly Fr[];
  /** The voucher master secret key, if the KMS holds a Zk key under the configured id. */
  readonly voucherMaster: Fr | undefined;
  /** The configured voucher master key id (for messages). */
  readonly voucherMasterKeyId: string | null;
}

/** The parts of the `kms` and `wallet` configuration sections the leader's keys come from. */
export interface KeyConfig {
  readonly wallet: Pick<WalletSection, 'known_keys' | 'voucher_master_key_id'>;
  readonly kms: KmsSection;
}

export function leaderKeys(config: KeyConfig): LeaderKeys {
  const secretKeys = Object.values(config.kms.backend.keys)
    .filter((k) => k.kind === 'Zk')
    .map((k) => frFromBytes(hexToBytes(k.secret)));
  const known = new Set(Object.values(config.wallet.known_keys));
  const masterId = config.wallet.voucher_master_key_id;
  const master = masterId !== null ? config.kms.backend.keys[masterId] : undefined;
  return {
    secretKeys: secretKeys.filter((sk) => known.has(bytesToHex(frToBytes(zkPublicKey(sk))))),
    voucherMaster: master?.kind === 'Zk' ? frFromBytes(hexToBytes(master.secret)) : undefined,
    voucherMasterKeyId: masterId,
  };
}
