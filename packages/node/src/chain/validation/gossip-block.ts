/**
 * The cheap checks a block received by gossip passes before it is relayed or handed to the chain:
 * it decodes, it was not seen before, its slot is in the window (not after the current slot, after the
 * latest immutable block's) and its parent is known. No signature, proof or ledger rule is checked
 * here: the chain's full verification (blocks/verify-block.ts) does that. A failure is a
 * {@link BlockRejected} whose `action` says whether to ignore the message or penalise its sender
 * (`syncNeeded` when the parent is unknown).
 */
import { type Block, decodeBlock } from '../../block/block.ts';
import { headerId } from '../../block/header.ts';
import { bytesToHex } from '../../codec/hex.ts';
import { alreadyApplied, BlockRejected, headerIdText, parentMissing } from '../errors.ts';
import type { IChain } from '../interface.ts';

/** Ids of blocks received recently (bounded, oldest forgotten first). */
export class SeenBlocks {
  private readonly ids = new Set<string>();

  constructor(readonly max = 4096) {}

  has(hexId: string): boolean {
    return this.ids.has(hexId);
  }

  add(hexId: string): void {
    if (this.ids.has(hexId)) return;
    if (this.ids.size >= this.max) {
      const oldest = this.ids.values().next().value;
      if (oldest !== undefined) this.ids.delete(oldest);
    }
    this.ids.add(hexId);
  }
}

export interface GossipBlockContext {
  readonly chain: Pick<IChain, 'has' | 'lib'>;
  readonly currentSlot: bigint;
  /** Blocks received before; the block is added to it when it passes. */
  readonly seen: SeenBlocks;
}

/** Checks a gossiped block's bytes; returns the decoded block and its id, or throws {@link BlockRejected}. */
export function validateGossipBlock(
  bytes: Uint8Array,
  ctx: GossipBlockContext,
): { block: Block; id: Uint8Array } {
  let block: Block;
  try {
    block = decodeBlock(bytes);
  } catch (e) {
    throw new BlockRejected('BLOCK_UNDECODABLE', `not a block: ${(e as Error).message}`, { cause: e });
  }
  const id = headerId(block.header);
  const hex = bytesToHex(id);
  const slot = block.header.slot;
  if (ctx.chain.has(id)) {
    throw alreadyApplied(hex, slot);
  }
  if (ctx.seen.has(hex)) {
    throw new BlockRejected('BLOCK_ALREADY_SEEN', `block ${headerIdText(hex)} was received before`, {
      meta: { block: hex, slot },
    });
  }
  if (slot > ctx.currentSlot) {
    throw new BlockRejected(
      'BLOCK_FUTURE',
      `block slot ${slot} is after the current slot ${ctx.currentSlot}`,
      {
        meta: { block: hex, slot, boundSlot: ctx.currentSlot },
      },
    );
  }
  const lib = ctx.chain.lib();
  if (slot <= lib.slot) {
    throw new BlockRejected(
      'BLOCK_TOO_OLD',
      `block slot ${slot} is not after the slot ${lib.slot} of the latest immutable block`,
      { meta: { block: hex, slot, boundSlot: lib.slot } },
    );
  }
  const parent = block.header.parent_block;
  if (!ctx.chain.has(parent)) {
    throw parentMissing(hex, slot, bytesToHex(parent));
  }
  ctx.seen.add(hex);
  return { block, id };
}
