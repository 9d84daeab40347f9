/**
 * The chain double: `FakeChain implements IChain`, a block tree of ledger states in memory. Blocks are
 * made on the ledger test chain (`TestChain`, insecure proofs) with `extend`, or put with any ledger
 * state a test needs with `put` (their block then is `stubBlock`: the parent and slot are right, the rest
 * is zero). Every block added or made the tip is announced with a `block` event carrying the canonical
 * chain's change; `finalize` moves the LIB (and may prune below it) with a `lib` event; `goOnline` sets
 * the consensus state with an `online` event. `submit` applies a block with the ledger rules, or runs
 * the `submit` option (a test's outcome) and stores the block when it answers without throwing.
 * The events and the interface are the node's (src/chain/interface.ts); the fork choice is not: the tip
 * moves only where a test says.
 */
import { EventEmitter } from 'node:events';
import { type Block, encodeBlock } from '../../src/block/block.ts';
import { headerId, type SignedHeader } from '../../src/block/header.ts';
import type { BlockRef, ChainEvents, ChainTip, IChain, ProcessedBlock } from '../../src/chain/index.ts';
import { bytesToHex } from '../../src/codec/hex.ts';
import type { ConsensusState } from '../../src/consensus/engine.ts';
import { applyBlock } from '../../src/ledger/apply.ts';
import type { LedgerEvent } from '../../src/ledger/events.ts';
import type { Genesis } from '../../src/ledger/genesis.ts';
import type { LedgerConfig } from '../../src/ledger/parameters.ts';
import type { LedgerState } from '../../src/ledger/state.ts';
import { type SignedMantleTx, txHash } from '../../src/mantle/tx.ts';
import { TestChain } from './ledger.ts';

export interface FakeChainOptions {
  /** Makes the blocks of `extend` and holds the deployment (default a new devnet `TestChain`). */
  readonly ledger?: TestChain;
  /** The genesis ledger state (default the ledger's), e.g. one holding only the notes a test reads. */
  readonly genesisState?: LedgerState;
  /** The genesis id (default the ledger's). */
  readonly genesisId?: Uint8Array;
  /** Default the ledger's deployment. */
  readonly config?: LedgerConfig;
  /** Default `Online`. */
  readonly consensusState?: ConsensusState;
  /**
   * What `submit` does with a block instead of applying it: throw to refuse it (`attempt` counts the
   * earlier submissions of the same block); when it returns, the block is stored (not made the tip).
   */
  readonly submit?: (block: Block, attempt: number) => void;
}

interface Node {
  readonly id: Uint8Array;
  readonly parent: Uint8Array | undefined;
  readonly block: Block | undefined;
  readonly state: LedgerState;
  readonly height: number;
  readonly slot: bigint;
}

/** A block that carries only its parent, slot and voucher commitment (everything else zero). */
export function stubBlock(parent: Uint8Array, slot = 0n, voucherCm = 0n): Block {
  return {
    header: {
      parent_block: parent,
      slot,
      body_root: new Uint8Array(32),
      proof_of_leadership: {
        proof: new Uint8Array(128),
        entropy_contribution: 0n,
        leader_key: new Uint8Array(32),
        voucher_cm: voucherCm,
      },
    },
    signature: new Uint8Array(64),
    uncle_headers: [],
    transactions: [],
  };
}

export class FakeChain extends EventEmitter<ChainEvents> implements IChain {
  readonly ledger: TestChain;
  readonly genesis: Genesis;
  consensusState: ConsensusState;
  headVersion = 0;
  /** The hex id of every block given to `submit`, in order. */
  readonly submitted: string[] = [];
  private readonly nodes = new Map<string, Node>();
  private readonly onSubmit: FakeChainOptions['submit'];
  private tipId: Uint8Array;
  private libId: Uint8Array;
  private readonly ledgerConfig: LedgerConfig;

  constructor(opts: FakeChainOptions = {}) {
    super();
    this.ledger = opts.ledger ?? new TestChain();
    const g = this.ledger.genesis;
    this.genesis = { ...g, id: opts.genesisId ?? g.id, state: opts.genesisState ?? g.state };
    this.ledgerConfig = opts.config ?? this.ledger.ctx.config;
    this.consensusState = opts.consensusState ?? 'Online';
    this.onSubmit = opts.submit;
    const id = this.genesis.id;
    this.nodes.set(bytesToHex(id), {
      id,
      parent: undefined,
      block: undefined,
      state: this.genesis.state,
      height: 0,
      slot: 0n,
    });
    this.tipId = id;
    this.libId = id;
  }

  get config(): LedgerConfig {
    return this.ledgerConfig;
  }

  // ---- building the tree

  /**
   * A valid block with `txs` on `parent` (default the tip) at `slot` (default the parent's next slot, one
   * more when it does not become the tip); it becomes the tip when `makeTip` (default). Returns its id.
   */
  extend(
    txs: SignedMantleTx[],
    opts: { parent?: Uint8Array; makeTip?: boolean; slot?: bigint } = {},
  ): Uint8Array {
    const parent = this.node(opts.parent ?? this.tipId);
    this.ledger.state = parent.state;
    this.ledger.tip = parent.id;
    const block = this.ledger.block(
      txs,
      opts.slot ?? parent.state.slot + 1n + (opts.makeTip === false ? 1n : 0n),
    );
    const r = applyBlock(parent.state, block, this.ledger.ctx);
    if (opts.makeTip !== false) {
      this.ledger.state = r.state;
      this.ledger.tip = r.id;
    }
    this.store({
      id: r.id,
      parent: parent.id,
      block,
      state: r.state,
      height: parent.height + 1,
      slot: block.header.slot,
    });
    this.moveTip(r.id, opts.makeTip !== false, r.events);
    return r.id;
  }

  /**
   * Puts block `id` on `parent` (default the block's parent, else the tip) with this ledger state (default the parent's) and
   * block (default a `stubBlock` at `slot`); it becomes the tip when `makeTip` (default).
   */
  put(
    id: Uint8Array,
    opts: { state?: LedgerState; parent?: Uint8Array; block?: Block; slot?: bigint; makeTip?: boolean } = {},
  ): ProcessedBlock {
    const parentId = opts.parent ?? opts.block?.header.parent_block ?? this.tipId;
    const parent = this.nodes.get(bytesToHex(parentId));
    const slot = opts.block?.header.slot ?? opts.slot ?? (parent ? parent.slot + 1n : 0n);
    this.store({
      id,
      parent: parentId,
      block: opts.block ?? stubBlock(parentId, slot),
      state: opts.state ?? parent?.state ?? this.tip().state,
      height: (parent?.height ?? 0) + 1,
      slot,
    });
    return this.moveTip(id, opts.makeTip !== false, []);
  }

  /**
   * Makes a stored block the tip (a fork choice switch) and announces it. With `deleteAbandoned`, the
   * blocks that leave the canonical chain are deleted at once, as the chain deletes a fork that
   * diverged below its new LIB.
   */
  switchTo(id: Uint8Array, opts: { deleteAbandoned?: boolean } = {}): void {
    const oldTip = this.tipId;
    this.tipId = id;
    this.announce(id, oldTip, [], opts.deleteAbandoned === true);
  }

  /** Makes a stored block the LIB and emits `lib`; with `prune`, deletes the blocks below its height. */
  finalize(id: Uint8Array, opts: { prune?: boolean } = {}): void {
    const lib = this.node(id);
    this.libId = lib.id;
    if (opts.prune) for (const [k, v] of this.nodes) if (v.height < lib.height) this.nodes.delete(k);
    this.headVersion++;
    this.emit('lib', this.lib());
  }

  /** Replaces the ledger state the chain holds for a stored block; returns the one it replaced. */
  setState(id: Uint8Array, state: LedgerState): LedgerState {
    const n = this.node(id);
    this.store({ ...n, state });
    return n.state;
  }

  /** Consensus switches to Online (with the `online` event). */
  goOnline(): void {
    this.consensusState = 'Online';
    this.emit('online');
  }

  private node(id: Uint8Array): Node {
    const n = this.nodes.get(bytesToHex(id));
    if (!n) throw new Error(`FakeChain: no block ${bytesToHex(id)}`);
    return n;
  }

  private store(n: Node): void {
    this.nodes.set(bytesToHex(n.id), n);
  }

  private moveTip(id: Uint8Array, makeTip: boolean, events: readonly LedgerEvent[]): ProcessedBlock {
    const oldTip = this.tipId;
    if (makeTip) this.tipId = id;
    return this.announce(id, oldTip, events, false);
  }

  /** Emits the block event of a stored block, with the canonical chain's change from `oldTip`. */
  private announce(
    id: Uint8Array,
    oldTip: Uint8Array,
    events: readonly LedgerEvent[],
    deleteAbandoned: boolean,
  ): ProcessedBlock {
    this.headVersion++;
    const s = this.node(id);
    const ids = this.change(oldTip, this.tipId);
    const blocks = (list: Uint8Array[]) => list.map((i) => this.block(i)!);
    const applied = blocks(ids.applied);
    const reverted = blocks(ids.reverted);
    if (deleteAbandoned) for (const i of ids.reverted) this.nodes.delete(bytesToHex(i));
    const tip = this.tip();
    const pb: ProcessedBlock = {
      block: s.block ?? this.genesis.block,
      id,
      height: s.height,
      events,
      applied,
      reverted,
      tip: { id: tip.id, slot: tip.slot, height: tip.height },
      lib: this.lib(),
    };
    this.emit('block', pb);
    return pb;
  }

  /** The ids of the blocks that joined and left the canonical chain when the tip moved from `from` to `to`, oldest first. */
  private change(from: Uint8Array, to: Uint8Array): { applied: Uint8Array[]; reverted: Uint8Array[] } {
    const oldIds = this.ancestors(from);
    const newIds = this.ancestors(to);
    const oldSet = new Set(oldIds.map(bytesToHex));
    let fork = newIds.findIndex((i) => oldSet.has(bytesToHex(i)));
    if (fork < 0) fork = newIds.length;
    const meet = fork < newIds.length ? bytesToHex(newIds[fork]!) : undefined;
    const at = oldIds.findIndex((i) => bytesToHex(i) === meet);
    const left = oldIds.slice(0, at < 0 ? oldIds.length : at);
    return {
      applied: newIds
        .slice(0, fork)
        .filter((i) => this.block(i))
        .reverse(),
      reverted: left.filter((i) => this.block(i)).reverse(),
    };
  }

  // ---- IChain

  tip(): ChainTip {
    const s = this.node(this.tipId);
    return { id: s.id, slot: s.slot, height: s.height, state: s.state };
  }

  lib(): BlockRef {
    const s = this.nodes.get(bytesToHex(this.libId));
    return s ? { id: s.id, slot: s.slot, height: s.height } : { id: this.libId, slot: 0n, height: 0 };
  }

  stateOf(id: Uint8Array): LedgerState | undefined {
    return this.nodes.get(bytesToHex(id))?.state;
  }

  has(id: Uint8Array): boolean {
    return this.nodes.has(bytesToHex(id));
  }

  async submit(block: Block): Promise<ProcessedBlock> {
    const id = headerId(block.header);
    const hex = bytesToHex(id);
    const attempt = this.submitted.filter((s) => s === hex).length;
    this.submitted.push(hex);
    if (this.onSubmit) {
      this.onSubmit(block, attempt);
      return this.put(id, { parent: block.header.parent_block, block, makeTip: false });
    }
    const parent = this.node(block.header.parent_block);
    const r = applyBlock(parent.state, block, this.ledger.ctx);
    this.store({
      id,
      parent: parent.id,
      block,
      state: r.state,
      height: parent.height + 1,
      slot: block.header.slot,
    });
    return this.moveTip(id, parent.height + 1 > this.tip().height, r.events);
  }

  unclesFor(_parent: Uint8Array, _slot: bigint): SignedHeader[] {
    return [];
  }

  block(id: Uint8Array): Block | undefined {
    return this.nodes.get(bytesToHex(id))?.block;
  }

  blockBytes(id: Uint8Array): Uint8Array | undefined {
    const b = this.block(id);
    return b && encodeBlock(b);
  }

  blockRef(id: Uint8Array): (BlockRef & { readonly parent: Uint8Array }) | undefined {
    const s = this.nodes.get(bytesToHex(id));
    return s?.parent && { id: s.id, slot: s.slot, height: s.height, parent: s.parent };
  }

  /** The double keeps no ledger events: every stored block has none. */
  eventsJson(id: Uint8Array): string | undefined {
    return this.has(id) ? '[]' : undefined;
  }

  canonicalBySlot(
    from: bigint,
    to: bigint,
    limit = Number.POSITIVE_INFINITY,
  ): { slot: bigint; id: Uint8Array }[] {
    return this.canonicalBySlotDesc(from, to).reverse().slice(0, limit);
  }

  canonicalBySlotDesc(
    from: bigint,
    to: bigint,
    limit = Number.POSITIVE_INFINITY,
  ): { slot: bigint; id: Uint8Array }[] {
    return this.ancestors(this.tipId)
      .map((id) => ({ slot: this.node(id).slot, id }))
      .filter((b) => b.slot >= from && b.slot <= to)
      .slice(0, limit);
  }

  headerIds(from?: Uint8Array, to?: Uint8Array, limit?: number): Uint8Array[] {
    return this.ancestors(from ?? this.tipId, to ?? this.libId, limit);
  }

  /** Stored block ids from `from` back to `to` (default as far as stored), newest first. */
  private ancestors(from: Uint8Array, to?: Uint8Array, limit = Number.POSITIVE_INFINITY): Uint8Array[] {
    const out: Uint8Array[] = [];
    let cur = this.nodes.get(bytesToHex(from));
    while (cur && out.length < limit) {
      out.push(cur.id);
      if (to && bytesToHex(cur.id) === bytesToHex(to)) break;
      cur = cur.parent ? this.nodes.get(bytesToHex(cur.parent)) : undefined;
    }
    return out;
  }

  transactionLocation(hash: Uint8Array): { block: Uint8Array; position: number } | undefined {
    const want = bytesToHex(hash);
    for (const id of this.ancestors(this.tipId)) {
      const b = this.block(id);
      const i = b?.transactions.findIndex((t) => bytesToHex(txHash(t.mantle_tx)) === want) ?? -1;
      if (b && i >= 0) return { block: id, position: i };
    }
    return undefined;
  }
}
