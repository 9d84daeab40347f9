/**
 * The wallet's persistent counters over the node's KvStore (F: `services/wallet/src/states.rs`, the
 * wallet's recovery state): the next voucher index, written durably before a voucher with the previous
 * index is used, so a restart never reuses an index; and the pending leader-reward claims (voucher
 * nullifier → LIB height when the claim was submitted), so a restart never claims a voucher twice.
 */
import { Bucket } from './buckets.ts';
import { type KvStore, readU64Key, u64Key } from './kv.ts';

const NEXT_VOUCHER_INDEX = new TextEncoder().encode('next_voucher_index');
const PENDING_CLAIM = new TextEncoder().encode('pending_claim/');

function pendingClaimKey(nullifier: Uint8Array): Uint8Array {
  const key = new Uint8Array(PENDING_CLAIM.length + nullifier.length);
  key.set(PENDING_CLAIM);
  key.set(nullifier, PENDING_CLAIM.length);
  return key;
}

/** The key right after every `pending_claim/…` key (`/` + 1 is `0`). */
const PENDING_CLAIM_END = new TextEncoder().encode('pending_claim0');

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

  /** Pending leader-reward claims: voucher nullifier (32 bytes) → LIB height when reserved. */
  pendingClaims(): { nullifier: Uint8Array; libHeight: bigint }[] {
    const out: { nullifier: Uint8Array; libHeight: bigint }[] = [];
    for (const [k, v] of this.kv.range(Bucket.Wallet, { gte: PENDING_CLAIM, lt: PENDING_CLAIM_END }))
      out.push({ nullifier: k.slice(PENDING_CLAIM.length), libHeight: readU64Key(v) });
    return out;
  }

  /** Records a pending claim; resolves once durable. */
  addPendingClaim(nullifier: Uint8Array, libHeight: bigint): Promise<void> {
    return this.kv.transaction((tx) => tx.put(Bucket.Wallet, pendingClaimKey(nullifier), u64Key(libHeight)));
  }

  /** Forgets pending claims (expired, or the claim could not be submitted); resolves once durable. */
  removePendingClaims(nullifiers: readonly Uint8Array[]): Promise<void> {
    return this.kv.transaction((tx) => {
      for (const n of nullifiers) tx.del(Bucket.Wallet, pendingClaimKey(n));
    });
  }
}
