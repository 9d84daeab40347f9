/**
 * The chain's reads of storage, what the API and the other services read of stored blocks: a block
 * (decoded or as stored), its place in the tree, its ledger events, the canonical blocks by slot, the
 * header ids back from a block, and where a canonical transaction was included. The chain service
 * (chain-service.ts) answers them through this; none reads the block tree in memory.
 */
import type { Logger } from 'pino';
import { type Block, decodeBlock } from '../block/block.ts';
import { bytesToHex, hexToBytes } from '../codec/hex.ts';
import type { ChainStore } from '../storage/chain-store.ts';
import type { BlockRef } from './interface.ts';

export class ChainReads {
  constructor(
    private readonly store: ChainStore,
    private readonly logger: Logger,
  ) {}

  /** A stored block (any fork still stored, and all canonical history). */
  block(id: Uint8Array): Block | undefined {
    const bytes = this.store.block(id);
    return bytes ? decodeBlock(bytes) : undefined;
  }

  blockBytes(id: Uint8Array): Uint8Array | undefined {
    return this.store.block(id);
  }

  blockRef(id: Uint8Array): (BlockRef & { readonly parent: Uint8Array }) | undefined {
    const info = this.store.info(id);
    return info && { id: info.id, parent: info.parent, slot: info.slot, height: Number(info.height) };
  }

  /** A block of the tree, as a list of one; none (logged) if storage lost it. */
  storedBlock(hexId: string): Block[] {
    const b = this.block(hexToBytes(hexId));
    if (b) return [b];
    this.logger.warn({ block: hexId }, 'a block of the block tree is missing from storage');
    return [];
  }

  /** The ledger events of a stored block, as their JSON text. */
  eventsJson(id: Uint8Array): string | undefined {
    const bytes = this.store.events(id);
    return bytes ? new TextDecoder().decode(bytes) : undefined;
  }

  /** Canonical blocks with slot in [from, to], at most `limit`, oldest first. */
  canonicalBySlot(from: bigint, to: bigint, limit?: number): { slot: bigint; id: Uint8Array }[] {
    return [...this.store.canonicalBySlot(from, to, limit !== undefined ? { limit } : {})];
  }

  /** Canonical blocks with slot in [from, to], at most `limit`, newest first. */
  canonicalBySlotDesc(from: bigint, to: bigint, limit?: number): { slot: bigint; id: Uint8Array }[] {
    return [
      ...this.store.canonicalBySlot(from, to, {
        reverse: true,
        ...(limit !== undefined ? { limit } : {}),
      }),
    ];
  }

  /** Header ids walking back from `from` to `to` (hex ids), newest first, at most `limit`. */
  headerIds(from: string, to: string, limit: number): Uint8Array[] {
    const out: Uint8Array[] = [];
    let cur = from;
    while (out.length < limit) {
      const info = this.store.info(hexToBytes(cur));
      if (!info) break;
      out.push(info.id);
      if (cur === to || info.height === 0n) break;
      cur = bytesToHex(info.parent);
    }
    return out;
  }

  /** Where a transaction of the canonical chain was included. */
  transactionLocation(hash: Uint8Array): { block: Uint8Array; position: number } | undefined {
    return this.store.txLocation(hash);
  }

  /** The transaction hashes of a stored block (none if it is not stored). */
  txHashesOf(hexId: string): Uint8Array[] {
    return this.store.blockTxHashes(hexToBytes(hexId)) ?? [];
  }
}
