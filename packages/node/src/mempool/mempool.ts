/**
 * The mempool service (F: `services/tx-service`): admission of transactions from every entry point,
 * the pending pool (FIFO, duplicates, prefixes, TTL, bounds: pool.ts), its persistence, the view on
 * top of the tip (view.ts), block candidates, and the reconciliation with the chain (removal on
 * inclusion, re-insertion after a reorg).
 *
 * Admission: the stateless checks (`preverifyTx`, Ed25519 signatures on this thread), the proofs they
 * record, and the ZkSig proofs of the transaction as it applies on top of the current view, all verified
 * off the event loop (the verifier pool behind `proofs`); then the size and the pool's bounds, then the
 * durable write; only then is it pending. A transaction that does not apply on the view (it spends a
 * note that does not exist there, a note spent already, ...) is admitted as the reference admits it,
 * but apart: such transactions are bounded by `maxUnapplied` (the oldest goes when a new one comes),
 * leave when they are older than `UNAPPLIED_TTL_MS` and whenever this node builds a block; their ZkSig
 * proofs are verified once they apply, and until then they are neither in the view nor candidates.
 * A transaction that applies releases those that waited for a note it creates (nothing else is tried
 * again): admission costs what it touches, not the size of the pool.
 */

import { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import type { IChain, ProcessedBlock } from '../chain/index.ts';
import { bytesEqual, bytesToHex } from '../codec/hex.ts';
import { executeTx, type TxOutcome } from '../ledger/apply.ts';
import { DeferredProofChecks } from '../ledger/deferred-proofs.ts';
import { Draft, type LedgerContext } from '../ledger/draft.ts';
import { advanceEpoch } from '../ledger/epoch.ts';
import { NoteNotFound } from '../ledger/errors.ts';
import { preverifyTx } from '../ledger/preverify.ts';
import { PROOFS_ALREADY_VERIFIED, type ProofSystem } from '../ledger/proof-system.ts';
import { encodeSignedTx, type SignedMantleTx, txHash } from '../mantle/tx.ts';
import type { MempoolStore } from '../storage/mempool-store.ts';
import type { Meter } from '../util/meter.ts';
import type { MempoolConfig } from './config.ts';
import type { AddResult, IMempool, MempoolEvents, MempoolMetrics, TxOrigin } from './interface.ts';
import { type PendingTx, TxPool } from './pool.ts';
import { RecentlyIncluded } from './recently-included.ts';
import { PendingView } from './view.ts';

export interface MempoolDeps {
  readonly chain: IChain;
  /** Verifies the recorded proofs (the verifier pool for Groth16, the test backend in tests). */
  readonly proofs: ProofSystem;
  readonly store: MempoolStore;
  readonly logger: Logger;
  readonly signal?: AbortSignal;
  /** The clock (ms since the epoch); tests move it. */
  readonly now?: () => number;
  /** Counts the transactions that leave (absent: not counted). */
  readonly meter?: Meter;
}

/**
 * How long a pending transaction that does not apply on the view is kept.
 * inferred: F keeps every pending transaction for the TTL (24 h on its deployments) (docs/design/fidelity.md)
 */
export const UNAPPLIED_TTL_MS = 5 * 60_000;

/** Whether an origin is F's `MempoolMsg::Add` (everything but a peer's gossip): it is gossiped. */
const isAdd = (o: TxOrigin) => o !== 'network';

export class Mempool extends EventEmitter<MempoolEvents> implements IMempool {
  private readonly pool: TxPool;
  /** What canonical blocks included lately: proposals referencing it still rebuild. */
  private readonly included = new RecentlyIncluded();
  private readonly seqOf = new Map<string, bigint>();
  /** Pending transactions whose ZkSig proofs are not verified yet (they did not apply on the view). */
  private readonly unverified = new Set<string>();
  /** Verifications of such transactions under way. */
  private readonly verifying = new Set<string>();
  /** Admissions under way, by tx hash (a second submission waits for the first). */
  private readonly inFlight = new Map<string, Promise<AddResult>>();
  private pendingView: PendingView | undefined;
  private readonly maxUnapplied: number;
  private closed = false;
  private readonly now: () => number;
  private readonly onBlock = (b: ProcessedBlock) => this.reconcile(b);

  private constructor(
    config: MempoolConfig,
    private readonly deps: MempoolDeps,
  ) {
    super();
    this.pool = new TxPool({
      maxCount: config.maxPendingTxs,
      maxBytes: config.maxPendingBytes,
      ttlMs: config.txTtlMs,
    });
    this.maxUnapplied = config.maxUnappliedTxs;
    this.now = deps.now ?? Date.now;
  }

  /**
   * Reloads the stored pending transactions in FIFO order with their insertion times (the TTL keeps
   * counting), drops those the canonical chain included meanwhile, and follows the chain's blocks.
   */
  static async init(config: MempoolConfig, deps: MempoolDeps): Promise<Mempool> {
    const m = new Mempool(config, deps);
    await m.restore();
    deps.chain.on('block', m.onBlock);
    deps.signal?.addEventListener('abort', () => m.close(), { once: true });
    return m;
  }

  private async restore(): Promise<void> {
    const { txs, damaged, lastItemTimestamp } = this.deps.store.load();
    const drop: (bigint | Uint8Array)[] = [...damaged];
    for (const s of txs) {
      const key = bytesToHex(s.hash);
      if (this.deps.chain.transactionLocation(s.hash) !== undefined || this.pool.has(s.hash)) {
        drop.push(s.seq);
        continue;
      }
      try {
        this.pool.add(s.hash, s.tx, s.size, s.insertedAtMs);
      } catch {
        drop.push(s.seq); // the bounds were lowered since it was stored
        continue;
      }
      this.seqOf.set(key, s.seq);
      // Its ZkSig statements are only known on a state: they are verified again, in the background,
      // once it applies on the view; until then it is not a candidate.
      if (!this.isFullyVerifiable(s.tx)) this.unverified.add(key);
    }
    if (damaged.length > 0)
      this.deps.logger.warn({ entries: damaged.length }, 'undecodable stored mempool entries dropped');
    await this.deps.store.remove(drop);
    this.pool.restoreLastItemTimestamp(lastItemTimestamp);
    this.deps.logger.info({ pending: this.pool.size, dropped: drop.length }, 'mempool restored');
  }

  /** Whether a transaction has no ZkSig proofs (its preverify proofs say all). */
  private isFullyVerifiable(tx: SignedMantleTx): boolean {
    return tx.ops_proofs.every((p) => p.type !== 'ZkSig' && p.type !== 'ZkAndEd25519Sigs');
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.deps.chain.off('block', this.onBlock);
  }

  // ---------- admission ----------

  add(tx: SignedMantleTx, origin: TxOrigin): Promise<AddResult> {
    const hash = txHash(tx.mantle_tx);
    const key = bytesToHex(hash);
    const running = this.inFlight.get(key);
    if (this.pool.has(hash) || running) return this.again(hash, tx, origin, running);
    const p = this.admit(hash, key, tx, origin).finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, p);
    return p;
  }

  /**
   * A transaction whose hash is pending or being admitted. The hash does not cover the proofs, so its
   * stateless checks run first, as F's decoding runs them before the pool sees a duplicate.
   */
  // inferred: the order of the checks (docs/design/fidelity.md)
  private async again(
    hash: Uint8Array,
    tx: SignedMantleTx,
    origin: TxOrigin,
    running: Promise<AddResult> | undefined,
  ): Promise<AddResult> {
    const checks = new DeferredProofChecks();
    preverifyTx(tx, checks);
    await checks.settle(this.deps.proofs);
    if (running) await running;
    return this.duplicate(hash, tx, origin);
  }

  private duplicate(hash: Uint8Array, tx: SignedMantleTx, origin: TxOrigin): AddResult {
    // F `handle_add_message`: an `Add` of a pending transaction (API, wallet, reorg, Blend exit) is
    // gossiped again so that leaders pick it up; a gossiped duplicate is only traced.
    if (isAdd(origin)) this.emit('resubmitted', { hash, tx, origin });
    return { hash, outcome: 'duplicate' };
  }

  private async admit(
    hash: Uint8Array,
    key: string,
    tx: SignedMantleTx,
    origin: TxOrigin,
  ): Promise<AddResult> {
    if (this.closed) throw new Error('the mempool is closed');
    // Stateless checks; the PoC proofs they need are recorded, Ed25519 signatures checked here.
    const checks = new DeferredProofChecks();
    preverifyTx(tx, checks);
    const encoded = encodeSignedTx(tx);
    const size = encoded.length;
    // The ZkSig statements: the transaction applied on top of the view (the notes it spends).
    // inferred: F checks ZkSig proofs only when a block is built; here they are checked on admission too,
    // so a forged one is refused at once (docs/design/fidelity.md)
    const view = this.currentView();
    const trial = new Draft(view.state());
    const created: bigint[] = [];
    trial.created = created;
    let outcome: TxOutcome | undefined;
    try {
      outcome = executeTx(trial, this.ctx(checks), tx, view.slot, { preverified: hash, size: BigInt(size) });
    } catch {
      // Not applicable on the view (yet): admitted apart, without a ledger check, as the reference does.
    } finally {
      trial.created = null;
    }
    const applies = outcome !== undefined;
    const seen = view.version;
    await checks.settle(this.deps.proofs);
    if (this.closed) throw new Error('the mempool is closed');
    if (this.pool.has(hash)) return this.duplicate(hash, tx, origin);
    this.pool.checkRoom(size);
    if (!applies) this.makeRoomApart();
    const seq = this.deps.store.nextSeq();
    const at = this.now();
    await this.deps.store.add(seq, hash, tx, at, encoded);
    try {
      this.pool.add(hash, tx, size, at);
    } catch (e) {
      // The pool filled up while the transaction was being written.
      await this.deps.store.remove([seq]);
      throw e;
    }
    this.seqOf.set(key, seq);
    if (!applies && !this.isFullyVerifiable(tx)) this.unverified.add(key);
    const item = this.pool.get(hash)!;
    const v = this.currentView(); // computed again if the tip changed meanwhile (the item with it)
    if (!v.applied.has(key) && !v.isUnapplied(key)) {
      if (outcome && v === view && v.version === seen)
        this.placeAll(v, view.adopt(item, trial, created, outcome));
      else this.placeAll(v, [item]);
    }
    this.emit('added', { hash, tx, origin });
    return { hash, outcome: 'added', applies: v.applied.has(key) };
  }

  /**
   * Room for one more transaction that does not apply: the oldest of them leaves when there are
   * `maxUnapplied` (those past `UNAPPLIED_TTL_MS` too).
   */
  private makeRoomApart(): void {
    const v = this.currentView();
    const now = this.now();
    const gone: Uint8Array[] = [];
    let count = v.unappliedCount;
    for (const item of v.unappliedItems()) {
      const old = now - item.insertedAtMs >= UNAPPLIED_TTL_MS;
      if (!old && count < this.maxUnapplied) break;
      if (this.verifying.has(bytesToHex(item.hash))) continue;
      gone.push(item.hash);
      count--;
    }
    if (gone.length === 0) return;
    this.deps.logger.debug({ txs: gone.length }, 'pending transactions that do not apply dropped for room');
    this.drop(gone);
  }

  private ctx(proofs: LedgerContext['proofs']): LedgerContext {
    return { config: this.deps.chain.config, proofs };
  }

  // ---------- the view ----------

  /**
   * The view on top of the current tip, computed again when the tip changed and the view could not be
   * moved onto it (`rebaseView`), or a transaction it includes left the pool: the pending transactions
   * applied in FIFO order in rounds, as F's block proposal does (the specification's "can be included
   * on top of the current tip"; F's view lists every pending transaction). Those whose proofs are not
   * verified yet are verified when they apply.
   * inferred: the rounds and the exclusion of transactions whose proofs are not verified yet (docs/design/fidelity.md)
   */
  private currentView(): PendingView {
    const v = this.pendingView;
    if (v && !v.stale && v.head === this.deps.chain.headVersion) return v;
    const tip = this.deps.chain.tip();
    const slot = tip.slot + 1n;
    const draft = new Draft(tip.state);
    advanceEpoch(draft, this.deps.chain.config, slot);
    const { view, held } = PendingView.compute(
      this.deps.chain.headVersion,
      tip.id,
      draft,
      slot,
      this.pool.view(),
      this.ctx(PROOFS_ALREADY_VERIFIED),
      (i) => !this.unverified.has(bytesToHex(i.hash)),
    );
    this.pendingView = view;
    for (const item of held) this.verifyLater(item, view);
    return view;
  }

  /**
   * Places transactions on the view, and in turn those each releases (the ones that waited for a note
   * it creates). A transaction whose proofs are not verified is verified if it applies, kept apart
   * meanwhile.
   */
  private placeAll(v: PendingView, items: PendingTx[]): void {
    const ctx = this.ctx(PROOFS_ALREADY_VERIFIED);
    for (let i = 0; i < items.length; i++) {
      const item = items[i]!;
      if (!this.pool.has(item.hash)) continue;
      if (this.unverified.has(bytesToHex(item.hash))) {
        v.park(item, this.verifyLater(item, v));
        continue;
      }
      items.push(...v.place(item, ctx).released);
    }
  }

  /**
   * Starts the verification of the ZkSig proofs of a pending transaction if it applies on the view;
   * when they verify it is placed on the view (if still current), when they fail it is dropped. Returns
   * the note it lacks when it does not apply for want of one.
   */
  private verifyLater(item: PendingTx, view: PendingView): bigint | undefined {
    const key = bytesToHex(item.hash);
    if (this.verifying.has(key)) return undefined;
    const checks = new DeferredProofChecks();
    try {
      executeTx(new Draft(view.state()), this.ctx(checks), item.tx, view.slot, {
        preverified: item.hash,
        size: BigInt(item.size),
      });
    } catch (e) {
      return e instanceof NoteNotFound ? e.note : undefined;
    }
    this.verifying.add(key);
    void checks
      .settle(this.deps.proofs)
      .then(
        () => {
          if (!this.unverified.delete(key) || !this.pool.has(item.hash)) return;
          const v = this.pendingView;
          if (v && !v.stale && v.head === this.deps.chain.headVersion && v.isUnapplied(key))
            this.placeAll(v, [item]);
        },
        (e: Error) => {
          if (!this.pool.has(item.hash)) return;
          this.deps.logger.info(
            { tx: key, err: e.message },
            'pending transaction dropped: a proof does not verify',
          );
          this.drop([item.hash]);
        },
      )
      .finally(() => this.verifying.delete(key));
    return undefined;
  }

  view(): Uint8Array[] {
    const keys = this.currentView().applied;
    const out: Uint8Array[] = [];
    for (const p of this.pool.view()) if (keys.has(bytesToHex(p.hash))) out.push(p.hash);
    return out;
  }

  candidates(): Iterable<SignedMantleTx> {
    // Transactions waiting for their proofs: the view starts the verification of those that apply now.
    if (this.unverified.size > 0) this.currentView();
    const out: SignedMantleTx[] = [];
    for (const p of this.pool.view()) if (!this.unverified.has(bytesToHex(p.hash))) out.push(p.tx);
    return out;
  }

  has(hash: Uint8Array): boolean {
    return this.pool.has(hash);
  }

  get(hash: Uint8Array): SignedMantleTx | undefined {
    return this.pool.get(hash)?.tx;
  }

  /**
   * The transactions a proposal's reference `prefix` may mean: the pending ones, or else those that
   * canonical blocks included in the last 10 minutes (recently-included.ts).
   */
  byPrefix(prefix: Uint8Array): SignedMantleTx[] {
    const pending = this.pool.byHashPrefix(prefix).map((p) => p.tx);
    return pending.length > 0 ? pending : this.included.byHashPrefix(prefix, this.now());
  }

  metrics(): MempoolMetrics {
    return { pending_items: this.pool.size, last_item_timestamp: this.pool.lastItemTimestamp ?? 0 };
  }

  /** Pending transactions (count) whose ZkSig proofs wait for them to apply. */
  get unverifiedCount(): number {
    return this.unverified.size;
  }

  /** Pending transactions (count) that do not apply on the current view. */
  get unappliedCount(): number {
    return this.currentView().unappliedCount;
  }

  /**
   * After this node built a block: the candidates that never applied, in any round, on the block's parent
   * (the tip) leave, as F evicts every pending transaction that never applied while building; so do all
   * pending transactions that do not apply on the view (the candidates are only the verified ones),
   * except those whose proofs are being verified (what waits for them may be about to apply).
   * inferred: F has no view; it evicts what its rounds left (docs/design/fidelity.md)
   */
  evict(hashes: Iterable<Uint8Array>): void {
    const never = [...hashes].filter((h) => this.pool.has(h));
    if (never.length > 0)
      this.deps.logger.debug(
        { txs: never.map(bytesToHex) },
        'pending transactions that never applied evicted',
      );
    this.drop(never);
    const apart = [...this.currentView().unappliedItems()]
      .filter((p) => !this.verifying.has(bytesToHex(p.hash)))
      .map((p) => p.hash);
    if (apart.length > 0) {
      this.deps.logger.debug(
        { txs: apart.map(bytesToHex) },
        'pending transactions that do not apply evicted',
      );
      this.drop(apart);
    }
  }

  /**
   * Removes transactions (and those past the TTL); their stored entries are deleted.
   * inferred: deleted at once, F keeps removed bodies 10 minutes (docs/design/fidelity.md)
   */
  private drop(hashes: Iterable<Uint8Array>): void {
    const list = [...hashes];
    const gone = [...list.filter((h) => this.pool.has(h)), ...this.pool.remove(list, this.now())];
    if (gone.length === 0) return;
    this.deps.meter?.count('mempool_transactions_removed_total', gone.length);
    const seqs: bigint[] = [];
    for (const h of gone) {
      const key = bytesToHex(h);
      const seq = this.seqOf.get(key);
      if (seq !== undefined) seqs.push(seq);
      this.seqOf.delete(key);
      this.unverified.delete(key);
      this.pendingView?.remove(key);
    }
    this.deps.store.remove(seqs).catch((e: Error) => {
      this.deps.logger.error({ err: e.message }, 'removed transactions could not be deleted from storage');
    });
  }

  // ---------- the chain ----------

  /**
   * A block was applied. The transactions of the blocks that joined the canonical chain leave the pool,
   * those of the blocks that left it are added again, oldest block first, unless the new branch
   * includes them too (F chain-network `apply_block_and_reconcile_mempool`); TTL eviction runs with
   * the removal. A block on a side branch changes nothing. The chain reads the abandoned blocks before
   * it deletes a dead fork, so a reorg that moves the LIB past the fork point re-inserts them as well.
   * inferred: F removes the new tip block's transactions only and re-inserts every transaction of the
   * abandoned blocks, even one the new branch includes (docs/design/fidelity.md)
   */
  private reconcile(b: ProcessedBlock): void {
    if (this.closed || b.applied.length === 0) return;
    const joined = b.applied.map((block) =>
      block.transactions.map((tx) => ({ hash: txHash(tx.mantle_tx), tx })),
    );
    this.rebaseView(b, joined);
    const included = new Set<string>();
    const removal: Uint8Array[] = [];
    const now = this.now();
    for (const { hash, tx } of joined.flat()) {
      included.add(bytesToHex(hash));
      removal.push(hash);
      this.included.add(hash, tx, now);
    }
    // The TTL eviction runs with it, once per tip change; so does the age limit of what does not apply.
    const aged: Uint8Array[] = [];
    for (const item of this.pendingView?.unappliedItems() ?? []) {
      if (now - item.insertedAtMs < UNAPPLIED_TTL_MS) continue;
      if (!this.verifying.has(bytesToHex(item.hash))) aged.push(item.hash);
    }
    this.drop([...removal, ...aged]);
    for (const block of b.reverted) {
      for (const tx of block.transactions) {
        const hash = txHash(tx.mantle_tx);
        if (included.has(bytesToHex(hash))) continue;
        this.included.remove(hash);
        this.readmit(tx);
      }
    }
  }

  /**
   * A block that extends the view's tip: the view moves onto it at the cost of what the block changed,
   * when it can (view.ts `rebase`); otherwise it is computed again when next asked for. `joined` holds
   * the transactions, with their hashes, of each block in `b.applied`.
   */
  private rebaseView(
    b: ProcessedBlock,
    joined: readonly (readonly { hash: Uint8Array; tx: SignedMantleTx }[])[],
  ): void {
    const v = this.pendingView;
    if (!v || v.stale || b.reverted.length > 0 || b.applied.length !== 1) return;
    const block = b.applied[0]!;
    const tip = this.deps.chain.tip();
    if (!bytesEqual(block.header.parent_block, v.tip) || !bytesEqual(tip.id, b.id)) return;
    const slot = tip.slot + 1n;
    const start = new Draft(tip.state);
    advanceEpoch(start, this.deps.chain.config, slot);
    const included = joined[0]!;
    if (v.rebase(this.deps.chain.headVersion, tip.id, start, slot, included))
      this.deps.logger.debug(
        { block: bytesToHex(b.id), txs: included.length },
        'mempool view moved to the new tip',
      );
  }

  /**
   * A transaction of a block that left the canonical chain, pending again at once: its proofs were
   * verified with the block, so it is not checked again, and it is in the pool before anything else
   * happens (a block built right after the switch would otherwise evict, as not applicable, the
   * transactions that spend its outputs). Stored as any addition; shared again (origin `reorg`).
   * inferred: F re-adds it through its ordinary admission, `MempoolMsg::Add` (docs/design/fidelity.md)
   */
  private readmit(tx: SignedMantleTx): void {
    const hash = txHash(tx.mantle_tx);
    if (this.pool.has(hash) || this.inFlight.has(bytesToHex(hash))) {
      this.emit('resubmitted', { hash, tx, origin: 'reorg' });
      return;
    }
    const encoded = encodeSignedTx(tx);
    try {
      this.pool.checkRoom(encoded.length);
    } catch (e) {
      this.deps.logger.debug({ err: (e as Error).message }, 'transaction of an abandoned block not re-added');
      return;
    }
    const seq = this.deps.store.nextSeq();
    const at = this.now();
    this.pool.add(hash, tx, encoded.length, at);
    this.seqOf.set(bytesToHex(hash), seq);
    this.deps.store.add(seq, hash, tx, at, encoded).catch((e: Error) => {
      this.deps.logger.error({ err: e.message }, 'a re-added transaction could not be stored');
    });
    // The view is computed again on the new tip, with it.
    if (this.pendingView) this.pendingView.stale = true;
    this.emit('added', { hash, tx, origin: 'reorg' });
  }
}
