/**
 * Blocks whose parent is unknown, kept by parent id until the parent is applied (bounded: beyond
 * `max` blocks new orphans are dropped; a block already waiting is not kept twice).
 */
import type { Block } from '../block/block.ts';
import { headerId } from '../block/header.ts';
import { bytesToHex } from '../codec/hex.ts';

export class OrphanPool {
  private readonly byParent = new Map<string, Block[]>();
  private count = 0;

  constructor(readonly max = 1000) {}

  get size(): number {
    return this.count;
  }

  /** Keeps `block` until its parent `parentHex` arrives; false when it was not kept (full or known). */
  add(parentHex: string, block: Block): boolean {
    if (this.count >= this.max) return false;
    const list = this.byParent.get(parentHex) ?? [];
    const id = bytesToHex(headerId(block.header));
    if (list.some((b) => bytesToHex(headerId(b.header)) === id)) return false;
    list.push(block);
    this.byParent.set(parentHex, list);
    this.count++;
    return true;
  }

  /** Removes and returns the blocks waiting for `parentHex`, in arrival order. */
  take(parentHex: string): Block[] {
    const waiting = this.byParent.get(parentHex);
    if (!waiting) return [];
    this.byParent.delete(parentHex);
    this.count -= waiting.length;
    return waiting;
  }
}
