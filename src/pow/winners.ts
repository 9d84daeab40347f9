/**
 * Placeholder of the winning-ticket store, with the agreed interface only: the real store (persisted in
 * the node's key-value store) replaces this file. Until then winners are held in memory.
 */
import type { KvStore } from '../storage/kv.ts';

/** A winning ticket: everything a claim needs. The secret key is never logged. */
export interface PowWinner {
  readonly ticket: bigint;
  readonly blockId: Uint8Array;
  readonly blockSlot: bigint;
  readonly epochNonce: bigint;
  readonly secretKey: bigint;
  readonly publicKey: bigint;
  /** Set once a claim transaction carrying it was submitted (pending); undefined while ready. */
  readonly claimTx?: Uint8Array;
}

export interface WinnerStore {
  ready(): PowWinner[];
  pending(): PowWinner[];
  add(w: PowWinner): Promise<void>;
  markPending(tickets: readonly bigint[], txHash: Uint8Array): Promise<void>;
  markReady(tickets: readonly bigint[]): Promise<void>;
  retire(tickets: readonly bigint[]): Promise<void>;
  prune(currentSlot: bigint, window: bigint): Promise<PowWinner[]>;
}

export function openWinnerStore(_kv: KvStore): WinnerStore {
  const all = new Map<bigint, PowWinner>();
  const bySlot = (a: PowWinner, b: PowWinner) =>
    a.blockSlot < b.blockSlot ? -1 : a.blockSlot > b.blockSlot ? 1 : 0;
  return {
    ready: () => [...all.values()].filter((w) => w.claimTx === undefined).sort(bySlot),
    pending: () => [...all.values()].filter((w) => w.claimTx !== undefined).sort(bySlot),
    async add(w) {
      all.set(w.ticket, w);
    },
    async markPending(tickets, txHash) {
      for (const t of tickets) {
        const w = all.get(t);
        if (w) all.set(t, { ...w, claimTx: txHash });
      }
    },
    async markReady(tickets) {
      for (const t of tickets) {
        const w = all.get(t);
        if (w) {
          const { claimTx: _, ...rest } = w;
          all.set(t, rest);
        }
      }
    },
    async retire(tickets) {
      for (const t of tickets) all.delete(t);
    },
    async prune(currentSlot, window) {
      const out: PowWinner[] = [];
      for (const w of all.values())
        if (w.blockSlot + window < currentSlot) {
          out.push(w);
          all.delete(w.ticket);
        }
      return out;
    },
  };
}
