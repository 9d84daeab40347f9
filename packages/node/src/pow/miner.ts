/**
 * The PoW ticket miner (F: services/pow/src/tickets.rs `TicketGenerator`).
 *
 * It follows the chain's processed blocks and searches, for every canonical block inside the reward
 * window, for winning tickets against that block's own ledger state (its epoch state's nonce and its
 * reward target). The search runs on `threads` worker threads (ticket-worker.ts, each with its own
 * Poseidon2 WebAssembly instance, at the lowest scheduling priority), never on the event loop.
 *
 * Window, as the reference: on each processed block, with `frontier = tip_slot − slot_window`
 * (saturating), a block joining the canonical chain is searched when `frontier < block_slot`, and the
 * searches of blocks with `block_slot < frontier` are dropped.
 *
 * Sharing the threads, as the reference's per-block `buffer_unordered(max_tickets_per_block)` on one
 * shared pool: a block has at most `concurrencyPerBlock` attempts in flight, here at most that many
 * workers on it at once (a worker makes one attempt at a time), and the workers go round the searched
 * blocks in turn, one chunk (a few milliseconds of attempts) at a time.
 *
 * A winner is written to the store (durably) and then logged (`PoW ticket found`, block slot and ticket
 * prefix; never the secret key). After `stop()` returns, results that arrive are dropped.
 */
import type { Worker } from 'node:worker_threads';
import { startWorker } from '@logos-ts/shared/runtime';
import type { Logger } from 'pino';
import { headerId } from '../block/header.ts';
import type { IChain, ProcessedBlock } from '../chain/index.ts';
import { bytesToHex } from '../codec/hex.ts';
import { type PowWinner, ticketKey, type WinnerStore } from './winners.ts';

/** How long a worker works on one task before it reports (and may be moved to another block). */
const CHUNK_MS = 4;
/** The worker threads' nice value (the lowest priority). */
const WORKER_NICE = 19;
/** Winners held at most, whatever the pool could pay (each is a stored record). */
const MAX_HELD = 10_000n;

export interface MinerOptions {
  readonly threads: number; // worker threads (pow.mining.max_threads; null → one per core)
  readonly concurrencyPerBlock: number; // pow.mining.max_tickets_per_block (attempts in flight per block, not a cap)
}

/** What the miner reads of the chain. */
export type MinerChain = Pick<IChain, 'on' | 'off' | 'tip' | 'stateOf' | 'canonicalBySlot' | 'config'>;

export interface MinerDeps {
  readonly chain: MinerChain;
  readonly store: WinnerStore;
  readonly logger: Logger;
  readonly signal?: AbortSignal;
}

interface Search {
  readonly key: string;
  readonly id: Uint8Array;
  readonly slot: bigint;
  readonly epochNonce: bigint;
  readonly target: bigint;
  /** Workers assigned to it now. */
  workers: number;
}

interface WorkerSlot {
  worker: Worker;
  /** The search this worker was last given (undefined: idle). */
  search: Search | undefined;
  /** The generation of that assignment. */
  gen: number;
  /** Whether the worker finished loading (a worker that dies before is not replaced). */
  ready: boolean;
}

interface ChunkMsg {
  readonly type: 'chunk';
  readonly gen: number;
  readonly attempts: number;
  readonly winners: readonly { ticket: bigint; secretKey: bigint; publicKey: bigint }[];
}

export class Miner {
  private readonly slots: WorkerSlot[] = [];
  private readonly searches = new Map<string, Search>();
  /** Which search each assignment generation was for (while that search is on). */
  private readonly gens = new Map<number, Search>();
  private nextGen = 1;
  private cursor = 0;
  private running = false;
  /**
   * Winners the tip's reward pool can still pay beyond those held: counted at start and at each
   * processed block (when claims settle and tickets expire), then less one per winner found.
   */
  private room = 0;
  /** No room left: searching waits for the next block. */
  private full = false;
  /** Winners found and still being stored. */
  private adding = 0;
  private closed = false;
  private readonly onBlock = (pb: ProcessedBlock): void => this.processed(pb);
  private readonly permuteWaiters: ((rate: { permutations: number; ms: number }) => void)[] = [];
  readonly stats = { attempts: 0n, winners: 0 };

  constructor(
    private readonly opts: MinerOptions,
    private readonly deps: MinerDeps,
  ) {
    if (!Number.isInteger(opts.threads) || opts.threads < 1)
      throw new RangeError('threads must be at least 1');
    if (!Number.isInteger(opts.concurrencyPerBlock) || opts.concurrencyPerBlock < 1)
      throw new RangeError('concurrencyPerBlock must be at least 1');
    deps.signal?.addEventListener('abort', () => void this.close(), { once: true });
  }

  get isMining(): boolean {
    return this.running;
  }

  /** The blocks searched now (ids as hex), for status and tests. */
  searching(): { id: string; slot: bigint }[] {
    return [...this.searches.values()].map((s) => ({ id: s.key, slot: s.slot }));
  }

  private get window(): bigint {
    return BigInt(this.deps.chain.config.pow.slot_window);
  }

  /** Starts searching every processed block inside the window (and the canonical ones there now). */
  start(): void {
    if (this.running || this.closed) return;
    this.running = true;
    while (this.slots.length < this.opts.threads) this.slots.push(this.spawn());
    this.deps.chain.on('block', this.onBlock);
    const tip = this.deps.chain.tip();
    const frontier = this.frontier(tip.slot);
    const inWindow = this.deps.chain.canonicalBySlot(frontier + 1n, tip.slot);
    // The chain keeps ledger states from the LIB up only: older blocks of the window cannot be searched.
    const without = inWindow.filter((b) => !this.add(b.id, b.slot, false)).length;
    this.deps.logger.info(
      { searched: inWindow.length - without, without_state: without, threads: this.slots.length },
      'PoW mining started on the canonical blocks inside the reward window',
    );
    this.countRoom();
    this.checkRoom();
    this.assignAll();
  }

  /** Stops searching; no new winner is added after this returns. */
  stop(): void {
    if (!this.running) return;
    this.running = false;
    this.deps.chain.off('block', this.onBlock);
    this.searches.clear();
    this.gens.clear();
    for (const s of this.slots) {
      if (s.search !== undefined) s.worker.postMessage({ type: 'idle' });
      s.search = undefined;
    }
  }

  /** Stops and terminates the workers. */
  async close(): Promise<void> {
    this.stop();
    if (this.closed) return;
    this.closed = true;
    const slots = this.slots.splice(0);
    await Promise.all(slots.map((s) => s.worker.terminate()));
  }

  /**
   * The Poseidon2 permutation rate of every worker, measured by all of them at once for `ms`
   * milliseconds while no block is searched (for the bench's limit). Starts the workers if needed.
   */
  async permutationRate(ms: number): Promise<number> {
    if (this.closed) throw new Error('the miner is closed');
    while (this.slots.length < this.opts.threads) this.slots.push(this.spawn());
    const answers = await Promise.all(
      this.slots.map(
        (s) =>
          new Promise<{ permutations: number; ms: number }>((resolve) => {
            this.permuteWaiters.push(resolve);
            s.worker.postMessage({ type: 'permute-rate', ms });
          }),
      ),
    );
    return answers.reduce((a, r) => a + (r.permutations * 1000) / r.ms, 0);
  }

  private frontier(tipSlot: bigint): bigint {
    return tipSlot > this.window ? tipSlot - this.window : 0n;
  }

  private spawn(): WorkerSlot {
    const worker = startWorker(import.meta.url, 'ticket-worker', {
      workerData: { nice: WORKER_NICE, chunkMs: CHUNK_MS },
    });
    worker.unref();
    const slot: WorkerSlot = { worker, search: undefined, gen: 0, ready: false };
    worker.on('message', (msg: { type: string }) => {
      if (msg.type === 'chunk') this.chunk(slot, msg as ChunkMsg);
      else if (msg.type === 'ready') {
        slot.ready = true;
        const p = (msg as { priority?: { ok: boolean; error?: string } }).priority;
        if (p && !p.ok)
          this.deps.logger.warn({ error: p.error }, 'PoW worker could not lower its scheduling priority');
      } else if (msg.type === 'permute-rate') this.permuteWaiters.shift()?.(msg as never);
    });
    worker.on('error', (e) => this.deps.logger.error({ err: e }, 'PoW worker failed'));
    worker.on('exit', (code) => {
      const i = this.slots.indexOf(slot);
      if (i < 0 || this.closed) return;
      if (slot.search) slot.search.workers--;
      if (!slot.ready) {
        // A worker that cannot even load would fail again: mine with the others.
        this.deps.logger.error({ code }, 'PoW worker exited while loading; not replaced');
        this.slots.splice(i, 1);
        return;
      }
      this.deps.logger.error({ code }, 'PoW worker exited; starting another');
      const next = this.spawn();
      this.slots[i] = next;
      if (this.running) this.assign(next);
    });
    return slot;
  }

  // inferred: only blocks joining the canonical chain are searched, and a reverted block leaves the
  // search (F searches every processed block until it leaves the window; docs/design/fidelity.md)
  private processed(pb: ProcessedBlock): void {
    if (!this.running) return;
    for (const b of pb.reverted) this.remove(bytesToHex(headerId(b.header)));
    const frontier = this.frontier(pb.tip.slot);
    for (const b of pb.applied) {
      const id = b === pb.block ? pb.id : headerId(b.header);
      if (frontier < b.header.slot) this.add(id, b.header.slot);
    }
    for (const s of [...this.searches.values()]) if (s.slot < frontier) this.remove(s.key);
    this.countRoom();
    this.checkRoom();
    this.assignAll();
  }

  /** Starts searching a block (if not already); false when the chain has no ledger state for it. */
  private add(id: Uint8Array, slot: bigint, warn = true): boolean {
    const key = bytesToHex(id);
    if (this.searches.has(key)) return true;
    const state = this.deps.chain.stateOf(id);
    if (state === undefined) {
      if (warn) this.deps.logger.warn({ block: key }, 'PoW: no ledger state for the block; not searched');
      return false;
    }
    this.searches.set(key, {
      key,
      id: id.slice(),
      slot,
      epochNonce: state.epoch_state.nonce,
      target: state.pow.target,
      workers: 0,
    });
    return true;
  }

  private remove(key: string): void {
    const s = this.searches.get(key);
    if (s === undefined) return;
    this.searches.delete(key);
    for (const [g, x] of this.gens) if (x === s) this.gens.delete(g);
    for (const slot of this.slots) if (slot.search === s) this.assign(slot);
  }

  private assignAll(): void {
    for (const slot of this.slots)
      if (slot.search === undefined || !this.searches.has(slot.search.key)) this.assign(slot);
  }

  /** Gives a worker the next search in turn that has room for it (or makes it idle). */
  // inferred: at most `concurrencyPerBlock` workers on one block, the blocks taken in turn chunk by chunk
  // (F: that many single attempts in flight per block on one shared pool; docs/design/fidelity.md)
  private assign(slot: WorkerSlot): void {
    const current =
      slot.search !== undefined && this.searches.get(slot.search.key) === slot.search
        ? slot.search
        : undefined;
    const list = [...this.searches.values()];
    let pick: Search | undefined;
    for (let i = 0; i < list.length; i++) {
      const s = list[(this.cursor + i) % list.length]!;
      const others = s.workers - (s === current ? 1 : 0);
      if (others < this.opts.concurrencyPerBlock) {
        pick = s;
        this.cursor = (this.cursor + i + 1) % list.length;
        break;
      }
    }
    if (this.full) pick = undefined;
    if (pick === current && current !== undefined) return;
    if (slot.search !== undefined) slot.search.workers--;
    slot.search = pick;
    if (pick === undefined) {
      slot.worker.postMessage({ type: 'idle' });
      return;
    }
    pick.workers++;
    const gen = this.nextGen++;
    slot.gen = gen;
    this.gens.set(gen, pick);
    slot.worker.postMessage({
      type: 'task',
      gen,
      epochNonce: pick.epochNonce,
      blockHash: pick.id,
      target: pick.target,
    });
  }

  private chunk(slot: WorkerSlot, msg: ChunkMsg): void {
    this.stats.attempts += BigInt(msg.attempts);
    if (!this.running) return;
    const search = this.gens.get(msg.gen);
    if (search !== undefined && this.searches.get(search.key) === search && msg.winners.length > 0) {
      for (const w of msg.winners) {
        if (this.room <= 0) break;
        this.room--;
        this.found(search, w);
      }
      this.checkRoom();
    }
    if (slot.gen === msg.gen || slot.search === undefined) this.assign(slot);
  }

  /**
   * Counts how many more winners the tip's reward pool can pay (`pool / epoch_reward`, less the
   * winners held): a ticket beyond it could never be claimed.
   */
  // inferred: the search pauses once the winners held reach what the tip's pool can pay (F's later
  // revision stops a block's search at that count; docs/design/fidelity.md)
  private countRoom(): void {
    const pow = this.deps.chain.tip().state.pow;
    const payable = pow.epoch_reward > 0n ? pow.pool / pow.epoch_reward : 0n;
    const held = this.deps.store.size() + this.adding;
    this.room = Number(payable > MAX_HELD ? MAX_HELD : payable) - held;
  }

  /** Pauses the search when there is no room for another winner, and resumes it when there is. */
  private checkRoom(): void {
    const full = this.room <= 0;
    if (full === this.full) return;
    this.full = full;
    this.deps.logger.info(
      full
        ? 'PoW search paused: the reward pool cannot pay more tickets than those held'
        : 'PoW search resumed: the reward pool can pay more tickets',
    );
    if (!full) this.assignAll();
    else for (const slot of this.slots) this.assign(slot);
  }

  private found(s: Search, w: ChunkMsg['winners'][number]): void {
    const winner: PowWinner = {
      ticket: w.ticket,
      blockId: s.id,
      blockSlot: s.slot,
      epochNonce: s.epochNonce,
      secretKey: w.secretKey,
      publicKey: w.publicKey,
    };
    this.adding++;
    this.deps.store.add(winner).then(
      () => {
        this.adding--;
        this.stats.winners++;
        this.deps.logger.info(
          { block_slot: s.slot.toString(), ticket: bytesToHex(ticketKey(w.ticket)).slice(0, 16) },
          'PoW ticket found',
        );
      },
      (e: unknown) => {
        this.adding--;
        this.deps.logger.error({ err: e, block_slot: s.slot.toString() }, 'PoW winner not stored');
      },
    );
  }
}
