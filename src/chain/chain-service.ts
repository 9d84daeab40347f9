/**
 * The chain service: accepts blocks (own or received), validates them (structure, time, ledger and
 * proofs), keeps one ledger state per block of the block tree above the latest immutable block,
 * runs fork choice through the Cryptarchia engine, and commits every accepted block with its
 * effects on the canonical indices in one atomic storage transaction.
 *
 * On start it rebuilds the tree and the states by replaying the stored blocks (they were fully
 * verified when first accepted, so the replay trusts their proofs).
 */
import { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import { type Block, checkBlockStructure, decodeBlock, encodeBlock } from '../block/block.ts';
import { headerId, type SignedHeader } from '../block/header.ts';
import { bytesToHex, hexToBytes } from '../codec/hex.ts';
import { stringifyJson } from '../codec/json.ts';
import {
  type BlockNode,
  type ConsensusState,
  CryptarchiaEngine,
  type ReceiveResult,
} from '../consensus/engine.ts';
import { LogosError } from '../errors/base.ts';
import { applyBlock, type BlockResult } from '../ledger/apply.ts';
import { epochSchedule } from '../ledger/config.ts';
import type { Deployment } from '../ledger/deployment.ts';
import { eventsToJson, type LedgerEvent } from '../ledger/events.ts';
import { buildGenesis, type Genesis } from '../ledger/genesis.ts';
import { PROOFS_ALREADY_VERIFIED, type ProofSystem } from '../ledger/proof-system.ts';
import { decodeLedgerState, encodeLedgerState } from '../ledger/snapshot.ts';
import type { LedgerState } from '../ledger/state.ts';
import { applyBlockVerified } from '../ledger/verified.ts';
import { txHash } from '../mantle/tx.ts';
import type { ChainStore, ChainUpdate } from '../storage/chain-store.ts';
import type { SlotClock } from './clock.ts';
import { InvalidUncle, verifyUncles } from './uncles.ts';

export class BlockRejected extends LogosError {}

export interface ProcessedBlock {
  readonly block: Block;
  readonly id: Uint8Array;
  readonly height: number;
  readonly events: readonly LedgerEvent[];
  readonly tip: { id: Uint8Array; slot: bigint; height: number };
  readonly lib: { id: Uint8Array; slot: bigint; height: number };
}

export interface ChainServiceOptions {
  readonly deployment: Deployment;
  readonly genesisTimeMs: number;
  /** Start Online right away (a node that knows it is caught up); otherwise Bootstrapping. */
  readonly online: boolean;
  /** A ledger snapshot is stored each time the LIB has advanced this many blocks (default 1000). */
  readonly snapshotInterval?: number;
}

export interface ChainServiceDeps {
  readonly store: ChainStore;
  readonly proofs: ProofSystem;
  readonly clock: SlotClock;
  readonly logger: Logger;
  /** Aborting refuses new blocks (as `close` does). */
  readonly signal?: AbortSignal;
}

export interface ChainEvents {
  block: [ProcessedBlock];
  fatal: [Error];
  lib: [{ id: Uint8Array; height: number; slot: bigint }];
  /** Consensus switched from Bootstrapping to Online. */
  online: [];
}

export class ChainService extends EventEmitter<ChainEvents> {
  readonly genesis: Genesis;
  private readonly states = new Map<string, LedgerState>();
  private engine: CryptarchiaEngine;
  private lastSnapshotHeight = 0;
  /** Whether the last start restored the ledger from a stored snapshot (rather than from genesis). */
  restoredFromSnapshot = false;
  /** Grows whenever the tip, the LIB or the consensus state may have changed (for readers' caches). */
  headVersion = 0;
  private queue: Promise<unknown> = Promise.resolve();
  /** Blocks whose parent is unknown, by parent id, until the parent arrives (bounded). */
  private readonly orphans = new Map<string, Block[]>();
  private orphanCount = 0;
  static readonly MAX_ORPHANS = 1000;
  private failed: Error | undefined;
  private closed = false;
  /** The last state recording (drained with the blocks). */
  private recording: Promise<void> = Promise.resolve();
  /**
   * The head as last committed to storage. Readers (the API, the leader) see this one: while a block
   * is being stored the block tree is already ahead, and its tip must not be visible before its block
   * can be read back.
   */
  private head!: { readonly tip: BlockNode; readonly state: LedgerState; readonly lib: BlockNode };

  constructor(
    private readonly opts: ChainServiceOptions,
    private readonly deps: ChainServiceDeps,
  ) {
    super();
    deps.signal?.addEventListener('abort', () => (this.closed = true), { once: true });
    const d = opts.deployment;
    this.genesis = buildGenesis(
      d,
      { config: d.ledger, proofs: PROOFS_ALREADY_VERIFIED },
      Math.floor(opts.genesisTimeMs / 1000),
    );
    const gid = bytesToHex(this.genesis.id);
    this.engine = this.newEngine();
    this.states.set(gid, this.genesis.state);
    this.publishHead();
  }

  private newEngine(lib?: BlockNode, libUncleSlots?: readonly bigint[]): CryptarchiaEngine {
    const c = this.opts.deployment.ledger.consensus;
    return new CryptarchiaEngine({
      genesis: { id: bytesToHex(this.genesis.id), slot: 0n },
      k: c.security_param,
      sGen: epochSchedule(c).s_gen,
      state: 'Bootstrapping',
      ...(lib ? { lib } : {}),
      ...(libUncleSlots ? { libUncleSlots } : {}),
    });
  }

  /** Stores a snapshot of the LIB's ledger state when the LIB has moved far enough since the last one. */
  private async maybeSnapshot(): Promise<void> {
    const lib = this.engine.lib;
    const interval = this.opts.snapshotInterval ?? 1000;
    if (lib.length - this.lastSnapshotHeight < interval) return;
    const state = this.states.get(lib.id);
    if (!state) return;
    const t0 = performance.now();
    const bytes = encodeLedgerState(state);
    await this.deps.store.saveSnapshot(hexToBytes(lib.id), bytes);
    this.lastSnapshotHeight = lib.length;
    this.deps.logger.info(
      { height: lib.length, bytes: bytes.length, ms: Math.round(performance.now() - t0) },
      'ledger snapshot stored',
    );
  }

  get config() {
    return this.opts.deployment.ledger;
  }

  get consensusState(): ConsensusState {
    return this.engine.state;
  }

  /** A chain service on the stored chain (or on a new one, whose genesis block it stores). */
  static async init(opts: ChainServiceOptions, deps: ChainServiceDeps): Promise<ChainService> {
    const chain = new ChainService(opts, deps);
    await chain.start();
    return chain;
  }

  /** Refuses new blocks and waits for those being processed and the last state recording. */
  async close(): Promise<void> {
    this.closed = true;
    await this.drain();
  }

  /** Loads the stored chain (or stores the genesis block of a fresh one). */
  async start(): Promise<void> {
    const { store, logger } = this.deps;
    const gid = bytesToHex(this.genesis.id);
    const meta = store.meta();
    if (!store.info(this.genesis.id)) {
      if (meta.tip)
        throw new BlockRejected(
          'GENESIS_MISMATCH',
          'the stored chain has another genesis block than this deployment',
        );
      await store.commit({
        blocks: [
          {
            info: { id: this.genesis.id, parent: new Uint8Array(32), slot: 0n, height: 0n },
            block: encodeBlock(this.genesis.block),
            events: new TextEncoder().encode('[]'),
            txHashes: this.genesis.block.transactions.map((t) => txHash(t.mantle_tx)),
          },
        ],
        canonical: [{ height: 0n, id: this.genesis.id, slot: 0n }],
        meta: { tip: this.genesis.id, lib: this.genesis.id, genesisTimeMs: BigInt(this.opts.genesisTimeMs) },
      });
      logger.info({ genesis: gid }, 'new chain: genesis block stored');
    } else {
      const t0 = performance.now();
      let from = 1n;
      const snap = store.latestSnapshot();
      if (snap) {
        const lib: BlockNode = {
          id: bytesToHex(snap.info.id),
          parent: bytesToHex(snap.info.parent),
          slot: snap.info.slot,
          length: Number(snap.info.height),
        };
        // The LIB keeps the slots of its uncles, as every block of the tree does (F: states.rs).
        const libBlock = this.block(snap.info.id);
        this.engine = this.newEngine(
          lib,
          libBlock?.uncle_headers.map((u) => u.header.slot),
        );
        this.states.clear();
        this.states.set(lib.id, decodeLedgerState(snap.bytes));
        this.lastSnapshotHeight = lib.length;
        this.restoredFromSnapshot = true;
        from = snap.info.height + 1n;
      }
      let n = 0;
      for (const info of store.allBlocks(from)) {
        const parent = this.states.get(bytesToHex(info.parent));
        const bytes = store.block(info.id);
        if (!parent || !bytes) continue; // a fork that left the tree before its blocks were deleted
        const block = decodeBlock(bytes);
        const r = applyBlock(parent, block, { config: this.config, proofs: PROOFS_ALREADY_VERIFIED });
        this.track(
          r,
          info.parent,
          block.uncle_headers.map((u) => u.header.slot),
        );
        n++;
      }
      const ms = performance.now() - t0;
      logger.info(
        {
          snapshot_height: snap ? Number(snap.info.height) : null,
          blocks: n,
          ms: Math.round(ms),
          tip: this.engine.tip.id,
          height: this.engine.tip.length,
        },
        'chain restored from storage',
      );
    }
    this.publishHead();
    if (this.opts.online) this.setOnline();
  }

  /** Makes the block tree's current tip and LIB the head that readers see. */
  private publishHead(): void {
    const tip = this.engine.tip;
    this.head = { tip, state: this.states.get(tip.id)!, lib: this.engine.lib };
  }

  private track(r: BlockResult, parent: Uint8Array, uncleSlots: readonly bigint[]): ReceiveResult {
    const id = bytesToHex(r.id);
    const res = this.engine.receive(id, bytesToHex(parent), r.state.slot, uncleSlots);
    this.states.set(id, r.state);
    for (const p of res.pruned) this.states.delete(p);
    return res;
  }

  setOnline(): void {
    if (this.engine.state === 'Online') return;
    const res = this.engine.setOnline();
    for (const p of res.pruned) this.states.delete(p);
    this.deps.logger.info({ lib: this.engine.lib.id, height: this.engine.lib.length }, 'consensus is Online');
    this.publishHead();
    this.headVersion++;
    this.emit('online');
    // F (pbp.rs switch_to_online): the forks that diverged below the new LIB are deleted from storage,
    // and the state is recorded right after the switch. Queued with the blocks, so it commits in order.
    const update: ChainUpdate = {
      blocks: [],
      canonical: [],
      meta: { lib: hexToBytes(this.engine.lib.id), state: 'Online', lastOnlineMs: BigInt(Date.now()) },
      prune: res.stale.map((p) => hexToBytes(p)),
    };
    const run = this.queue.then(() => this.deps.store.commit(update));
    this.queue = run.catch((e: Error) => {
      this.deps.logger.warn({ err: e.message }, 'storing the switch to Online failed');
    });
  }

  /**
   * Stores the consensus state with the current time, so that a restart knows how long the node was
   * offline (F `record_recovery_state`). A failure is logged: the next recording retries.
   */
  recordState(): Promise<void> {
    if (this.failed) return Promise.resolve();
    const run = this.deps.store.recordState(this.engine.state, BigInt(Date.now())).catch((e: Error) => {
      this.deps.logger.warn({ err: e.message }, 'recording the consensus state failed');
    });
    this.recording = run;
    return run;
  }

  tip() {
    const { tip: t, state } = this.head;
    return { id: hexToBytes(t.id), slot: t.slot, height: t.length, state };
  }

  lib() {
    const l = this.head.lib;
    return { id: hexToBytes(l.id), slot: l.slot, height: l.length };
  }

  stateOf(id: Uint8Array): LedgerState | undefined {
    return this.states.get(bytesToHex(id));
  }

  has(id: Uint8Array): boolean {
    return this.engine.has(bytesToHex(id));
  }

  /** Validates, applies and stores a block; blocks are processed one at a time in arrival order. */
  submit(block: Block, opts: { own?: boolean } = {}): Promise<ProcessedBlock> {
    if (this.closed) return Promise.reject(new BlockRejected('CLOSED', 'the chain service is stopping'));
    const run = this.queue.then(() => this.process(block, opts.own === true));
    this.queue = run.catch(() => {});
    return run;
  }

  // ---------- orphans ----------

  private keepOrphan(parentHex: string, block: Block): void {
    if (this.orphanCount >= ChainService.MAX_ORPHANS) return;
    const list = this.orphans.get(parentHex) ?? [];
    const id = bytesToHex(headerId(block.header));
    if (list.some((b) => bytesToHex(headerId(b.header)) === id)) return;
    list.push(block);
    this.orphans.set(parentHex, list);
    this.orphanCount++;
  }

  /** Orphans waiting for `parentHex` are processed now that it is applied. */
  private adoptOrphans(parentHex: string): void {
    const waiting = this.orphans.get(parentHex);
    if (!waiting) return;
    this.orphans.delete(parentHex);
    this.orphanCount -= waiting.length;
    for (const b of waiting) {
      this.submit(b).catch((e: Error) => this.deps.logger.debug({ err: e.message }, 'orphan rejected'));
    }
  }

  // ---------- uncles ----------

  private uncleWindow(): bigint {
    return epochSchedule(this.config.consensus).uncle_window_slots;
  }

  /** Uncles a new block on `parent` at `slot` references (F `select_uncles`), with their signed headers. */
  unclesFor(parent: Uint8Array, slot: bigint): SignedHeader[] {
    const nodes = this.engine.selectUncles(bytesToHex(parent), slot, this.uncleWindow());
    const out: SignedHeader[] = [];
    for (const n of nodes) {
      // Every block of the tree is stored; a proposal with fewer uncles is still valid.
      const b = this.block(hexToBytes(n.id));
      if (b) out.push({ header: b.header, signature: b.signature });
    }
    return out;
  }

  /** The uncle validity rules (uncles.ts), against the block tree and the ledger states. */
  private async checkUncles(block: Block, parentHex: string): Promise<void> {
    try {
      await verifyUncles(block.uncle_headers, parentHex, block.header.slot, {
        node: (id) => this.engine.get(id),
        oldest: this.engine.lib.id,
        state: (id) => this.states.get(id),
        windowSlots: this.uncleWindow(),
        config: this.config,
        proofs: this.deps.proofs,
      });
    } catch (e) {
      if (e instanceof InvalidUncle) throw new BlockRejected('INVALID_UNCLE', e.message, { cause: e });
      throw e;
    }
  }

  // ---------- reads (what the API serves) ----------

  /** A stored block (any fork still stored, and all canonical history). */
  block(id: Uint8Array): Block | undefined {
    const bytes = this.deps.store.block(id);
    return bytes ? decodeBlock(bytes) : undefined;
  }

  /** The ledger events of a stored block, as their JSON text. */
  eventsJson(id: Uint8Array): string | undefined {
    const bytes = this.deps.store.events(id);
    return bytes ? new TextDecoder().decode(bytes) : undefined;
  }

  /** Canonical blocks with slot in [from, to], at most `limit`, oldest first; only up to `maxHeight` if given. */
  canonicalBySlot(from: bigint, to: bigint, limit?: number): { slot: bigint; id: Uint8Array }[] {
    return [...this.deps.store.canonicalBySlot(from, to, limit !== undefined ? { limit } : {})];
  }

  /** Canonical blocks with slot in [from, to], at most `limit`, newest first. */
  canonicalBySlotDesc(from: bigint, to: bigint, limit?: number): { slot: bigint; id: Uint8Array }[] {
    return [
      ...this.deps.store.canonicalBySlot(from, to, {
        reverse: true,
        ...(limit !== undefined ? { limit } : {}),
      }),
    ];
  }

  /** Header ids walking back from `from` (default the tip) to `to` (default the LIB), newest first, at most `limit`. */
  headerIds(from?: Uint8Array, to?: Uint8Array, limit = 512): Uint8Array[] {
    const out: Uint8Array[] = [];
    let cur = from ? bytesToHex(from) : this.head.tip.id;
    const stop = to ? bytesToHex(to) : this.head.lib.id;
    while (out.length < limit) {
      const info = this.deps.store.info(hexToBytes(cur));
      if (!info) break;
      out.push(info.id);
      if (cur === stop || info.height === 0n) break;
      cur = bytesToHex(info.parent);
    }
    return out;
  }

  /** Where a transaction of the canonical chain was included. */
  transactionLocation(hash: Uint8Array): { block: Uint8Array; position: number } | undefined {
    return this.deps.store.txLocation(hash);
  }

  /** Waits for the blocks being processed. */
  async drain(): Promise<void> {
    await this.queue;
    await this.recording;
  }

  private async process(block: Block, own: boolean): Promise<ProcessedBlock> {
    const t0 = performance.now();
    const { store, proofs, clock } = this.deps;
    if (this.failed)
      throw new BlockRejected('STORAGE', `the chain stopped after a storage failure: ${this.failed.message}`);
    const id = headerId(block.header);
    const hex = bytesToHex(id);
    if (this.engine.has(hex)) throw new BlockRejected('ALREADY_APPLIED', `block ${hex} is already applied`);
    // F (chain-service try_apply_block): a block from a future slot is refused before its parent is looked up.
    if (block.header.slot > clock.currentSlot()) {
      throw new BlockRejected(
        'FUTURE_BLOCK',
        `block slot ${block.header.slot} is after the current slot ${clock.currentSlot()}`,
      );
    }
    const parentHex = bytesToHex(block.header.parent_block);
    const parent = this.states.get(parentHex);
    if (!parent) {
      this.keepOrphan(parentHex, block);
      throw new BlockRejected('PARENT_MISSING', `the parent ${parentHex} of block ${hex} is unknown`);
    }
    try {
      checkBlockStructure(block);
    } catch (e) {
      throw new BlockRejected('INVALID_BLOCK', (e as Error).message, { cause: e });
    }
    await this.checkUncles(block, parentHex);
    let r: BlockResult;
    try {
      r = await applyBlockVerified(parent, block, this.config, proofs, { skipProofOfLeadership: own });
    } catch (e) {
      throw new BlockRejected('LEDGER', (e as Error).message, { cause: e });
    }
    const prevLib = this.engine.lib.id;
    const res = this.track(
      r,
      block.header.parent_block,
      block.uncle_headers.map((u) => u.header.slot),
    );
    const height = this.engine.get(hex)!.length;
    const update: ChainUpdate = {
      blocks: [
        {
          info: { id, parent: block.header.parent_block, slot: block.header.slot, height: BigInt(height) },
          block: encodeBlock(block),
          events: new TextEncoder().encode(stringifyJson(eventsToJson(r.events))),
          txHashes: block.transactions.map((t) => txHash(t.mantle_tx)),
        },
      ],
      canonical: res.applied.map((b) => ({ height: BigInt(b.length), id: hexToBytes(b.id), slot: b.slot })),
      reverted: res.reverted.map((b) => ({
        id: hexToBytes(b.id),
        slot: b.slot,
        txHashes: this.txHashesOf(b.id),
      })),
      meta: {
        tip: hexToBytes(this.engine.tip.id),
        lib: hexToBytes(this.engine.lib.id),
        state: this.engine.state,
        lastOnlineMs: BigInt(Date.now()),
      },
      // Blocks below the LIB leave the tree but stay stored as canonical history; dead forks are deleted.
      prune: res.stale.map((p) => hexToBytes(p)),
    };
    if (res.tipChanged && res.applied.length > 0) {
      const top = res.applied[res.applied.length - 1]!;
      (update as { removeCanonicalAbove?: bigint }).removeCanonicalAbove = BigInt(top.length);
    }
    try {
      await store.commit(update);
    } catch (e) {
      // The block tree already holds the block; storage no longer matches it. Nothing sensible can
      // follow: stop accepting blocks and let the node shut down (a restart replays storage).
      this.failed = e as Error;
      this.emit('fatal', this.failed);
      throw new BlockRejected('STORAGE', `storing block ${hex} failed: ${(e as Error).message}`, {
        cause: e,
      });
    }
    this.publishHead();
    const { tip, lib } = this.head;
    const processed: ProcessedBlock = {
      block,
      id,
      height,
      events: r.events,
      tip: { id: hexToBytes(tip.id), slot: tip.slot, height: tip.length },
      lib: { id: hexToBytes(lib.id), slot: lib.slot, height: lib.length },
    };
    if (!own) {
      this.deps.logger.info(
        {
          slot: Number(block.header.slot),
          height,
          txs: block.transactions.length,
          ms: Math.round(performance.now() - t0),
          tip_changed: res.tipChanged,
        },
        'block applied',
      );
    }
    this.headVersion++;
    this.emit('block', processed);
    if (lib.id !== prevLib) {
      this.emit('lib', processed.lib);
      // A snapshot only shortens restarts; failing to store one loses nothing.
      await this.maybeSnapshot().catch((e: Error) =>
        this.deps.logger.warn({ err: e.message }, 'storing a ledger snapshot failed'),
      );
    }
    this.adoptOrphans(hex);
    return processed;
  }

  private txHashesOf(hexId: string): Uint8Array[] {
    return this.deps.store.blockTxHashes(hexToBytes(hexId)) ?? [];
  }
}
