/**
 * The wallet's persistent state over the node's KvStore:
 * - the next voucher index (F: `services/wallet/src/states.rs`, `next_new_voucher_index` of the
 *   wallet's recovery state): written durably before a voucher with the previous index is used, so a
 *   restart never reuses an index;
 * - the wallet's notes at the LIB (F: `lib_wallet_state`): the LIB's id and its owned notes, so a
 *   restart starts from them and derives only the blocks above the LIB. Pending note reservations are
 *   not persisted (as F).
 * - the pending leader-reward claims (voucher nullifier → LIB height when the claim was submitted), so a
 *   restart never claims a voucher twice.
 */
import { Reader, Writer } from '../codec/binary.ts';
import { type Fr, frFromBytes, frToBytes } from '../crypto/field.ts';
import type { NoteRecord } from '../ledger/state.ts';
import { Bucket } from './buckets.ts';
import { type KvStore, readU64Key, u64Key } from './kv.ts';

const NEXT_VOUCHER_INDEX = new TextEncoder().encode('next_voucher_index');
/** The block the persisted notes are at (32 bytes) ‖ the tag of the known keys they were tracked for (32 bytes). */
const LIB_NOTES_BLOCK = new TextEncoder().encode('lib_notes_block');
/** Format version 1 ‖ u32 count ‖ per note: id ‖ value ‖ pk ‖ index ‖ origin ‖ output index ‖ channel? ‖ locked_by?. */
const LIB_NOTES = new TextEncoder().encode('lib_notes');
const LIB_NOTES_VERSION = 1;

function writeOptionalHex(w: Writer, hex: string | null): void {
  if (hex === null) w.u8(0);
  else {
    w.u8(1);
    w.bytes(Buffer.from(hex, 'hex'));
  }
}

function readOptionalHex(r: Reader): string | null {
  return r.u8() === 0 ? null : Buffer.from(r.bytes(32)).toString('hex');
}
const PENDING_CLAIM = new TextEncoder().encode('pending_claim/');

function pendingClaimKey(nullifier: Uint8Array): Uint8Array {
  const key = new Uint8Array(PENDING_CLAIM.length + nullifier.length);
  key.set(PENDING_CLAIM);
  key.set(nullifier, PENDING_CLAIM.length);
  return key;
}

/** The key right after every `pending_claim/…` key (`/` + 1 is `0`). */
const PENDING_CLAIM_END = new TextEncoder().encode('pending_claim0');

export class WalletStore {
  constructor(private readonly kv: KvStore) {}

  /** The index of the next voucher to derive (0 on a new wallet). */
  nextVoucherIndex(): bigint {
    const v = this.kv.get(Bucket.Wallet, NEXT_VOUCHER_INDEX);
    return v === undefined ? 0n : readU64Key(v);
  }

  /** Stores the next voucher index; resolves once durable. */
  setNextVoucherIndex(index: bigint): Promise<void> {
    return this.kv.transaction((tx) => tx.put(Bucket.Wallet, NEXT_VOUCHER_INDEX, u64Key(index)));
  }

  /** The block the persisted LIB notes are at and the tag of the keys they track, if any. */
  libNotesBlock(): { lib: Uint8Array; keysTag: Uint8Array } | undefined {
    const v = this.kv.get(Bucket.Wallet, LIB_NOTES_BLOCK);
    if (v === undefined || v.length !== 64) return undefined;
    return { lib: v.subarray(0, 32), keysTag: v.subarray(32) };
  }

  /** The persisted LIB notes; throws on a value this version cannot read. */
  libNotes(): [Fr, NoteRecord][] {
    const v = this.kv.get(Bucket.Wallet, LIB_NOTES);
    if (v === undefined) return [];
    const r = new Reader(v);
    if (r.u8() !== LIB_NOTES_VERSION) throw new Error('wallet LIB notes: unknown format version');
    const n = r.u32();
    const out: [Fr, NoteRecord][] = [];
    for (let i = 0; i < n; i++) {
      const id = frFromBytes(r.bytes(32));
      const value = r.u64();
      const pk = frFromBytes(r.bytes(32));
      const index = r.u32();
      const origin = frFromBytes(r.bytes(32));
      const output_index = r.u32();
      const channel = readOptionalHex(r);
      const locked_by = readOptionalHex(r);
      out.push([id, { note: { value, pk }, index, origin, output_index, channel, locked_by }]);
    }
    return out;
  }

  /**
   * Stores the LIB's id, the tag of the known keys and, when given, the owned notes (omitted: unchanged
   * since the last call) in one transaction; resolves once durable.
   */
  setLibNotes(
    lib: Uint8Array,
    keysTag: Uint8Array,
    notes: Iterable<readonly [Fr, NoteRecord]> | undefined,
  ): Promise<void> {
    let bytes: Uint8Array | undefined;
    if (notes !== undefined) {
      const list = [...notes];
      const w = new Writer(64 + list.length * 180);
      w.u8(LIB_NOTES_VERSION);
      w.u32(list.length);
      for (const [id, r] of list) {
        w.bytes(frToBytes(id));
        w.u64(r.note.value);
        w.bytes(frToBytes(r.note.pk));
        w.u32(r.index);
        w.bytes(frToBytes(r.origin));
        w.u32(r.output_index);
        writeOptionalHex(w, r.channel);
        writeOptionalHex(w, r.locked_by);
      }
      bytes = w.finish();
    }
    return this.kv.transaction((tx) => {
      if (bytes !== undefined) tx.put(Bucket.Wallet, LIB_NOTES, bytes);
      const block = new Uint8Array(64);
      block.set(lib, 0);
      block.set(keysTag, 32);
      tx.put(Bucket.Wallet, LIB_NOTES_BLOCK, block);
    });
  }

  /** Pending leader-reward claims: voucher nullifier (32 bytes) → LIB height when reserved. */
  pendingClaims(): { nullifier: Uint8Array; libHeight: bigint }[] {
    const out: { nullifier: Uint8Array; libHeight: bigint }[] = [];
    for (const [k, v] of this.kv.range(Bucket.Wallet, { gte: PENDING_CLAIM, lt: PENDING_CLAIM_END }))
      out.push({ nullifier: k.slice(PENDING_CLAIM.length), libHeight: readU64Key(v) });
    return out;
  }

  /** Records a pending claim; resolves once durable. */
  addPendingClaim(nullifier: Uint8Array, libHeight: bigint): Promise<void> {
    return this.kv.transaction((tx) => tx.put(Bucket.Wallet, pendingClaimKey(nullifier), u64Key(libHeight)));
  }

  /** Forgets pending claims (expired, or the claim could not be submitted); resolves once durable. */
  removePendingClaims(nullifiers: readonly Uint8Array[]): Promise<void> {
    return this.kv.transaction((tx) => {
      for (const n of nullifiers) tx.del(Bucket.Wallet, pendingClaimKey(n));
    });
  }
}
