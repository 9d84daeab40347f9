/**
 * The wallet's persistent counters over the node's KvStore. Only the next voucher index for now
 * (F: `services/wallet/src/states.rs`, `next_new_voucher_index` of the wallet's recovery state): it is
 * written durably before a voucher with the previous index is used, so a restart never reuses an index.
 */
import { Bucket } from './buckets.ts';
import { type KvStore, readU64Key, u64Key } from './kv.ts';

const NEXT_VOUCHER_INDEX = new TextEncoder().encode('next_voucher_index');

export class WalletStore {
  constructor(private readonly kv: KvStore) {}

  /** The index of the next voucher to derive (0 on a new wallet). */
  nextVoucherIndex(): bigint {
    const v = this.kv.get(Bucket.Wallet, NEXT_VOUCHER_INDEX);
    return v === undefined ? 0n : readU64Key(v);
  }

  /** Stores the next voucher index; resolves once durable. */
  setNextVoucherIndex(index: bigint): Promise<void> {
    return this.kv.transaction((tx) => tx.put(Bucket.Wallet, NEXT_VOUCHER_INDEX, u64Key(index)));
  }
}
