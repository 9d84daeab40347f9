/**
 * The wallet's leader-reward vouchers and their states (F: `services/wallet/src/states.rs`
 * `claimable_vouchers`, `PendingClaims`). The vouchers are the ones the leader handed out: indices
 * 0 .. next voucher index − 1 under the voucher master key (leader/vouchers.ts). At a tip each is
 *
 * - `claimed`: its nullifier is in the ledger's voucher nullifiers;
 * - `reserved`: a claim of it was submitted and has not expired (pending claims are kept in the wallet
 *   store and expire after `security_param` blocks of LIB progress, as F's);
 * - `available`: its commitment is a leaf of the epoch's voucher snapshot, so a proof of claim can be made;
 * - `not_yet_provable`: none of these (its block is not in the snapshot yet, or left the canonical chain).
 */
import type { IChain } from '../chain/index.ts';
import { bytesToHex } from '../codec/hex.ts';
import { type Fr, frFromBytes, frToBytes } from '../crypto/field.ts';
import { type Voucher, voucherCommitment, voucherNullifier, voucherSecret } from '../leader/index.ts';
import type { LedgerState } from '../ledger/state.ts';
import { VoucherLeaves } from './voucher-leaves.ts';

export type VoucherStatus = 'available' | 'reserved' | 'not_yet_provable' | 'claimed';

export interface OwnVoucher extends Voucher {
  readonly nullifier: Fr;
}

export interface VoucherView extends OwnVoucher {
  readonly status: VoucherStatus;
  /** Its leaf position on the canonical chain, if its block is there. */
  readonly position: number | undefined;
}

/** The wallet store's part the voucher book reads and writes. */
export interface VoucherStore {
  nextVoucherIndex(): bigint;
  pendingClaims(): { nullifier: Uint8Array; libHeight: bigint }[];
  addPendingClaim(nullifier: Uint8Array, libHeight: bigint): Promise<void>;
  removePendingClaims(nullifiers: readonly Uint8Array[]): Promise<void>;
}

export class VoucherBook {
  readonly #derived: OwnVoucher[] = [];
  readonly #leaves: VoucherLeaves;

  constructor(
    private readonly masterKey: Fr | undefined,
    private readonly store: VoucherStore,
    private readonly chain: Pick<IChain, 'tip' | 'lib' | 'block' | 'genesis' | 'config'>,
  ) {
    this.#leaves = new VoucherLeaves(chain);
  }

  /** Every voucher the leader handed out, in index order. */
  vouchers(): readonly OwnVoucher[] {
    if (this.masterKey === undefined) return [];
    const next = this.store.nextVoucherIndex();
    for (let i = BigInt(this.#derived.length); i < next; i++) {
      const secret = voucherSecret(this.masterKey, i);
      this.#derived.push({
        index: i,
        secret,
        cm: voucherCommitment(secret),
        nullifier: voucherNullifier(secret),
      });
    }
    return this.#derived.slice(0, Number(next));
  }

  /**
   * Nullifiers of the pending claims that have not expired, with the expired ones. F counts the newly
   * immutable blocks of each LIB update; the LIB height difference is the same count.
   */
  #pending(): { live: Set<Fr>; expired: Uint8Array[] } {
    const k = BigInt(this.chain.config.consensus.security_param);
    const lib = BigInt(this.chain.lib().height);
    const live = new Set<Fr>();
    const expired: Uint8Array[] = [];
    for (const p of this.store.pendingClaims()) {
      if (lib - p.libHeight >= k) expired.push(p.nullifier);
      else live.add(frFromBytes(p.nullifier));
    }
    return { live, expired };
  }

  /** Each voucher with its state at the tip `state` (the chain's tip). */
  view(state: LedgerState = this.chain.tip().state): VoucherView[] {
    const own = this.vouchers();
    if (own.length === 0) return [];
    this.#leaves.sync();
    const { live } = this.#pending();
    // inferred: at a past `tip` the snapshot and nullifiers are that block's; the reservations and the
    // canonical positions are the current ones (docs/design/fidelity.md)
    const count = state.leader.snapshot.count;
    return own.map((v) => {
      const position = this.#leaves.positionOf(v.cm);
      const status: VoucherStatus = state.leader.nullifiers.has(v.nullifier)
        ? 'claimed'
        : live.has(v.nullifier)
          ? 'reserved'
          : position !== undefined && position < count
            ? 'available'
            : 'not_yet_provable';
      return { ...v, status, position };
    });
  }

  /** The voucher tree leaves of the tip's epoch snapshot (for a Merkle path). */
  snapshotLeaves(state: LedgerState): readonly Fr[] {
    this.#leaves.sync();
    return this.#leaves.leaves(state.leader.snapshot.count);
  }

  /** Records a claim of `nullifier` as pending (durably), first forgetting the expired ones. */
  async reserve(nullifier: Fr): Promise<void> {
    const { expired } = this.#pending();
    if (expired.length > 0) await this.store.removePendingClaims(expired);
    await this.store.addPendingClaim(frToBytes(nullifier), BigInt(this.chain.lib().height));
  }

  /** Forgets a pending claim (its transaction was not submitted). */
  release(nullifier: Fr): Promise<void> {
    return this.store.removePendingClaims([frToBytes(nullifier)]);
  }
}

/** A voucher's id in messages: its commitment in hex. */
export const voucherLabel = (v: Pick<OwnVoucher, 'cm'>): string => bytesToHex(frToBytes(v.cm));
