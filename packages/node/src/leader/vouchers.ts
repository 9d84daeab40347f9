/**
 * Leader reward vouchers of the node's wallet. Each produced block commits to a fresh voucher:
 * `voucher_secret = Poseidon2.digest([voucher master key, index])` (F: `kms/operators/src/zk/voucher.rs`,
 * the index a u64 taken as a field element) with `index` the wallet's next voucher index, and
 * `voucher_cm = Poseidon2.compress([REWARD_VOUCHER, voucher_secret])` (F: `core/src/mantle/ops/leader_claim.rs`).
 * A wallet holding the same master key thus finds the same vouchers by walking the indices from 0.
 * A claim reveals `voucher_nullifier = Poseidon2.compress([VOUCHER_NF, voucher_secret])` (same file of F).
 */
import { type Fr, frFromAscii } from '../crypto/field.ts';
import { compress, digest } from '../crypto/poseidon2/index.ts';

export const REWARD_VOUCHER = frFromAscii('REWARD_VOUCHER');
export const VOUCHER_NF = frFromAscii('VOUCHER_NF');

/** The voucher secret of `index` under `masterKey`. */
export function voucherSecret(masterKey: Fr, index: bigint): Fr {
  return digest([masterKey, index]);
}

/** The commitment a block header carries for a voucher secret. */
export function voucherCommitment(secret: Fr): Fr {
  return compress(REWARD_VOUCHER, secret);
}

/** The nullifier a claim of the voucher reveals. */
export function voucherNullifier(secret: Fr): Fr {
  return compress(VOUCHER_NF, secret);
}

/** Where the next voucher index is kept (durably). */
export interface VoucherIndexStore {
  nextVoucherIndex(): bigint;
  setNextVoucherIndex(index: bigint): Promise<void>;
}

export interface Voucher {
  readonly index: bigint;
  readonly secret: Fr;
  readonly cm: Fr;
}

/** Hands out the wallet's vouchers in index order, never the same index twice (across restarts too). */
export class VoucherGenerator {
  #next: bigint;

  constructor(
    private readonly masterKey: Fr,
    private readonly store: VoucherIndexStore,
  ) {
    this.#next = store.nextVoucherIndex();
  }

  /** The next voucher; its index is consumed (stored as used) before it is returned. */
  async next(): Promise<Voucher> {
    const index = this.#next;
    this.#next = index + 1n;
    await this.store.setNextVoucherIndex(index + 1n);
    const secret = voucherSecret(this.masterKey, index);
    return { index, secret, cm: voucherCommitment(secret) };
  }
}
