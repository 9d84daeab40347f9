/**
 * The keys the leader plays the lottery with: for each key of `wallet.known_keys` (key id → ZK public
 * key), the key store's ZK key under that id (F: the wallet hands the leader its aged notes with the
 * key id of their public key, and the leader's KMS operators run with that id,
 * `services/wallet/src/lib.rs` `get_leader_aged_notes`, `services/chain/chain-leader/src/kms.rs`); and
 * the voucher master key (the key store's ZK key named by `wallet.voucher_master_key_id`; F: the wallet
 * derives vouchers through the KMS with that key id).
 */
import { hexToBytes } from '../codec/hex.ts';
import { type Fr, frFromBytes } from '../crypto/field.ts';
import { zkPublicKey } from '../crypto/zk-keys.ts';
import type { IKms } from '../kms/index.ts';
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
  kms: Pick<IKms, 'zkSecretById'>,
  wallet: Pick<WalletSection, 'known_keys' | 'voucher_master_key_id'>,
): LeaderKeys {
  const secretKeys: Fr[] = [];
  for (const [id, pkHex] of Object.entries(wallet.known_keys)) {
    const sk = kms.zkSecretById(id);
    const pk = zkPkOf(pkHex);
    // inferred: a known key whose id names no ZK key of the store, or a key of another public key,
    // plays no lottery; F's leader finds out when its KMS call fails or its proof does not verify
    // (docs/design/fidelity.md)
    if (sk !== undefined && pk !== undefined && zkPublicKey(sk) === pk && !secretKeys.includes(sk))
      secretKeys.push(sk);
  }
  const masterId = wallet.voucher_master_key_id;
  return {
    secretKeys,
    voucherMaster: masterId !== null ? kms.zkSecretById(masterId) : undefined,
    voucherMasterKeyId: masterId,
  };
}

/** A configured ZK public key; undefined when it is not a field element (the wallet refuses it at start). */
function zkPkOf(hex: string): Fr | undefined {
  try {
    return frFromBytes(hexToBytes(hex));
  } catch {
    return undefined;
  }
}
