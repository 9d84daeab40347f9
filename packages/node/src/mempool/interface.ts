/**
 * What the rest of the node sees of the mempool: `IMempool`. The API, the wallet, the leader and the
 * network to come depend on this interface, not on the service class.
 */
import type { EventEmitter } from 'node:events';
import type { SignedMantleTx } from '../mantle/tx.ts';

/**
 * Where a transaction came from: a local submission (HTTP, wallet), a reorg, a transaction that left
 * Blend at this node (`blend`, it was unwrapped here), or a peer's gossip (`network`). Every origin but
 * `network` is F's `MempoolMsg::Add` (`services/tx-service/src/tx/service.rs`): it is gossiped when
 * added and gossiped again when already pending; gossip is F's network stream, which does neither.
 */
export type TxOrigin = 'api' | 'wallet' | 'reorg' | 'blend' | 'network';

/** `added`: new in the pool; `duplicate`: it was already pending (nothing changed). */
export type AddOutcome = 'added' | 'duplicate';

export interface AddResult {
  readonly hash: Uint8Array;
  readonly outcome: AddOutcome;
  /** Added: whether it applies on the view (else it is kept apart: it spends what is not there). */
  readonly applies?: boolean;
}

/** `GET /mantle/metrics`. */
export interface MempoolMetrics {
  readonly pending_items: number;
  /** ms since the Unix epoch of the latest addition; 0 if none was ever added. */
  readonly last_item_timestamp: number;
}

export interface MempoolEvents {
  /** A transaction entered the pool (to be shared with the network). */
  added: [{ hash: Uint8Array; tx: SignedMantleTx; origin: TxOrigin }];
  /**
   * A transaction already pending was added again from any origin but gossip (`network`): nothing
   * changed, but the network shares it again so that leaders pick it up (F `handle_add_message`
   * re-gossips on `ExistingItem`).
   */
  resubmitted: [{ hash: Uint8Array; tx: SignedMantleTx; origin: TxOrigin }];
}

export interface IMempool extends Pick<EventEmitter<MempoolEvents>, 'on' | 'once' | 'off'> {
  /**
   * Preverifies the transaction (structure, signatures and proofs, the proofs off the event loop) and
   * adds it. A transaction already pending answers `duplicate`. Throws `LedgerError` when preverification
   * fails and `MempoolError` when it is too large or the pool is full; nothing changes then.
   */
  add(tx: SignedMantleTx, origin: TxOrigin): Promise<AddResult>;
  /** Whether a transaction is pending. */
  has(hash: Uint8Array): boolean;
  /** A pending transaction. */
  get(hash: Uint8Array): SignedMantleTx | undefined;
  /** Hashes of the pending transactions that can be included on top of the current tip, in FIFO order. */
  view(): Uint8Array[];
  /**
   * The transactions a proposal's 16-byte reference may mean: the pending ones whose hash starts with
   * it, or else those canonical blocks included in the last 10 minutes.
   */
  byPrefix(prefix: Uint8Array): SignedMantleTx[];
  /** Block candidates in FIFO order (the leader's `TransactionSource`). */
  candidates(): Iterable<SignedMantleTx>;
  /** Drops transactions that can never apply (found while building a block). */
  evict(hashes: Iterable<Uint8Array>): void;
  metrics(): MempoolMetrics;
}
