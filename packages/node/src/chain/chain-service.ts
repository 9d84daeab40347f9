/**
 * The chain service: accepts blocks (own or received) in arrival order, has them verified
 * (blocks/verify-block.ts), keeps one ledger state per block of the block tree above the latest
 * immutable block, runs fork choice through the Cryptarchia engine, and imports every accepted block
 * (blocks/import-block.ts: its effects on the canonical indices in one atomic storage transaction,
 * its event, the LIB's snapshots). Blocks with an unknown parent wait in the orphan pool (orphans.ts).
 *
 * A block goes through two stages, each taking blocks one at a time in arrival order:
 * - prepare: duplicate, time and parent checks, structure, uncles, the ledger with its proofs sent to
 *   the proof backend (not awaited);
 * - finish: once the block's proofs are checked, fork choice, the storage commit, the events.
 * So while the proofs of a block are verified, the next blocks are prepared (on the ledger state of
 * their parent even if that parent is not finished yet) and their proofs join the backend's queue:
 * a burst of blocks (sync) has the proofs of consecutive blocks verified together. A block whose
 * parent turns out invalid is rejected with `BLOCK_PARENT_REJECTED`; at most `MAX_IN_FLIGHT` blocks
 * are between the stages. Only blocks whose proofs verified reach the block tree and storage.
 *
 * On start it rebuilds the tree and the states from storage (restore.ts); what it reads of stored
 * blocks for the API and the other services is reads.ts.
 */

import { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import type { Block } from '../block/block.ts';
import { headerId, type SignedHeader } from '../block/header.ts';
import { bytesEqual, bytesToHex, hexToBytes } from '../codec/hex.ts';
import {
  type BlockNode,
  type ConsensusState,
  CryptarchiaEngine,
  type ReceiveResult,
} from '../consensus/engine.ts';
import type { BlockResult } from '../ledger/apply.ts';
import type { Deployment } from '../ledger/deployment.ts';
import { buildGenesis, type Genesis } from '../ledger/genesis.ts';
import { epochSchedule } from '../ledger/parameters.ts';
import { PROOFS_ALREADY_VERIFIED, type ProofSystem } from '../ledger/proof-system.ts';
import { encodeLedgerState } from '../ledger/snapshot.ts';
import type { LedgerState } from '../ledger/state.ts';
import type { ChainStore, ChainUpdate } from '../storage/chain-store.ts';
import { type Meter, NO_METER, secondsSince } from '../util/meter.ts';
import {
  blockUpdate,
  checkpointUpdate,
  genesisUpdate,
  processedBlock,
  SnapshotSchedule,
} from './blocks/import-block.ts';
import { checkBlockTime, type PreparedBlock, prepareBlock } from './blocks/verify-block.ts';
import { type Checkpoint, encodeCheckpoint } from './checkpoint.ts';
import type { SlotClock } from './clock.ts';
import { alreadyApplied, BlockRejected, headerIdText, parentMissing, parentRejected } from './errors.ts';
import type { BlockRef, ChainEvents, ChainTip, IChain, ProcessedBlock } from './interface.ts';
import { OrphanPool } from './orphans.ts';
import { ChainReads } from './reads.ts';
import { restoreChain } from './restore.ts';
import type { UncleContext } from './uncles.ts';

export { BlockRejected } from './errors.ts';
export type { ChainEvents, ProcessedBlock } from './interface.ts';

export interface ChainServiceOptions {
  readonly deployment: Deployment;
  readonly genesisTimeMs: number;
  /** Start Online right away (a node that knows it is caught up); otherwise Bootstrapping. */
  readonly online: boolean;
  /**
   * A new node starts from this checkpoint (decoded and checked, chain/checkpoint.ts): its block is the
   * LIB and tip, its state the LIB's. Refused when the data folder holds a chain.
   */
  readonly checkpoint?: Checkpoint & { readonly decodedBlock: Block };
  /** A ledger snapshot is stored each time the LIB has advanced this many blocks (default 1000). */
  readonly snapshotInterval?: number;
  /**
   * Records the consensus state once started and then every this many ms (F: the chain service's
   * `state_recording_timer`, a tokio interval, ticks first right away); 0 records at start and with
   * the blocks only; absent, with the blocks only.
   */
  readonly stateRecordingIntervalMs?: number;
}

export interface ChainServiceDeps {
  readonly store: ChainStore;
  readonly proofs: ProofSystem;
  readonly clock: SlotClock;
  readonly logger: Logger;
  /** Aborting refuses new blocks (as `close` does). */
  readonly signal?: AbortSignal;
  /** Times block application and storage commits, counts refused blocks (absent: not counted). */
  readonly meter?: Meter;
}

/** Refusals of a block already known or of a chain that stops: not counted as failed applications. */
// inferred: duplicates are not failed applications (docs/design/fidelity.md "Metrics")
const NOT_FAILURES = new Set(['BLOCK_ALREADY_APPLIED', 'BLOCK_ALREADY_SEEN', 'BLOCK_CHAIN_CLOSED']);

/** A block between the prepare and the finish stages. */
interface InFlight {
  readonly block: Block;
  readonly id: Uint8Array;
  readonly hex: string;
  readonly own: boolean;
  readonly t0: number;
  readonly parentHex: string;
  /**
   * The parent, when it was itself between the stages as this block was prepared (dropped once this
   * block is finished, so that finished blocks do not hold on to each other).
   */
  parent: InFlight | undefined;
  /** The block's place in the tree once finished (for the uncle rules of the blocks prepared on it). */
  readonly node: BlockNode;
  readonly prepared: PreparedBlock;
  /** Why its finish failed, once it did. */
  error?: unknown;
  /** Resolves once it is finished, either way. */
  readonly settled: Promise<void>;
  readonly markSettled: () => void;
}

export class ChainService extends EventEmitter<ChainEvents> implements IChain {
  readonly genesis: Genesis;
  private readonly states = new Map<string, LedgerState>();
  private engine: CryptarchiaEngine;
  private readonly snapshots: SnapshotSchedule;
  private readonly reads: ChainReads;
  /** Whether the last start restored the ledger from a stored snapshot (rather than from genesis). */
  restoredFromSnapshot = false;
  /** Grows whenever the tip, the LIB or the consensus state may have changed (for readers' caches). */
  headVersion = 0;
  /** The prepare stage's queue. */
  private prepQueue: Promise<unknown> = Promise.resolve();
  /** The finish stage's queue (and everything committed in order with the blocks). */
  private finishQueue: Promise<unknown> = Promise.resolve();
  /** Blocks prepared and not finished, oldest first. */
  private readonly inFlight = new Map<string, InFlight>();
  /** Blocks prepared and not finished at most (each holds its ledger state). */
  static readonly MAX_IN_FLIGHT = 16;
  static readonly MAX_ORPHANS = 1000;
  /** Blocks whose parent is unknown, until the parent arrives. */
  private readonly orphans = new OrphanPool(ChainService.MAX_ORPHANS);
  private failed: Error | undefined;
  private closed = false;
  /** The last state recording (drained with the blocks). */
  private recording: Promise<void> = Promise.resolve();
  private recordingTimer: NodeJS.Timeout | undefined;
  /**
   * The head as last committed to storage. Readers (the API, the leader) see this one: while a block
   * is being stored the block tree is already ahead, and its tip must not be visible before its block
   * can be read back.
   */
  private head!: { readonly tip: BlockNode; readonly state: LedgerState; readonly lib: BlockNode };

  private readonly meter: Meter;
  /** The last checkpoint encoded (a block id and its bytes). */
  private checkpointCache: { readonly id: string; readonly bytes: Uint8Array } | undefined;
  /** The latest LIBs with their states, oldest first (checkpoints are served of them). */
  private readonly recentLibs = new Map<string, { readonly node: BlockNode; readonly state: LedgerState }>();
  /** How many LIBs `recentLibs` keeps. */
  static readonly RECENT_LIBS = 64;

  private constructor(
    private readonly opts: ChainServiceOptions,
    private readonly deps: ChainServiceDeps,
  ) {
    super();
    this.meter = deps.meter ?? NO_METER;
    deps.signal?.addEventListener('abort', () => (this.closed = true), { once: true });
    const d = opts.deployment;
    this.genesis = buildGenesis(
      d,
      { config: d.ledger, proofs: PROOFS_ALREADY_VERIFIED },
      Math.floor(opts.genesisTimeMs / 1000),
    );
    const gid = bytesToHex(this.genesis.id);
    this.engine = this.newEngine();
    this.snapshots = new SnapshotSchedule(deps.store, deps.logger, opts.snapshotInterval ?? 1000);
    this.reads = new ChainReads(deps.store, deps.logger);
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

  get config() {
    return this.opts.deployment.ledger;
  }

  /**
   * The checkpoint of the LIB, or of `id` when it is the LIB or one of the last `RECENT_LIBS` LIBs: its
   * block and the ledger state after it; undefined for another block. The last one encoded is kept.
   */
  checkpoint(id?: Uint8Array): Uint8Array | undefined {
    const lib = this.engine.lib;
    const hex = id === undefined ? lib.id : bytesToHex(id);
    if (this.checkpointCache?.id === hex) return this.checkpointCache.bytes;
    const node = hex === lib.id ? { node: lib, state: this.states.get(lib.id) } : this.recentLibs.get(hex);
    // Genesis needs no checkpoint: every node has it.
    if (node?.state === undefined || node.node.length === 0) return undefined;
    const blockId = hexToBytes(hex);
    const block = this.deps.store.block(blockId);
    if (block === undefined) return undefined;
    const bytes = encodeCheckpoint({
      genesis: this.genesis.id,
      id: blockId,
      slot: node.node.slot,
      height: BigInt(node.node.length),
      block,
      state: encodeLedgerState(node.state),
    });
    this.checkpointCache = { id: hex, bytes };
    return bytes;
  }

  /** Whether the checkpoint of the LIB (or of `id`) is encoded already (the last one asked for is). */
  checkpointEncoded(id?: Uint8Array): boolean {
    return this.checkpointCache?.id === (id === undefined ? this.engine.lib.id : bytesToHex(id));
  }

  /**
   * Keeps the state of a new LIB among the recent ones (immutable, so it never changes), so that a
   * checkpoint asked for by id is still served a few blocks after its block stopped being the LIB.
   */
  private rememberLib(lib: BlockNode): void {
    const state = this.states.get(lib.id);
    if (state === undefined) return;
    this.recentLibs.set(lib.id, { node: lib, state });
    if (this.recentLibs.size > ChainService.RECENT_LIBS)
      this.recentLibs.delete(this.recentLibs.keys().next().value!);
  }

  /** Fork tips other than the tip's (forks above the LIB beside the canonical chain). */
  forkCount(): number {
    return Math.max(0, this.engine.forkTips().length - 1);
  }

  get consensusState(): ConsensusState {
    return this.engine.state;
  }

  /** What the node says of its chain once it is ready: its id, genesis, slot length and consensus state. */
  summary(): Record<string, string | number> {
    return {
      chain_id: this.genesis.parameter.chain_id,
      genesis_time: new Date(this.opts.genesisTimeMs).toISOString(),
      genesis: bytesToHex(this.genesis.id),
      slot_ms: this.opts.deployment.slot_duration_ms,
      state: this.consensusState,
    };
  }

  /** A chain service on the stored chain (or on a new one, whose genesis block it stores). */
  static async init(opts: ChainServiceOptions, deps: ChainServiceDeps): Promise<ChainService> {
    const chain = new ChainService(opts, deps);
    await chain.load();
    const every = opts.stateRecordingIntervalMs;
    if (every !== undefined) {
      void chain.recordState();
      // inferred: a zero interval records with the blocks only (F cannot start with it) (docs/design/fidelity.md)
      if (every > 0) chain.recordingTimer = setInterval(() => void chain.recordState(), every);
    }
    return chain;
  }

  /** Refuses new blocks and waits for those being processed and the last state recording. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.recordingTimer);
    await this.drain();
  }

  /** Loads the stored chain (or stores the genesis block of a fresh one, and its checkpoint). */
  private async load(): Promise<void> {
    const { store, logger } = this.deps;
    const gid = bytesToHex(this.genesis.id);
    const meta = store.meta();
    const cp = this.opts.checkpoint;
    if (cp && !bytesEqual(cp.genesis, this.genesis.id))
      throw new BlockRejected(
        'BLOCK_GENESIS_MISMATCH',
        `the checkpoint is of another chain (genesis ${bytesToHex(cp.genesis)}, this deployment's ${gid})`,
      );
    if (cp && (store.tipHeight() ?? 0n) > 0n)
      throw new BlockRejected(
        'BLOCK_CHECKPOINT_ON_CHAIN',
        'a checkpoint starts a new node: the data folder holds a chain already (start without the checkpoint, or from an empty data folder)',
      );
    const fresh = !store.info(this.genesis.id);
    if (fresh && meta.tip)
      throw new BlockRejected(
        'BLOCK_GENESIS_MISMATCH',
        'the stored chain has another genesis block than this deployment',
      );
    if (cp) {
      // Genesis (when new), the checkpoint's block and its state: one transaction, all or nothing.
      const genesis = fresh ? { genesis: this.genesis, genesisTimeMs: this.opts.genesisTimeMs } : undefined;
      await store.commit(checkpointUpdate(cp, genesis));
      logger.info(
        { block: bytesToHex(cp.id), slot: Number(cp.slot), height: Number(cp.height) },
        'started from a checkpoint: its state is the LIB; the blocks after it are verified in full',
      );
    } else if (fresh) {
      await store.commit(genesisUpdate(this.genesis, this.opts.genesisTimeMs));
      logger.info({ genesis: gid }, 'new chain: genesis block stored');
    }
    if (!fresh || cp) {
      await restoreChain(store, this.config, logger, {
        engine: () => this.engine,
        resetTo: (lib, state, libUncleSlots) => {
          this.engine = this.newEngine(lib, libUncleSlots);
          this.states.clear();
          this.states.set(lib.id, state);
          this.snapshots.lastHeight = lib.length;
          this.restoredFromSnapshot = true;
        },
        stateAfter: (id) => this.states.get(id),
        add: (r, parent, uncleSlots) => void this.track(r, parent, uncleSlots),
      });
    }
    this.publishHead();
    this.rememberLib(this.engine.lib);
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
    const run = this.finishQueue.then(() => this.deps.store.commit(update));
    this.finishQueue = run.catch((e: Error) => {
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

  tip(): ChainTip {
    const { tip: t, state } = this.head;
    return { id: hexToBytes(t.id), slot: t.slot, height: t.length, state };
  }

  lib(): BlockRef {
    const l = this.head.lib;
    return { id: hexToBytes(l.id), slot: l.slot, height: l.length };
  }

  stateOf(id: Uint8Array): LedgerState | undefined {
    return this.states.get(bytesToHex(id));
  }

  has(id: Uint8Array): boolean {
    return this.engine.has(bytesToHex(id));
  }

  /**
   * Validates, applies and stores a block. Blocks are prepared and finished in arrival order; a block
   * submitted before the previous one is finished is prepared meanwhile (see the top of this file).
   */
  submit(block: Block, opts: { own?: boolean } = {}): Promise<ProcessedBlock> {
    if (this.closed)
      return Promise.reject(new BlockRejected('BLOCK_CHAIN_CLOSED', 'the chain service is stopping'));
    const prepared = this.prepQueue.then(() => this.prepare(block, opts.own === true));
    this.prepQueue = prepared.catch(() => {});
    const done = prepared.then((p) => p.done);
    done.catch((e: { code?: string; message?: string }) => {
      const code = e.code ?? '';
      if (NOT_FAILURES.has(code)) return;
      const reason = code === 'BLOCK_PARENT_MISSING' ? 'parent_missing' : 'other';
      this.meter.count('consensus_apply_block_failed_total', 1, { reason });
      if (reason === 'other' && (e as { action?: string }).action === 'reject')
        this.emit('refused', {
          id: headerId(block.header),
          parent: block.header.parent_block,
          code,
          message: e.message ?? String(e),
        });
    });
    return done;
  }

  // ---------- orphans ----------

  /** Orphans waiting for `parentHex` are processed now that it is applied. */
  private adoptOrphans(parentHex: string): void {
    for (const b of this.orphans.take(parentHex)) {
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

  /** What the uncle rules read: the block tree and its ledger states, with the blocks on their way in. */
  private uncleContext(): UncleContext {
    return {
      node: (id) => this.engine.get(id) ?? this.inFlight.get(id)?.node,
      oldest: this.engine.lib.id,
      state: (id) => this.states.get(id) ?? this.inFlight.get(id)?.prepared.result.state,
      windowSlots: this.uncleWindow(),
      config: this.config,
      proofs: this.deps.proofs,
    };
  }

  // ---------- reads (what the API serves: reads.ts) ----------

  /** A stored block (any fork still stored, and all canonical history). */
  block(id: Uint8Array): Block | undefined {
    return this.reads.block(id);
  }

  blockBytes(id: Uint8Array): Uint8Array | undefined {
    return this.reads.blockBytes(id);
  }

  blockRef(id: Uint8Array): (BlockRef & { readonly parent: Uint8Array }) | undefined {
    return this.reads.blockRef(id);
  }

  /** The ledger events of a stored block, as their JSON text. */
  eventsJson(id: Uint8Array): string | undefined {
    return this.reads.eventsJson(id);
  }

  /** Canonical blocks with slot in [from, to], at most `limit`, oldest first. */
  canonicalBySlot(from: bigint, to: bigint, limit?: number): { slot: bigint; id: Uint8Array }[] {
    return this.reads.canonicalBySlot(from, to, limit);
  }

  /** Canonical blocks with slot in [from, to], at most `limit`, newest first. */
  canonicalBySlotDesc(from: bigint, to: bigint, limit?: number): { slot: bigint; id: Uint8Array }[] {
    return this.reads.canonicalBySlotDesc(from, to, limit);
  }

  /** Header ids walking back from `from` (default the tip) to `to` (default the LIB), newest first, at most `limit`. */
  headerIds(from?: Uint8Array, to?: Uint8Array, limit = 512): Uint8Array[] {
    const { tip, lib } = this.head;
    return this.reads.headerIds(from ? bytesToHex(from) : tip.id, to ? bytesToHex(to) : lib.id, limit);
  }

  /** Where a transaction of the canonical chain was included. */
  transactionLocation(hash: Uint8Array): { block: Uint8Array; position: number } | undefined {
    return this.reads.transactionLocation(hash);
  }

  /** Waits for the blocks being processed (and the orphans they adopt). */
  async drain(): Promise<void> {
    for (;;) {
      const prep = this.prepQueue;
      await prep;
      const fin = this.finishQueue;
      await fin;
      if (prep === this.prepQueue && fin === this.finishQueue) break;
    }
    await this.recording;
  }

  private checkNotFailed(): void {
    if (this.failed) {
      throw new BlockRejected(
        'BLOCK_STORAGE',
        `the chain stopped after a storage failure: ${this.failed.message}`,
      );
    }
  }

  /**
   * The prepare stage: the checks up to the ledger's proofs, which go to the proof backend. Returns
   * (boxed, so that it is not awaited here) the block's finish, queued after the blocks before it.
   */
  private async prepare(block: Block, own: boolean): Promise<{ readonly done: Promise<ProcessedBlock> }> {
    const t0 = performance.now();
    // Bounded: a block is prepared once fewer than MAX_IN_FLIGHT blocks wait for their finish.
    while (this.inFlight.size >= ChainService.MAX_IN_FLIGHT)
      await this.inFlight.values().next().value!.settled;
    this.checkNotFailed();
    const id = headerId(block.header);
    const hex = bytesToHex(id);
    const slot = block.header.slot;
    const same = this.inFlight.get(hex);
    if (same) {
      // The same block is on its way: this one is checked again once that one is through.
      await same.settled;
      return this.prepare(block, own);
    }
    if (this.engine.has(hex)) {
      throw alreadyApplied(hex, slot);
    }
    // F (chain-service try_apply_block): a block from a future slot is refused before its parent is looked up.
    checkBlockTime(block, this.deps.clock.currentSlot());
    const parentHex = bytesToHex(block.header.parent_block);
    const parentFlight = this.inFlight.get(parentHex);
    const parentState = parentFlight ? parentFlight.prepared.result.state : this.states.get(parentHex);
    const parentNode = parentFlight ? parentFlight.node : this.engine.get(parentHex);
    if (!parentState || !parentNode) {
      this.orphans.add(parentHex, block);
      throw parentMissing(hex, slot, parentHex);
    }
    const prepared = await prepareBlock(block, parentState, this.uncleContext(), { own });
    let markSettled!: () => void;
    const settled = new Promise<void>((resolve) => (markSettled = resolve));
    const f: InFlight = {
      block,
      id,
      hex,
      own,
      t0,
      parentHex,
      parent: parentFlight,
      node: { id: hex, parent: parentHex, slot, length: parentNode.length + 1 },
      prepared,
      settled,
      markSettled,
    };
    this.inFlight.set(hex, f);
    const done = this.finishQueue.then(() => this.finish(f));
    this.finishQueue = done.catch(() => {});
    return { done };
  }

  private async finish(f: InFlight): Promise<ProcessedBlock> {
    try {
      return await this.finishBlock(f);
    } catch (e) {
      f.error = e;
      throw e;
    } finally {
      this.inFlight.delete(f.hex);
      f.parent = undefined;
      f.markSettled();
    }
  }

  /** The finish stage: the block's proofs checked, it joins the tree and storage. */
  private async finishBlock(f: InFlight): Promise<ProcessedBlock> {
    this.checkNotFailed();
    const { block, id, hex, own, t0, parentHex } = f;
    const slot = block.header.slot;
    // inferred: a block prepared on a parent then refused as invalid is refused too (docs/design/fidelity.md)
    const rejected = parentRejected(f.parent?.error, hex, slot, parentHex);
    if (rejected) throw rejected;
    if (!this.states.has(parentHex)) {
      // The parent failed for another reason, or left the tree meanwhile: as any block whose parent is unknown.
      this.orphans.add(parentHex, block);
      throw parentMissing(hex, slot, parentHex);
    }
    const failure = await f.prepared.proofsChecked;
    if (failure) throw failure;
    const r = f.prepared.result;

    const prevLib = this.engine.lib.id;
    const change = this.track(
      r,
      block.header.parent_block,
      block.uncle_headers.map((u) => u.header.slot),
    );
    const height = this.engine.get(hex)!.length;
    const tree = { change, tip: this.engine.tip, lib: this.engine.lib, state: this.engine.state };
    const update = blockUpdate(block, id, height, r, tree, (h) => this.reads.txHashesOf(h));
    // The canonical chain's change, read before the commit deletes the dead forks (F reads the reorged
    // blocks before deleting the stale ones: chain-service `process_block_and_update_state`).
    const canonical = {
      applied: change.applied.flatMap((n) => (n.id === hex ? [block] : this.reads.storedBlock(n.id))),
      reverted: change.reverted.flatMap((n) => this.reads.storedBlock(n.id)),
    };
    const committing = performance.now();
    try {
      await this.deps.store.commit(update);
      this.meter.observe('storage_request_duration_seconds', secondsSince(committing));
    } catch (e) {
      this.meter.count('storage_request_failed_total');
      // The block tree already holds the block; storage no longer matches it. Nothing sensible can
      // follow: stop accepting blocks and let the node shut down (a restart replays storage).
      this.failed = e as Error;
      this.emit('fatal', this.failed);
      throw new BlockRejected(
        'BLOCK_STORAGE',
        `storing block ${headerIdText(hex)} failed: ${(e as Error).message}`,
        {
          cause: e,
          meta: { block: hex, slot },
        },
      );
    }
    this.publishHead();
    this.meter.observe('consensus_apply_block_seconds', secondsSince(t0));
    const processed = processedBlock(block, id, height, r, this.head, canonical);
    if (!own) {
      this.deps.logger.info(
        {
          block: hex,
          slot: Number(slot),
          height,
          txs: block.transactions.length,
          ms: Math.round(performance.now() - t0),
          tip_changed: change.tipChanged,
        },
        'block applied',
      );
    }
    this.headVersion++;
    this.emit('block', processed);
    if (this.head.lib.id !== prevLib) {
      this.emit('lib', processed.lib);
      // A snapshot only shortens restarts; failing to store one loses nothing.
      const lib = this.engine.lib;
      this.rememberLib(lib);
      await this.snapshots
        .maybeStore(lib, this.states.get(lib.id))
        .catch((e: Error) => this.deps.logger.warn({ err: e.message }, 'storing a ledger snapshot failed'));
    }
    this.adoptOrphans(hex);
    return processed;
  }
}
