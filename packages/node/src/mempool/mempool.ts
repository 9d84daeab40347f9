/**
 * The mempool service (F: `services/tx-service`): admission of transactions from every entry point,
 * the pending pool (FIFO, duplicates, prefixes, TTL, bounds: pool.ts), its persistence, the view on
 * top of the tip, block candidates, and the reconciliation with the chain (removal on inclusion,
 * re-insertion after a reorg).
 *
 * Admission: the stateless checks (`preverifyTx`, Ed25519 signatures on this thread), the proofs they
 * record, and the ZkSig proofs of the transaction as it applies on top of the current view, all verified
 * off the event loop (the verifier pool behind `proofs`); then the size and the pool's bounds, then the
 * durable write; only then is it pending. A transaction that does not apply on the view yet (it spends
 * a note no pending transaction has created) is admitted as the reference admits it, without a ledger
 * check; its ZkSig proofs are verified as soon as it applies on the view, and until then it is neither
 * in the view nor a block candidate (a candidate's proofs are always verified).
 */
import { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import type { IChain, ProcessedBlock } from '../chain/index.ts';
import { bytesToHex } from '../codec/hex.ts';
import { executeTx } from '../ledger/apply.ts';
import { DeferredProofChecks } from '../ledger/deferred-proofs.ts';
import { Draft, type LedgerContext } from '../ledger/draft.ts';
import { advanceEpoch } from '../ledger/epoch.ts';
import { preverifyTx } from '../ledger/preverify.ts';
import { PROOFS_ALREADY_VERIFIED, type ProofSystem } from '../ledger/proof-system.ts';
import { encodeSignedTx, type SignedMantleTx, txHash } from '../mantle/tx.ts';
import type { MempoolStore } from '../storage/mempool-store.ts';
import type { MempoolConfig } from './config.ts';
import type { AddResult, IMempool, MempoolEvents, MempoolMetrics, TxOrigin } from './interface.ts';
import { type PendingTx, TxPool } from './pool.ts';
import { RecentlyIncluded } from './recently-included.ts';
import { applyInRounds } from './rounds.ts';

export interface MempoolDeps {
  readonly chain: IChain;
  /** Verifies the recorded proofs (the verifier pool for Groth16, the test backend in tests). */
  readonly proofs: ProofSystem;
  readonly store: MempoolStore;
  readonly logger: Logger;
  readonly signal?: AbortSignal;
  /** The clock (ms since the epoch); tests move it. */
  readonly now?: () => number;
}

/** The view on top of a tip: what applies, in order, and the state after it. */
interface ViewCache {
  readonly head: number;
  version: number;
  readonly slot: bigint;
  draft: Draft;
  /** Keys of the pending transactions that apply (the view, once put in FIFO order). */
  readonly appliedKeys: Set<string>;
  /** The others, retried when a new one applies. */
  leftover: PendingTx[];
}

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
  private version = 0;
  private cache: ViewCache | undefined;
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
    this.version++;
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
    const view = this.viewCache();
    let applies = false;
    // The view with this transaction on top, reused if the view has not changed once it is admitted.
    let onTop: { draft: Draft; cache: ViewCache; version: number } | undefined;
    try {
      const draft = new Draft(view.draft.state());
      executeTx(draft, this.ctx(checks), tx, view.slot, { preverified: hash, size: BigInt(size) });
      applies = true;
      onTop = { draft, cache: view, version: view.version };
    } catch {
      // Not applicable on the view (yet): admitted without a ledger check, as the reference does.
    }
    await checks.settle(this.deps.proofs);
    if (this.closed) throw new Error('the mempool is closed');
    if (this.pool.has(hash)) return this.duplicate(hash, tx, origin);
    this.pool.checkRoom(size);
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
    this.extendView(this.pool.get(hash)!, onTop);
    this.emit('added', { hash, tx, origin });
    return { hash, outcome: 'added' };
  }

  private ctx(proofs: LedgerContext['proofs']): LedgerContext {
    return { config: this.deps.chain.config, proofs };
  }

  // ---------- the view ----------

  /**
   * The view on top of the current tip, computed again when the tip or the pool changed: the pending
   * transactions applied in FIFO order in rounds, as F's block proposal does (the specification's
   * "can be included on top of the current tip"; F's view lists every pending transaction).
   * inferred: the rounds and the exclusion of transactions whose proofs are not verified yet (docs/design/fidelity.md)
   */
  private viewCache(): ViewCache {
    const c = this.cache;
    if (c && c.head === this.deps.chain.headVersion && c.version === this.version) return c;
    const tip = this.deps.chain.tip();
    const slot = tip.slot + 1n;
    const draft = new Draft(tip.state);
    advanceEpoch(draft, this.deps.chain.config, slot);
    const toVerify: PendingTx[] = [];
    const out = applyInRounds(draft, slot, this.pool.view(), () => this.ctx(PROOFS_ALREADY_VERIFIED), {
      accept: (i) => this.acceptOrQueue(i, toVerify),
    });
    this.cache = {
      head: this.deps.chain.headVersion,
      version: this.version,
      slot,
      draft: out.draft,
      appliedKeys: new Set(out.applied.map((i) => bytesToHex(i.hash))),
      leftover: out.never,
    };
    for (const item of toVerify) this.verifyLater(item, this.cache);
    return this.cache;
  }

  /**
   * A new transaction on a current view: it is applied on top; if it applies, the transactions that did
   * not apply before are retried in rounds (they may have waited for it). The view stays what a fresh
   * computation would give, up to the order in which dependents were found (the view is FIFO anyway).
   */
  private extendView(item: PendingTx, onTop?: { draft: Draft; cache: ViewCache; version: number }): void {
    const c = this.cache;
    const current = c !== undefined && c.head === this.deps.chain.headVersion && c.version === this.version;
    this.version++;
    if (!current) return;
    const unchanged = onTop !== undefined && onTop.cache === c && onTop.version === c.version;
    c.version = this.version;
    if (this.unverified.has(bytesToHex(item.hash))) {
      c.leftover.push(item);
      return;
    }
    if (unchanged) c.draft = onTop.draft;
    else {
      const before = c.draft.state();
      try {
        executeTx(c.draft, this.ctx(PROOFS_ALREADY_VERIFIED), item.tx, c.slot, {
          preverified: item.hash,
          size: BigInt(item.size),
        });
      } catch {
        c.draft = new Draft(before);
        c.leftover.push(item);
        return;
      }
    }
    c.appliedKeys.add(bytesToHex(item.hash));
    if (c.leftover.length === 0) return;
    const toVerify: PendingTx[] = [];
    const out = applyInRounds(c.draft, c.slot, c.leftover, () => this.ctx(PROOFS_ALREADY_VERIFIED), {
      accept: (i) => this.acceptOrQueue(i, toVerify),
    });
    c.draft = out.draft;
    for (const i of out.applied) c.appliedKeys.add(bytesToHex(i.hash));
    c.leftover = out.never;
    for (const i of toVerify) this.verifyLater(i, c);
  }

  /** A verified transaction joins the view; an unverified one is queued for verification instead. */
  private acceptOrQueue(item: PendingTx, toVerify: PendingTx[]): boolean {
    if (!this.unverified.has(bytesToHex(item.hash))) return true;
    toVerify.push(item);
    return false;
  }

  /** Verifies the ZkSig proofs of a pending transaction now that it applies; drops it if they fail. */
  private verifyLater(item: PendingTx, view: ViewCache): void {
    const key = bytesToHex(item.hash);
    if (this.verifying.has(key)) return;
    this.verifying.add(key);
    const checks = new DeferredProofChecks();
    try {
      executeTx(new Draft(view.draft.state()), this.ctx(checks), item.tx, view.slot, {
        preverified: item.hash,
        size: BigInt(item.size),
      });
    } catch {
      this.verifying.delete(key);
      return;
    }
    void checks
      .settle(this.deps.proofs)
      .then(
        () => {
          if (!this.unverified.delete(key)) return;
          this.version++;
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
  }

  view(): Uint8Array[] {
    const keys = this.viewCache().appliedKeys;
    const out: Uint8Array[] = [];
    for (const p of this.pool.view()) if (keys.has(bytesToHex(p.hash))) out.push(p.hash);
    return out;
  }

  candidates(): Iterable<SignedMantleTx> {
    // Transactions waiting for their proofs: the view starts the verification of those that apply now.
    if (this.unverified.size > 0) this.viewCache();
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

  /**
   * The block builder's candidates that never applied, in any round, on the block's parent (the tip).
   * F evicts every pending transaction that never applied while building; the candidates are only the
   * verified ones, so the unverified that do not apply on the tip's view either go with them (unless
   * proofs are being verified: what they wait for may be about to apply).
   */
  evict(hashes: Iterable<Uint8Array>): void {
    this.drop(hashes);
    if (this.unverified.size === 0) return;
    const leftover = this.viewCache().leftover;
    // While proofs are being verified, a transaction may wait for a parent that is about to apply.
    if (this.verifying.size > 0) return;
    this.drop(leftover.filter((p) => this.unverified.has(bytesToHex(p.hash))).map((p) => p.hash));
  }

  /**
   * Removes transactions (and those past the TTL); their stored entries are deleted.
   * inferred: deleted at once, F keeps removed bodies 10 minutes (docs/design/fidelity.md)
   */
  private drop(hashes: Iterable<Uint8Array>): void {
    const list = [...hashes];
    const gone = [...list.filter((h) => this.pool.has(h)), ...this.pool.remove(list, this.now())];
    if (gone.length === 0) return;
    const seqs: bigint[] = [];
    for (const h of gone) {
      const key = bytesToHex(h);
      const seq = this.seqOf.get(key);
      if (seq !== undefined) seqs.push(seq);
      this.seqOf.delete(key);
      this.unverified.delete(key);
    }
    this.version++;
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
    const included = new Set<string>();
    const removal: Uint8Array[] = [];
    const now = this.now();
    for (const block of b.applied) {
      for (const tx of block.transactions) {
        const h = txHash(tx.mantle_tx);
        included.add(bytesToHex(h));
        removal.push(h);
        this.included.add(h, tx, now);
      }
    }
    this.drop(removal); // the TTL eviction runs with it, once per tip change
    for (const block of b.reverted) {
      for (const tx of block.transactions) {
        if (included.has(bytesToHex(txHash(tx.mantle_tx)))) continue;
        this.included.remove(txHash(tx.mantle_tx));
        this.add(tx, 'reorg').catch((e: Error) => {
          this.deps.logger.debug({ err: e.message }, 'transaction of an abandoned block not re-added');
        });
      }
    }
  }
}
