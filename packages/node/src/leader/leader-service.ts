/**
 * Block production: at every slot, play the leader lottery with the wallet's notes that are in the
 * epoch's aged snapshot and still unspent; on a win, take the wallet's next voucher, build a block on
 * the current tip with the uncles the chain selects for it, prove leadership (in the prover process,
 * off the event loop), sign it with a fresh one-time key, and hand it to the chain service. One block
 * is produced at a time; a proof that finishes after its slot still makes a valid block, since a
 * block's slot only has to be after its parent's and not in the future.
 *
 * Proofs ahead of time: the lottery of a slot depends on the epoch only, and a proof of leadership
 * commits to the slot, the note, the one-time key, the voucher and the UTXO root of the parent, not to
 * the block's transactions. So at every slot and every new tip the leader looks ahead for its next
 * won slots (`AHEAD_WINS` within `LOOKAHEAD_SLOTS`) and has those within its proving horizon proved,
 * nearest first, against the tip's UTXO root; at a won slot, if the proof's public inputs are still
 * those of the tip, the block is built around the ready proof. A tip that changes them before the slot
 * starts the proof again (with the same key and voucher); a proof left unused is dropped, and one
 * still waiting for the prover is withdrawn. The prover runs at a low priority; proofs made ahead wait
 * behind any other request (a transaction's signature, a claim), and a proof needed at its slot (none
 * ready) goes first.
 *
 * The proving horizon: a block that lands before the slot (any block with a transaction) changes the
 * UTXO root, so a proof made long before its slot is most often made for nothing. A win is proved once
 * it is within `AHEAD_MARGIN` times the recent proving time of now (at least `MIN_AHEAD_SLOTS`
 * slots), enough for the proof to be ready at the slot while the tip it was made on rarely changes.
 *
 * The keys may change while running (`setKeys`, when the node reloads its keys): the next slot is
 * played with the new ones, and proofs made ahead for notes of a key no longer held are dropped.
 */
import type { Logger } from 'pino';
import type { LeadershipWin, ProposalPublisher } from '../blend/index.ts';
import { bodyRoot } from '../block/block.ts';
import { encodeHeader, type Header, type SignedHeader } from '../block/header.ts';
import type { IChain, SlotClock } from '../chain/index.ts';
import { bytesEqual, bytesToHex } from '../codec/hex.ts';
import { entropyContribution, isWinningTicket, leaderThreshold, leaderTicket } from '../consensus/lottery.ts';
import { Ed25519Signer, ed25519GenerateSecretKey } from '../crypto/ed25519.ts';
import type { Fr } from '../crypto/field.ts';
import { zkPublicKey } from '../crypto/zk-keys.ts';
import { epochStateAt, polPublicInputs } from '../ledger/apply.ts';
import { epochOf, epochSchedule } from '../ledger/parameters.ts';
import {
  type PolPublicInputs,
  type PolWitness,
  PROOFS_ALREADY_VERIFIED,
  type ProofSystem,
  type ProveOptions,
} from '../ledger/proof-system.ts';
import type { EpochState, LedgerState, NoteRecord } from '../ledger/state.ts';
import { type SignedMantleTx, txHash } from '../mantle/tx.ts';
import type { IMempool } from '../mempool/index.ts';
import { selectTransactions } from './block-builder.ts';
import type { Voucher, VoucherGenerator } from './vouchers.ts';

/**
 * Where a leader gets candidate transactions for its block (the mempool), in FIFO order. Their proofs
 * must already be verified (the mempool verifies on admission); selection checks everything else, and
 * the candidates that can never apply are handed back to be evicted.
 */
export type TransactionSource = Pick<IMempool, 'candidates' | 'evict'>;

/** No transactions (a leader without a mempool, in tests). */
export const NO_TRANSACTIONS: TransactionSource = { candidates: () => [], evict: () => {} };

export interface LeaderOptions {
  /** Secret keys of the wallet's notes that may lead. */
  readonly secretKeys: readonly Fr[];
  /**
   * The wallet's reward vouchers (from its voucher master key). Without them no block can be made: a
   * won slot is passed over, as the reference does when its wallet cannot derive a voucher.
   */
  readonly vouchers: VoucherGenerator | undefined;
  /**
   * How many slots ahead a win is proved; absent: `AHEAD_MARGIN` times the recent proving time, at
   * least `MIN_AHEAD_SLOTS` (the file's header).
   */
  readonly proveAheadSlots?: bigint;
}

/** The winning note's part of a PoL witness: its secrets and its path in the epoch's aged tree. */
function agedWitness(es: EpochState, n: OwnedNote): Omit<PolWitness, 'latest_path' | 'latest_index'> {
  return {
    secret_key: n.sk,
    note_value: n.record.note.value,
    note_tx_hash: n.record.origin,
    note_output_index: n.record.output_index,
    aged_path: es.utxos.path(n.record.index),
    aged_index: n.record.index,
  };
}

export interface LeaderDeps {
  readonly chain: IChain;
  readonly clock: SlotClock;
  readonly proofs: ProofSystem;
  readonly txs: TransactionSource;
  readonly logger: Logger;
  /** Announces each block made, once the chain applied it (gossip); without it blocks stay local. */
  readonly publisher?: ProposalPublisher;
  /** Aborting stops production (as `close` does). */
  readonly signal?: AbortSignal;
}

interface OwnedNote {
  readonly id: Fr;
  readonly record: NoteRecord;
  readonly sk: Fr;
}

/** How many slots ahead the leader looks for its next wins. */
export const LOOKAHEAD_SLOTS = 64n;
/**
 * How many of the next wins are proved ahead: wins come in bursts (a few in a few slots) while one
 * proof takes about two slots, so the prover works through the next several while it is idle.
 */
export const AHEAD_WINS = 8;
/** The fewest slots ahead a win is proved (the slot itself and the one before). */
export const MIN_AHEAD_SLOTS = 2n;
/** The proving horizon in proving times: the proof's own and as long again waiting for the prover. */
export const AHEAD_MARGIN = 2;
/** The weight of the newest proving time in the running estimate. */
const PROVING_TIME_WEIGHT = 0.3;

/** A proof of leadership made before its slot, against the UTXO root of the tip of that time. */
interface Prepared {
  readonly noteId: Fr;
  /** The statement proved; the proof fits a block whose statement is the same. */
  readonly inputs: PolPublicInputs;
  readonly leaderKey: Ed25519Signer;
  readonly voucher: Voucher;
  readonly proof: Promise<Uint8Array>;
  /** Withdraws the request if the prover has not started it. */
  readonly cancel: AbortController;
}

function sameStatement(a: PolPublicInputs, b: PolPublicInputs): boolean {
  return (Object.keys(a) as (keyof PolPublicInputs)[]).every((k) => a[k] === b[k]);
}

export class LeaderService {
  private timer: NodeJS.Timeout | undefined;
  private producing = false;
  private stopped = true;
  /** Set by `close`: production failures from then on are the stop's doing. */
  private closed = false;
  private keys: Map<Fr, Fr>;
  /** Whether the proof backend proves leadership (a leader that cannot plays with no keys). */
  private readonly canProve: boolean;
  private ownByEpoch = new WeakMap<EpochState, OwnedNote[]>();
  private winsByEpoch = new WeakMap<EpochState, Map<bigint, OwnedNote[]>>();
  private readonly epochStates = new WeakMap<LedgerState, Map<number, EpochState>>();
  private lastSlotTried = -1n;
  /** Proofs made ahead, by slot (the next `AHEAD_WINS` wins). */
  private prepared = new Map<bigint, Prepared>();
  private preparing = false;
  /** Asked again while preparing (a new tip meanwhile): look ahead once more when done. */
  private prepareAgain = false;
  private readonly onBlock = () => void this.prepareAhead();
  produced = 0;
  /** Blocks made around a proof prepared before their slot. */
  producedAhead = 0;
  /** Slots this wallet won on the tip of their time (a won slot met while busy counts, unmade). */
  wonSlots = 0;
  /** Blocks applied before the end of their own slot. */
  producedInSlot = 0;
  /** Won slots given up while their proof was made (the parent left the tip, or the slot got too late). */
  givenUp = 0;
  /** Slot start to block applied, per produced block (most recent last, at most 100 kept). */
  readonly latenciesMs: number[] = [];
  /** The running estimate of one proof of leadership's proving time (from the prover's start), ms. */
  private provingMs: number | null = null;

  constructor(
    private readonly opts: LeaderOptions,
    private readonly deps: LeaderDeps,
  ) {
    this.canProve = deps.proofs.cannotProve?.('pol') === undefined;
    this.keys = new Map(opts.secretKeys.map((sk) => [zkPublicKey(sk), sk]));
  }

  /** Plays with `secretKeys` from the next slot on (the wins found with the previous keys are forgotten). */
  setKeys(secretKeys: readonly Fr[]): void {
    if (!this.canProve) return;
    this.keys = new Map(secretKeys.map((sk) => [zkPublicKey(sk), sk]));
    this.ownByEpoch = new WeakMap();
    this.winsByEpoch = new WeakMap();
    if (!this.stopped && !this.closed && this.deps.chain.consensusState === 'Online')
      void this.prepareAhead();
  }

  /**
   * A leader playing every slot from now on, once consensus is Online: F `chain-leader` (`lib.rs` `run`)
   * waits for the chain to become Online before it proposes anything ("We should not propose blocks
   * while the chain is in Bootstrapping mode"), and looks ahead for nothing before. A node whose proof
   * backend cannot prove leadership does not play the lottery (it follows the chain).
   */
  static init(opts: LeaderOptions, deps: LeaderDeps): LeaderService {
    const canProve = deps.proofs.cannotProve?.('pol') === undefined;
    const leader = new LeaderService(canProve ? opts : { ...opts, secretKeys: [] }, deps);
    deps.signal?.addEventListener('abort', () => leader.close(), { once: true });
    leader.resume();
    return leader;
  }

  /**
   * Holds block production back: no slot is played until `resume`, and the proofs made ahead are
   * withdrawn (a block already being produced still completes). The node's tests hold blocks back to
   * see what a transaction is while it is pending.
   */
  pause(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.deps.chain.off('online', this.onOnline);
    this.deps.chain.off('block', this.onBlock);
    for (const p of this.prepared.values()) p.cancel.abort('block production paused');
    this.prepared.clear();
  }

  /** Plays every slot from now on (after `pause`), once consensus is Online. */
  resume(): void {
    if (this.closed || !this.stopped) return;
    this.stopped = false;
    if (this.deps.chain.consensusState !== 'Online') {
      this.deps.chain.once('online', this.onOnline);
      this.deps.logger.info('waiting for the chain to become online before leading');
      return;
    }
    this.lead();
  }

  private readonly onOnline = () => {
    if (this.stopped) return;
    this.deps.logger.info('chain is online; starting block proposals');
    this.lead();
  };

  private lead(): void {
    this.deps.chain.on('block', this.onBlock);
    this.schedule();
    if (this.opts.vouchers !== undefined) {
      this.deps.proofs.warmPolProver?.().catch((e: Error) => {
        if (!this.closed) this.deps.logger.warn({ err: e.message }, 'getting the prover ready failed');
      });
    }
    void this.prepareAhead();
  }

  /**
   * Stops playing slots. A block being produced is not waited for: its proof ends when the proof
   * backend closes, and the chain refuses blocks once the node stops; either way it is given up
   * without a word, since a stop in progress is not a production failure.
   */
  close(): void {
    this.closed = true;
    this.pause();
  }

  private schedule(): void {
    if (this.stopped) return;
    const next = this.deps.clock.currentSlot() + 1n;
    this.timer = setTimeout(() => {
      void this.onSlot(this.deps.clock.currentSlot()).then(() => this.prepareAhead());
      this.schedule();
    }, this.deps.clock.msUntil(next) + 5);
  }

  /**
   * The epoch state a block at `slot` on `parent` is led under, kept per parent and epoch: the same
   * state object then finds the lottery's cached wins.
   */
  private epochState(parent: LedgerState, slot: bigint): EpochState {
    let byEpoch = this.epochStates.get(parent);
    if (byEpoch === undefined) {
      byEpoch = new Map();
      this.epochStates.set(parent, byEpoch);
    }
    const epoch = epochOf(slot, epochSchedule(this.deps.chain.config.consensus));
    let es = byEpoch.get(epoch);
    if (es === undefined) {
      es = epochStateAt(parent, { config: this.deps.chain.config, proofs: PROOFS_ALREADY_VERIFIED }, slot);
      byEpoch.set(epoch, es);
    }
    return es;
  }

  /** The wallet's notes in an epoch's aged snapshot (computed once per epoch state). */
  private owned(es: EpochState): OwnedNote[] {
    let list = this.ownByEpoch.get(es);
    if (!list) {
      list = [];
      for (const [id, record] of es.notes.entries()) {
        const sk = this.keys.get(record.note.pk);
        if (sk !== undefined && record.channel === null && record.locked_by === null)
          list.push({ id, record, sk });
      }
      list.sort((a, b) => (a.id < b.id ? -1 : 1));
      this.ownByEpoch.set(es, list);
    }
    return list;
  }

  /** The first of the wallet's notes that wins `slot` on top of `parent` (the note a block would use). */
  private winner(parent: LedgerState, es: EpochState, slot: bigint): OwnedNote | undefined {
    // spent since the snapshot: skipped
    return this.ticketsWinning(es, slot).find((n) => parent.notes.has(n.id));
  }

  /**
   * The wallet's notes whose ticket wins `slot` under the epoch's lottery, in play order; kept per
   * epoch state, since the lookahead asks for the same slots at every slot and every block.
   */
  private ticketsWinning(es: EpochState, slot: bigint): OwnedNote[] {
    let bySlot = this.winsByEpoch.get(es);
    if (bySlot === undefined) {
      bySlot = new Map();
      this.winsByEpoch.set(es, bySlot);
    }
    let wins = bySlot.get(slot);
    if (wins === undefined) {
      wins = this.owned(es).filter((n) =>
        isWinningTicket(
          leaderTicket(es.nonce, slot, n.id, n.sk),
          leaderThreshold(n.record.note.value, es.lottery),
        ),
      );
      bySlot.set(slot, wins);
    }
    return wins;
  }

  /**
   * Proves the next won slots ahead of time (see the file's header). Called at every slot and every
   * new block; keeps the proofs in progress or ready that still fit the tip.
   */
  async prepareAhead(): Promise<void> {
    if (this.closed || this.opts.vouchers === undefined) return;
    if (this.preparing) {
      this.prepareAgain = true;
      return;
    }
    this.preparing = true;
    this.prepareAgain = false;
    try {
      const tip = this.deps.chain.tip();
      const parent = tip.state;
      const root = parent.utxos.root();
      const now = this.deps.clock.currentSlot();
      const horizon = now + this.aheadSlots();
      const first = (now > tip.slot ? now : tip.slot) + 1n;
      const wins: { slot: bigint; n: OwnedNote; es: EpochState }[] = [];
      for (let slot = first; slot < first + LOOKAHEAD_SLOTS && wins.length < AHEAD_WINS; slot++) {
        // A later epoch's lottery, as the tip sees it now, may still change with the tip: its proofs
        // are then made again or dropped, like any stale one.
        const es = this.epochState(parent, slot);
        const n = this.winner(parent, es, slot);
        if (n !== undefined) wins.push({ slot, n, es });
      }
      // The proposals' own proofs (Blend's proofs of leadership quota) depend on the win alone.
      for (const { slot, n, es } of wins) this.deps.publisher?.prepareProposal?.(this.winOf(es, slot, n));
      const kept = new Map<bigint, Prepared>();
      for (const { slot, n, es } of wins) {
        const p = this.prepared.get(slot);
        // The same slot and note as before: the same key and voucher, so the same statement unless the
        // tip changed the UTXO root or the epoch's lottery.
        const same = p !== undefined && p.noteId === n.id;
        const leaderKey = same ? p.leaderKey : new Ed25519Signer(ed25519GenerateSecretKey());
        const voucher = same ? p.voucher : await this.opts.vouchers.next();
        const header = this.headerFor(slot, tip.id, n, leaderKey, voucher, []);
        const inputs = polPublicInputs(es, root, header);
        if (same && sameStatement(p.inputs, inputs)) {
          kept.set(slot, p);
          continue;
        }
        // Beyond the horizon: proved at a later slot or block, on the tip of that time.
        if (slot > horizon) continue;
        const cancel = new AbortController();
        const proof = this.prove(es, parent, header, n, {
          signal: cancel.signal,
          background: true,
          what: `slot ${slot}, ahead`,
        });
        proof.catch(() => {}); // a stale or failed one is dropped; the slot then proves as usual
        kept.set(slot, { noteId: n.id, inputs, leaderKey, voucher, proof, cancel });
        this.deps.logger.debug({ slot: Number(slot), now: Number(now) }, 'proving a won slot ahead of time');
      }
      for (const [slot, p] of this.prepared)
        if (kept.get(slot) !== p) p.cancel.abort(`slot ${slot}: the tip changed its statement`);
      this.prepared = kept;
    } catch (e) {
      if (!this.closed)
        this.deps.logger.warn({ err: (e as Error).message }, 'looking ahead for won slots failed');
    } finally {
      this.preparing = false;
      if (this.prepareAgain) void this.prepareAhead();
    }
  }

  async onSlot(slot: bigint): Promise<void> {
    if (slot <= this.lastSlotTried) return;
    this.lastSlotTried = slot;
    const tip = this.deps.chain.tip();
    if (slot <= tip.slot) return;
    const parent = tip.state;
    const es = this.epochState(parent, slot);
    const n = this.winner(parent, es, slot);
    if (n === undefined) return;
    this.wonSlots++;
    if (this.producing) {
      this.deps.logger.debug(
        { slot: Number(slot) },
        'won the slot while the previous block is still being made',
      );
      return;
    }
    if (this.opts.vouchers === undefined) {
      this.deps.logger.error({ slot: Number(slot) }, 'won the slot, but no voucher master key is configured');
      return;
    }
    this.producing = true;
    const vouchers = this.opts.vouchers;
    const p = this.prepared.get(slot);
    const ready = p !== undefined && p.noteId === n.id ? p : undefined;
    for (const [s, q] of this.prepared) {
      if (s > slot) continue;
      if (q !== ready) q.cancel.abort(`slot ${s} passed`);
      this.prepared.delete(s);
    }
    try {
      await this.produce(slot, tip.id, parent, es, n, vouchers, ready);
    } catch (e) {
      // A stop in progress is no failure: the proof or the chain was closed under the block.
      if (!this.closed)
        this.deps.logger.warn({ slot: Number(slot), err: (e as Error).message }, 'block production failed');
    } finally {
      this.producing = false;
    }
  }

  private async produce(
    slot: bigint,
    parentId: Uint8Array,
    parent: LedgerState,
    es: EpochState,
    n: OwnedNote,
    vouchers: VoucherGenerator,
    ready?: Prepared,
  ): Promise<void> {
    const t0 = performance.now();
    const { txs, invalid } = selectTransactions(
      parent,
      { config: this.deps.chain.config, proofs: PROOFS_ALREADY_VERIFIED },
      slot,
      this.deps.txs.candidates(),
    );
    // F: propose_block removes from the mempool the candidates that never became applicable (and the
    // pool drops with them the transactions still waiting for their proofs that do not apply either).
    this.deps.txs.evict(invalid.map((i) => i.hash));
    if (invalid.length > 0) {
      this.deps.logger.debug(
        { slot: Number(slot), evicted: invalid.length },
        'inapplicable transactions evicted',
      );
    }
    // F: chain-leader selects the uncles of the proposal (a proposal without them is still valid).
    const uncles = this.deps.chain.unclesFor(parentId, slot);
    const leaderKey = ready?.leaderKey ?? new Ed25519Signer(ed25519GenerateSecretKey());
    const voucher = ready?.voucher ?? (await vouchers.next());
    const header = this.headerFor(slot, parentId, n, leaderKey, voucher, uncles, txs);
    // A proof made ahead of time fits when it proved this header's statement (it does not commit to
    // the body); otherwise the same key and voucher are proved now, before any proof made ahead.
    const fits =
      ready !== undefined && sameStatement(ready.inputs, polPublicInputs(es, parent.utxos.root(), header));
    if (ready !== undefined && !fits) ready.cancel.abort(`slot ${slot}: the block's statement changed`);
    // The proof is useful while the block can still extend the chain: its parent is the tip and its
    // slot is not past by more than a block gap (another leader's block is due by then).
    const deadline = this.proofDeadline(slot, parentId);
    let proof: Uint8Array;
    try {
      proof = await (fits
        ? untilAborted(ready.proof, deadline.signal)
        : this.prove(es, parent, header, n, { urgent: true, signal: deadline.signal, what: `slot ${slot}` }));
    } catch (e) {
      if (!deadline.signal.aborted) throw e;
      if (fits) ready.cancel.abort(deadline.signal.reason);
      this.givenUp++;
      this.deps.logger.debug({ slot: Number(slot), reason: String(deadline.signal.reason) }, 'slot given up');
      return;
    } finally {
      deadline.release();
    }
    header.proof_of_leadership.proof = proof;
    const tProof = performance.now();
    const block = {
      header,
      signature: leaderKey.sign(encodeHeader(header)),
      uncle_headers: uncles,
      transactions: txs,
    };
    const done = await this.deps.chain.submit(block, { own: true });
    this.deps.publisher?.publishProposal(block, this.winOf(es, header.slot, n));
    this.produced++;
    if (fits) this.producedAhead++;
    if (this.deps.clock.currentSlot() <= slot) this.producedInSlot++;
    this.latenciesMs.push(Date.now() - this.deps.clock.slotStartMs(slot));
    if (this.latenciesMs.length > 100) this.latenciesMs.shift();
    this.deps.logger.info(
      {
        block: bytesToHex(done.id),
        slot: Number(slot),
        height: done.height,
        txs: txs.length,
        uncles: uncles.length,
        voucher_index: Number(voucher.index),
        prove_ms: Math.round(tProof - t0),
        proved_ahead: fits,
        total_ms: Math.round(performance.now() - t0),
        late_slots: Number(this.deps.clock.currentSlot() - slot),
      },
      'block produced',
    );
  }

  /** Slots a block may come after its own and still be worth proving: the expected gap between blocks, 1/f. */
  private get lateSlots(): bigint {
    const f = this.deps.chain.config.consensus.active_slot_coeff;
    return (f.den + f.num - 1n) / f.num;
  }

  /**
   * Aborts (with the reason) once a block at `slot` on `parentId` can no longer extend the chain: the
   * tip moves to another block, or the slot is more than `lateSlots` behind the clock; checked at each
   * block applied and each slot. `release` stops watching.
   */
  // inferred: how late a block's proof is still worth making (docs/design/fidelity.md "When a proof of leadership is given up")
  private proofDeadline(slot: bigint, parentId: Uint8Array): { signal: AbortSignal; release(): void } {
    const stop = new AbortController();
    // Lateness counts from the slot, or from now if the slot is played late (tests play past slots).
    const now = this.deps.clock.currentSlot();
    const from = now > slot ? now : slot;
    const check = () => {
      if (stop.signal.aborted) return;
      if (!bytesEqual(this.deps.chain.tip().id, parentId))
        stop.abort(`slot ${slot}: the parent is no longer the tip`);
      else if (this.deps.clock.currentSlot() > from + this.lateSlots)
        stop.abort(`slot ${slot}: more than ${this.lateSlots} slots late`);
    };
    const timer = setInterval(check, Math.max(50, this.deps.clock.slotDurationMs));
    this.deps.chain.on('block', check);
    check();
    return {
      signal: stop.signal,
      release: () => {
        clearInterval(timer);
        this.deps.chain.off('block', check);
      },
    };
  }

  /** The header of a block at `slot` on `parentId` led by note `n` (its PoL proof still empty). */
  private headerFor(
    slot: bigint,
    parentId: Uint8Array,
    n: OwnedNote,
    leaderKey: Ed25519Signer,
    voucher: Voucher,
    uncles: SignedHeader[],
    txs: readonly SignedMantleTx[] = [],
  ): Header {
    return {
      parent_block: parentId,
      slot,
      body_root: bodyRoot(
        uncles,
        txs.map((t) => txHash(t.mantle_tx)),
      ),
      proof_of_leadership: {
        proof: new Uint8Array(128),
        entropy_contribution: entropyContribution(slot, n.id, n.sk),
        leader_key: leaderKey.publicKey,
        voucher_cm: voucher.cm,
      },
    };
  }

  /** Proves leadership of `header`'s slot by note `n` on top of `parent` (in the prover process). */
  /** The slot's win as the leadership proof of quota of its proposal needs it. */
  private winOf(es: EpochState, slot: bigint, n: OwnedNote): LeadershipWin {
    return {
      slot,
      epoch_nonce: es.nonce,
      lottery_0: es.lottery.t0,
      lottery_1: es.lottery.t1,
      aged_root: es.utxos.root(),
      ...agedWitness(es, n),
    };
  }

  private prove(
    es: EpochState,
    parent: LedgerState,
    header: Header,
    n: OwnedNote,
    opts: ProveOptions,
  ): Promise<Uint8Array> {
    const latest = parent.notes.get(n.id)!;
    const inputs = polPublicInputs(es, parent.utxos.root(), header);
    let started: number | undefined;
    const proof = this.deps.proofs.provePol(
      inputs,
      { ...agedWitness(es, n), latest_path: parent.utxos.path(latest.index), latest_index: latest.index },
      {
        ...opts,
        onStart: () => {
          started = performance.now();
          opts.onStart?.();
        },
      },
    );
    proof.then(
      () => {
        if (started !== undefined) this.provingTook(performance.now() - started);
      },
      () => {},
    );
    return proof;
  }

  private provingTook(ms: number): void {
    this.provingMs =
      this.provingMs === null ? ms : this.provingMs + PROVING_TIME_WEIGHT * (ms - this.provingMs);
  }

  /**
   * How many slots ahead of now a win is proved (the file's header).
   * inferred: F proves at the slot (docs/design/fidelity.md "When a proof of leadership is made ahead")
   */
  private aheadSlots(): bigint {
    if (this.opts.proveAheadSlots !== undefined) return this.opts.proveAheadSlots;
    const slotMs = this.deps.clock.slotDurationMs;
    const est = this.provingMs === null ? 0 : Math.ceil((AHEAD_MARGIN * this.provingMs) / slotMs);
    const slots = BigInt(est);
    return slots > MIN_AHEAD_SLOTS ? (slots < LOOKAHEAD_SLOTS ? slots : LOOKAHEAD_SLOTS) : MIN_AHEAD_SLOTS;
  }
}

/** `p`, or a rejection with the signal's reason once it aborts. */
function untilAborted<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}
