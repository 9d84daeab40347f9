/**
 * A chain for mempool tests: the ledger test chain (insecure proofs) behind the parts of `IChain` the
 * mempool reads (tip, blocks, header walk, tx locations, block events with the canonical chain's
 * change), with forks: a block can be built on any stored block and made the tip.
 */
import { EventEmitter } from 'node:events';
import type { Block } from '../../../src/block/block.ts';
import type { ChainEvents, IChain, ProcessedBlock } from '../../../src/chain/index.ts';
import { bytesToHex } from '../../../src/codec/hex.ts';
import { applyBlock } from '../../../src/ledger/apply.ts';
import type { LedgerState } from '../../../src/ledger/state.ts';
import { type SignedMantleTx, txHash } from '../../../src/mantle/tx.ts';
import { TestChain } from '../../mocks/ledger.ts';

interface Stored {
  readonly id: Uint8Array;
  readonly block: Block | undefined;
  readonly state: LedgerState;
  readonly parent: Uint8Array | undefined;
  readonly height: number;
}

export class FakeChain extends EventEmitter<ChainEvents> {
  readonly ledger = new TestChain();
  private readonly blocks = new Map<string, Stored>();
  private tipId: Uint8Array;
  headVersion = 0;

  constructor() {
    super();
    const g = this.ledger.genesis;
    this.blocks.set(bytesToHex(g.id), {
      id: g.id,
      block: undefined,
      state: g.state,
      parent: undefined,
      height: 0,
    });
    this.tipId = g.id;
  }

  get genesis() {
    return this.ledger.genesis;
  }

  get config() {
    return this.ledger.ctx.config;
  }

  tip() {
    const s = this.blocks.get(bytesToHex(this.tipId))!;
    return { id: s.id, slot: s.state.slot, height: s.height, state: s.state };
  }

  /** A block with `txs` on `parent` (default the tip); it becomes the tip when `makeTip` (default). */
  extend(txs: SignedMantleTx[], opts: { parent?: Uint8Array; makeTip?: boolean } = {}): Uint8Array {
    const parent = this.blocks.get(bytesToHex(opts.parent ?? this.tipId))!;
    this.ledger.state = parent.state;
    this.ledger.tip = parent.id;
    const block = this.ledger.block(txs, parent.state.slot + 1n + (opts.makeTip === false ? 1n : 0n));
    const r = applyBlock(parent.state, block, this.ledger.ctx);
    this.blocks.set(bytesToHex(r.id), {
      id: r.id,
      block,
      state: r.state,
      parent: parent.id,
      height: parent.height + 1,
    });
    const oldTip = this.tipId;
    if (opts.makeTip !== false) this.tipId = r.id;
    this.announce(r.id, oldTip);
    return r.id;
  }

  /**
   * Makes a stored block the tip (a fork choice switch) and announces it with a block event. With
   * `deleteAbandoned`, the blocks that leave the canonical chain are deleted at once, as the chain
   * deletes a fork that diverged below its new LIB.
   */
  switchTo(id: Uint8Array, opts: { deleteAbandoned?: boolean } = {}): void {
    const oldTip = this.tipId;
    this.tipId = id;
    this.announce(id, oldTip, opts.deleteAbandoned === true);
  }

  /** Emits the block event of a stored block, with the canonical chain's change from `oldTip`. */
  private announce(id: Uint8Array, oldTip: Uint8Array, deleteAbandoned = false): void {
    this.headVersion++;
    const s = this.blocks.get(bytesToHex(id))!;
    const ids = this.change(oldTip, this.tipId);
    const blocks = (list: Uint8Array[]) => list.map((i) => this.block(i)!);
    const applied = blocks(ids.applied);
    const reverted = blocks(ids.reverted);
    if (deleteAbandoned) for (const i of ids.reverted) this.blocks.delete(bytesToHex(i));
    const tip = this.tip();
    const pb: ProcessedBlock = {
      block: s.block!,
      id,
      height: s.height,
      events: [],
      applied,
      reverted,
      tip: { id: tip.id, slot: tip.slot, height: tip.height },
      lib: { id: this.genesis.id, slot: 0n, height: 0 },
    };
    this.emit('block', pb);
  }

  /** The ids of the blocks that joined and left the canonical chain when the tip moved from `from` to `to`, oldest first. */
  private change(from: Uint8Array, to: Uint8Array): { applied: Uint8Array[]; reverted: Uint8Array[] } {
    const oldIds = this.headerIds(from);
    const newIds = this.headerIds(to);
    const oldSet = new Set(oldIds.map(bytesToHex));
    const fork = newIds.findIndex((i) => oldSet.has(bytesToHex(i)));
    const meet = bytesToHex(newIds[fork]!);
    const left = oldIds.slice(
      0,
      oldIds.findIndex((i) => bytesToHex(i) === meet),
    );
    return { applied: newIds.slice(0, fork).reverse(), reverted: left.reverse() };
  }

  block(id: Uint8Array): Block | undefined {
    return this.blocks.get(bytesToHex(id))?.block;
  }

  headerIds(from?: Uint8Array, to?: Uint8Array): Uint8Array[] {
    const out: Uint8Array[] = [];
    let cur = this.blocks.get(bytesToHex(from ?? this.tipId));
    while (cur) {
      out.push(cur.id);
      if (to && bytesToHex(cur.id) === bytesToHex(to)) break;
      cur = cur.parent ? this.blocks.get(bytesToHex(cur.parent)) : undefined;
    }
    return out;
  }

  transactionLocation(hash: Uint8Array): { block: Uint8Array; position: number } | undefined {
    const want = bytesToHex(hash);
    for (const id of this.headerIds()) {
      const b = this.blocks.get(bytesToHex(id))?.block;
      const i = b?.transactions.findIndex((t) => bytesToHex(txHash(t.mantle_tx)) === want) ?? -1;
      if (b && i >= 0) return { block: id, position: i };
    }
    return undefined;
  }

  asChain(): IChain {
    return this as unknown as IChain;
  }
}
