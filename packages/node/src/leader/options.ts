/**
 * The leader's options from the node's keys (wallet/leader-keys.ts): the secret keys of the wallet's
 * notes that may lead, and the reward vouchers derived from the voucher master key, their indices kept
 * in `store`.
 */
import type { Logger } from 'pino';
import type { LeaderKeys } from '../wallet/index.ts';
import type { LeaderOptions } from './leader-service.ts';
import { VoucherGenerator, type VoucherIndexStore } from './vouchers.ts';

export function leaderOptions(keys: LeaderKeys, store: VoucherIndexStore, log: Logger): LeaderOptions {
  const { secretKeys, voucherMaster, voucherMasterKeyId } = keys;
  // inferred: without the key the node runs and passes over won slots; F requires the key id (docs/design/fidelity.md)
  if (voucherMaster === undefined && secretKeys.length > 0) {
    log.error(
      { voucher_master_key_id: voucherMasterKeyId },
      'no Zk voucher master key in the KMS: won slots cannot make blocks',
    );
  }
  log.info({ leader_keys: secretKeys.length }, 'leader keys loaded');
  return {
    secretKeys,
    vouchers: voucherMaster !== undefined ? new VoucherGenerator(voucherMaster, store) : undefined,
  };
}
