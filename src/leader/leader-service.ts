/**
 * Block production: at every slot, play the leader lottery with the wallet's notes that are in the
 * epoch's aged snapshot and still unspent; on a win, take the wallet's next voucher, build a block on
 * the current tip with the uncles the chain selects for it, prove leadership (in the prover process,
 * off the event loop), sign it with a fresh one-time key, and hand it to the chain service. One block
 * is produced at a time; a proof that finishes after its slot still makes a valid block, since a
 * block's slot only has to be after its parent's and not in the future.
 */
import type { Logger } from 'pino';
import { bodyRoot } from '../block/block.ts';
import { encodeHeader, type Header } from '../block/header.ts';
import type { IChain, SlotClock } from '../chain/index.ts';
import { entropyContribution, isWinningTicket, leaderThreshold, leaderTicket } from '../consensus/lottery.ts';
import { Ed25519Signer, ed25519GenerateSecretKey } from '../crypto/ed25519.ts';
import type { Fr } from '../crypto/field.ts';
import { zkPublicKey } from '../crypto/zk-keys.ts';
import { epochStateAt, polPublicInputs } from '../ledger/apply.ts';
import { PROOFS_ALREADY_VERIFIED, type ProofSystem } from '../ledger/proof-system.ts';
import type { EpochState, LedgerState, NoteRecord } from '../ledger/state.ts';
import { txHash } from '../mantle/tx.ts';
import type { IMempool } from '../mempool/index.ts';
import type { BlockPublisher } from '../network/gossip/index.ts';
import { selectTransactions } from './block-builder.ts';
import type { VoucherGenerator } from './vouchers.ts';

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
}

export interface LeaderDeps {
  readonly chain: IChain;
  readonly clock: SlotClock;
  readonly proofs: ProofSystem;
  readonly txs: TransactionSource;
  readonly logger: Logger;
  /** Announces each block made, once the chain applied it (gossip); without it blocks stay local. */
  readonly publisher?: BlockPublisher;
  /** Aborting stops production (as `close` does). */
  readonly signal?: AbortSignal;
}

interface OwnedNote {
  readonly id: Fr;
  readonly record: NoteRecord;
  readonly sk: Fr;
}

export class LeaderService {
  private timer: NodeJS.Timeout | undefined;
  private producing = false;
  private stopped = true;
  /** Set by `close`: production failures from then on are the stop's doing. */
  private closed = false;
  private readonly keys: Map<Fr, Fr>;
  private readonly ownByEpoch = new WeakMap<EpochState, OwnedNote[]>();
  private lastSlotTried = -1n;
  produced = 0;
  /** Slot start to block applied, per produced block (most recent last, at most 100 kept). */
  readonly latenciesMs: number[] = [];

  constructor(
    private readonly opts: LeaderOptions,
    private readonly deps: LeaderDeps,
  ) {
    this.keys = new Map(opts.secretKeys.map((sk) => [zkPublicKey(sk), sk]));
  }

  /** A leader playing every slot from now on. */
  static init(opts: LeaderOptions, deps: LeaderDeps): LeaderService {
    const leader = new LeaderService(opts, deps);
    leader.start();
    return leader;
  }

  start(): void {
    this.stopped = false;
    this.deps.signal?.addEventListener('abort', () => this.close(), { once: true });
    this.schedule();
  }

  /**
   * Stops playing slots. A block being produced is not waited for: its proof ends when the proof
   * backend closes, and the chain refuses blocks once the node stops; either way it is given up
   * without a word, since a stop in progress is not a production failure.
   */
  close(): void {
    this.stopped = true;
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
  }

  private schedule(): void {
    if (this.stopped) return;
    const next = this.deps.clock.currentSlot() + 1n;
    this.timer = setTimeout(() => {
      void this.onSlot(this.deps.clock.currentSlot());
      this.schedule();
    }, this.deps.clock.msUntil(next) + 5);
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

  async onSlot(slot: bigint): Promise<void> {
    if (this.producing || slot <= this.lastSlotTried) return;
    this.lastSlotTried = slot;
    const tip = this.deps.chain.tip();
    if (slot <= tip.slot) return;
    const parent = tip.state;
    const es = epochStateAt(
      parent,
      { config: this.deps.chain.config, proofs: PROOFS_ALREADY_VERIFIED },
      slot,
    );
    for (const n of this.owned(es)) {
      if (!parent.notes.has(n.id)) continue; // spent since the snapshot
      const ticket = leaderTicket(es.nonce, slot, n.id, n.sk);
      if (!isWinningTicket(ticket, leaderThreshold(n.record.note.value, es.lottery))) continue;
      if (this.opts.vouchers === undefined) {
        this.deps.logger.error(
          { slot: Number(slot) },
          'won the slot, but no voucher master key is configured',
        );
        return;
      }
      this.producing = true;
      const vouchers = this.opts.vouchers;
      try {
        await this.produce(slot, tip.id, parent, es, n, vouchers);
      } catch (e) {
        // A stop in progress is no failure: the proof or the chain was closed under the block.
        if (!this.closed)
          this.deps.logger.warn({ slot: Number(slot), err: (e as Error).message }, 'block production failed');
      } finally {
        this.producing = false;
      }
      return;
    }
  }

  private async produce(
    slot: bigint,
    parentId: Uint8Array,
    parent: LedgerState,
    es: EpochState,
    n: OwnedNote,
    vouchers: VoucherGenerator,
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
    const leaderKey = new Ed25519Signer(ed25519GenerateSecretKey());
    const voucher = await vouchers.next();
    const header: Header = {
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
    const latest = parent.notes.get(n.id)!;
    const inputs = polPublicInputs(es, parent.utxos.root(), header);
    header.proof_of_leadership.proof = await this.deps.proofs.provePol(inputs, {
      secret_key: n.sk,
      note_value: n.record.note.value,
      note_tx_hash: n.record.origin,
      note_output_index: n.record.output_index,
      aged_path: es.utxos.path(n.record.index),
      aged_index: n.record.index,
      latest_path: parent.utxos.path(latest.index),
      latest_index: latest.index,
    });
    const tProof = performance.now();
    const block = {
      header,
      signature: leaderKey.sign(encodeHeader(header)),
      uncle_headers: uncles,
      transactions: txs,
    };
    const done = await this.deps.chain.submit(block, { own: true });
    this.deps.publisher?.publishBlock(block);
    this.produced++;
    this.latenciesMs.push(Date.now() - this.deps.clock.slotStartMs(slot));
    if (this.latenciesMs.length > 100) this.latenciesMs.shift();
    this.deps.logger.info(
      {
        slot: Number(slot),
        height: done.height,
        txs: txs.length,
        uncles: uncles.length,
        voucher_index: Number(voucher.index),
        prove_ms: Math.round(tProof - t0),
        total_ms: Math.round(performance.now() - t0),
        late_slots: Number(this.deps.clock.currentSlot() - slot),
      },
      'block produced',
    );
  }
}
