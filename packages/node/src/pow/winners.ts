/**
 * The winning PoW tickets, persisted in the node's key-value store (bucket PowWinners) so that they
 * survive a kill -9: every write is committed durably before its promise resolves.
 *
 * Key: the ticket, 32 bytes big-endian (so keys sort by ticket). Value (version 1):
 * `01 ‖ block id (32) ‖ block slot (u64 BE) ‖ epoch nonce (32 BE) ‖ secret key (32 BE) ‖ public key (32 BE)
 * ‖ claim flag (u8: 0 ready, 1 pending) ‖ [claim tx hash length (u16 BE) ‖ hash]`.
 * A record that does not decode is skipped (and reported once through `onCorrupt`), never fatal.
 */
import { Bucket } from '../storage/buckets.ts';
import type { KvStore } from '../storage/kv.ts';

/** A winning ticket: everything a claim needs. The secret key is never logged. */
export interface PowWinner {
  readonly ticket: bigint; // the claim's nullifier
  readonly blockId: Uint8Array; // the block the ticket was mined on (32 bytes)
  readonly blockSlot: bigint;
  readonly epochNonce: bigint;
  readonly secretKey: bigint;
  readonly publicKey: bigint;
  /** Set once a claim transaction carrying it was submitted (pending); undefined while ready. */
  readonly claimTx?: Uint8Array;
}

/** Winners, persisted in the node's key-value store (they survive kill -9). */
export interface WinnerStore {
  /** Ready to claim (no claim submitted), oldest block slot first. */
  ready(): PowWinner[];
  /** Claimed, waiting for the claim to settle. */
  pending(): PowWinner[];
  /** Winners stored, ready or pending (records are counted, not decoded). */
  size(): number;
  add(w: PowWinner): Promise<void>; // durable when resolved
  markPending(tickets: readonly bigint[], txHash: Uint8Array): Promise<void>;
  /** Puts pending winners back to ready (a claim tx that was dropped). */
  markReady(tickets: readonly bigint[]): Promise<void>;
  retire(tickets: readonly bigint[]): Promise<void>;
  /** Removes the winners whose window passed (blockSlot + window < currentSlot); returns them. */
  prune(currentSlot: bigint, window: bigint): Promise<PowWinner[]>;
}

const VERSION = 1;
const FIXED = 1 + 32 + 8 + 32 * 3 + 1;
const U256 = (1n << 256n) - 1n;

function putU256(out: Uint8Array, at: number, x: bigint): void {
  if (x < 0n || x > U256) throw new RangeError('a PoW winner field does not fit in 32 bytes');
  for (let i = 31; i >= 0; i--) {
    out[at + i] = Number(x & 0xffn);
    x >>= 8n;
  }
}

function getU256(b: Uint8Array, at: number): bigint {
  let x = 0n;
  for (let i = 0; i < 32; i++) x = (x << 8n) | BigInt(b[at + i]!);
  return x;
}

export function ticketKey(ticket: bigint): Uint8Array {
  const k = new Uint8Array(32);
  putU256(k, 0, ticket);
  return k;
}

export function encodeWinner(w: PowWinner): Uint8Array {
  if (w.blockId.length !== 32) throw new RangeError('a PoW winner block id must be 32 bytes');
  const tx = w.claimTx;
  if (tx !== undefined && tx.length > 0xffff) throw new RangeError('claim tx hash too long');
  const out = new Uint8Array(FIXED + (tx === undefined ? 0 : 2 + tx.length));
  const view = new DataView(out.buffer);
  out[0] = VERSION;
  out.set(w.blockId, 1);
  view.setBigUint64(33, w.blockSlot, false);
  putU256(out, 41, w.epochNonce);
  putU256(out, 73, w.secretKey);
  putU256(out, 105, w.publicKey);
  out[137] = tx === undefined ? 0 : 1;
  if (tx !== undefined) {
    view.setUint16(138, tx.length, false);
    out.set(tx, 140);
  }
  return out;
}

/** Decodes a record; throws a RangeError saying what is wrong. */
export function decodeWinner(key: Uint8Array, v: Uint8Array): PowWinner {
  if (key.length !== 32) throw new RangeError(`key of ${key.length} bytes, expected 32`);
  if (v.length < FIXED) throw new RangeError(`record of ${v.length} bytes, shorter than ${FIXED}`);
  if (v[0] !== VERSION) throw new RangeError(`unknown record version ${v[0]}`);
  const view = new DataView(v.buffer, v.byteOffset, v.byteLength);
  const flag = v[137];
  let claimTx: Uint8Array | undefined;
  if (flag === 0) {
    if (v.length !== FIXED) throw new RangeError(`ready record of ${v.length} bytes, expected ${FIXED}`);
  } else if (flag === 1) {
    if (v.length < FIXED + 2) throw new RangeError('pending record without its claim tx length');
    const n = view.getUint16(138, false);
    if (v.length !== FIXED + 2 + n)
      throw new RangeError(`pending record of ${v.length} bytes, expected ${FIXED + 2 + n}`);
    claimTx = v.slice(140, 140 + n);
  } else throw new RangeError(`unknown claim flag ${flag}`);
  const base = {
    ticket: getU256(key, 0),
    blockId: v.slice(1, 33),
    blockSlot: view.getBigUint64(33, false),
    epochNonce: getU256(v, 41),
    secretKey: getU256(v, 73),
    publicKey: getU256(v, 105),
  };
  return claimTx === undefined ? base : { ...base, claimTx };
}

const hexPrefix = (b: Uint8Array): string => Buffer.from(b.subarray(0, 8)).toString('hex');

export interface WinnerStoreOptions {
  /** Told once per corrupt record (key hex prefix and why); the record is skipped. */
  readonly onCorrupt?: (keyHexPrefix: string, reason: string) => void;
}

class KvWinnerStore implements WinnerStore {
  private readonly reported = new Set<string>();

  constructor(
    private readonly kv: KvStore,
    private readonly onCorrupt: ((keyHexPrefix: string, reason: string) => void) | undefined,
  ) {}

  private all(): PowWinner[] {
    const out: PowWinner[] = [];
    for (const [k, v] of this.kv.range(Bucket.PowWinners)) {
      try {
        out.push(decodeWinner(k, v));
      } catch (e) {
        const id = Buffer.from(k).toString('hex');
        if (!this.reported.has(id)) {
          this.reported.add(id);
          this.onCorrupt?.(hexPrefix(k), (e as Error).message);
        }
      }
    }
    return out;
  }

  private sorted(pending: boolean): PowWinner[] {
    return this.all()
      .filter((w) => (w.claimTx !== undefined) === pending)
      .sort((a, b) =>
        a.blockSlot !== b.blockSlot ? (a.blockSlot < b.blockSlot ? -1 : 1) : a.ticket < b.ticket ? -1 : 1,
      );
  }

  ready(): PowWinner[] {
    return this.sorted(false);
  }

  size(): number {
    let n = 0;
    for (const _ of this.kv.range(Bucket.PowWinners)) n++;
    return n;
  }

  pending(): PowWinner[] {
    return this.sorted(true);
  }

  add(w: PowWinner): Promise<void> {
    const value = encodeWinner(w);
    return this.kv.transaction((tx) => tx.put(Bucket.PowWinners, ticketKey(w.ticket), value));
  }

  /** Rewrites the stored winners of `tickets` (those that exist and decode) with `change`. */
  private rewrite(tickets: readonly bigint[], change: (w: PowWinner) => PowWinner): Promise<void> {
    return this.kv.transaction((tx) => {
      for (const t of tickets) {
        const key = ticketKey(t);
        const v = this.kv.get(Bucket.PowWinners, key);
        if (v === undefined) continue;
        let w: PowWinner;
        try {
          w = decodeWinner(key, v);
        } catch {
          continue;
        }
        tx.put(Bucket.PowWinners, key, encodeWinner(change(w)));
      }
    });
  }

  markPending(tickets: readonly bigint[], txHash: Uint8Array): Promise<void> {
    const hash = txHash.slice();
    return this.rewrite(tickets, (w) => ({ ...w, claimTx: hash }));
  }

  markReady(tickets: readonly bigint[]): Promise<void> {
    return this.rewrite(tickets, ({ claimTx: _, ...w }) => w);
  }

  retire(tickets: readonly bigint[]): Promise<void> {
    return this.kv.transaction((tx) => {
      for (const t of tickets) tx.del(Bucket.PowWinners, ticketKey(t));
    });
  }

  async prune(currentSlot: bigint, window: bigint): Promise<PowWinner[]> {
    const gone = this.all().filter((w) => w.blockSlot + window < currentSlot);
    if (gone.length > 0) await this.retire(gone.map((w) => w.ticket));
    return gone;
  }
}

export function openWinnerStore(kv: KvStore, opts: WinnerStoreOptions = {}): WinnerStore {
  return new KvWinnerStore(kv, opts.onCorrupt);
}
