/**
 * The leaves of the ledger's voucher tree along the canonical chain: the block at height h (h ≥ 1)
 * appended its header's `voucher_cm` at position h − 1 (the genesis block appends none; ledger/apply.ts).
 * Kept in memory and brought up to a new tip by walking back from it to the first block it shares with
 * the previous tip, so a reorg costs its depth and a new block one read. The first use reads the whole
 * chain once. F's wallet keeps an MMR and the tracked paths per block instead; the leaves, and so the
 * paths, are the same.
 */

import type { IChain } from '../chain/index.ts';
import { bytesToHex } from '../codec/hex.ts';
import type { Fr } from '../crypto/field.ts';

export class VoucherLeaves {
  /** Canonical block ids by height (index 0 the genesis). */
  #ids: Uint8Array[] = [];
  /** Leaf i is the voucher of the block at height i + 1. */
  #cms: Fr[] = [];
  /** Leaf position of each commitment on the canonical chain. */
  #position = new Map<Fr, number>();

  constructor(private readonly chain: Pick<IChain, 'tip' | 'block' | 'genesis'>) {}

  /** Brings the leaves up to the chain's tip. */
  sync(): void {
    const tip = this.chain.tip();
    const known = this.#ids[tip.height];
    if (
      known !== undefined &&
      bytesToHex(known) === bytesToHex(tip.id) &&
      this.#ids.length === tip.height + 1
    )
      return;
    const added: { id: Uint8Array; cm: Fr }[] = [];
    let id = tip.id;
    let height = tip.height;
    while (height > 0) {
      const have = this.#ids[height];
      if (have !== undefined && bytesToHex(have) === bytesToHex(id)) break;
      const block = this.chain.block(id);
      if (block === undefined)
        throw new Error(`block ${bytesToHex(id)} of the canonical chain is not stored`);
      added.push({ id, cm: block.header.proof_of_leadership.voucher_cm });
      id = block.header.parent_block;
      height--;
    }
    if (height === 0 && this.#ids.length === 0) this.#ids.push(id);
    // Drop the old branch above the common block, then append the new one oldest first.
    for (let h = this.#ids.length - 1; h > height; h--) {
      const cm = this.#cms[h - 1]!;
      if (this.#position.get(cm) === h - 1) this.#position.delete(cm);
    }
    this.#ids.length = height + 1;
    this.#cms.length = height;
    for (const b of added.reverse()) {
      this.#ids.push(b.id);
      this.#position.set(b.cm, this.#cms.length);
      this.#cms.push(b.cm);
    }
  }

  /** The leaf position of a commitment on the canonical chain (after `sync`). */
  positionOf(cm: Fr): number | undefined {
    return this.#position.get(cm);
  }

  /** The first `count` leaves (after `sync`). */
  leaves(count: number): readonly Fr[] {
    return this.#cms.slice(0, count);
  }
}
