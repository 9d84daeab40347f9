/**
 * Ledger state snapshots: a whole `LedgerState` as bytes and back, exactly. The node stores the state
 * of an immutable block this way and, on restart, decodes it and replays only the blocks above it, so
 * `decodeLedgerState(encodeLedgerState(s))` must behave like `s` for every later block: same roots,
 * same UTXO positions (a UTXO tree is a function of its live leaves: the next insert takes the smallest
 * empty position), same maps, same epoch states.
 *
 * Format (all integers little-endian; Fr = 32 bytes LE, canonical; `big` = u8 length ‖ LE bytes
 * without a trailing zero byte, for unbounded sums):
 *
 *   u8 version (= 3)
 *   u64 block_number, u64 slot, Fr nonce, Fr prev_epoch_nonce,
 *   occupied slots  u32 n, n × u64 slot (strictly ascending)
 *   tree table   u8 n, n × tree         (the distinct UTXO trees of state, epoch_state, next_epoch_state;
 *                tree = u8 kind [u8 base], u8 height, u32 n × (u32 index, Fr note id) ascending: the
 *                live leaves, every other position is empty; a difference (kind 1) lists the leaves
 *                set or changed, then u32 m × u32 index: the positions emptied, ascending)
 *   note table   u8 n, n × map          (the distinct note maps, same three places)
 *   u8 utxos ref, u8 notes ref, epoch_state, next_epoch_state (each: u32 epoch, Fr nonce, u8 tree ref,
 *     u8 notes ref, big total_stake, Fr t0, Fr t1, Fr blend_pow_difficulty)
 *   gas          120 × u64 fee_window, 5 × u64
 *   channels     u32 n, n × (hex key, channel)
 *   sdp          decl table (u8 n, n × map), u8 declarations ref, u8 snapshot ref, u8 next snapshot ref,
 *                rewards: u32 current epoch, Fr nonce, epoch poq, big income, u8 has target [u32 epoch,
 *                Fr nonce, poq inputs, u32 n × (32 B provider,
 *                Fr zk id), u32 token byte length, u64 threshold, big income, u32 n × (32 B provider,
 *                Fr zk id, u64 distance)]
 *                (epoch poq = Fr aged root, Fr t0, Fr t1, Fr pow difficulty; poq inputs = Fr core root,
 *                u64 core quota, Fr aged root, Fr nonce, u64 leader quota, Fr t0, Fr t1,
 *                Fr pow difficulty, u64 pow quota)
 *   leader       vouchers (u8 height, u64 count, one Fr per set bit of count), Fr snapshot root,
 *                u64 snapshot count, u32 n × Fr nullifiers, big pending, big claimable
 *   pow          big pool, big epoch_reward, 32 B target, big refill, u32 n × (32 B id, u64 slot),
 *                u32 n × (Fr nullifier, u64 slot), u64 epoch blocks, u64 epoch txs,
 *                u8 closed? (0|1) [u64 closed blocks, u64 closed txs]
 *
 * Deduplication: a structure referenced several times (`===`) is encoded once in its table and
 * referred to by index, and decodes to one object again. A table entry after the first may be encoded
 * as a difference from an earlier entry (`u8 kind = 1, u8 base`): a tree as its changed positions (via
 * the tree's structural sharing), a map as removed keys and
 * added/changed entries. Decoding applies the difference to the decoded base, so the restored
 * structures share their common parts as the originals did. `kind = 0` is a full encoding.
 *
 * Decoding is strict: bad version, truncation, trailing bytes, non-canonical values, out-of-range
 * references and inconsistent trees all throw DecodeError.
 */

import { LogosError } from '@logos-ts/shared/errors';
import { Reader, Writer } from '../codec/binary.ts';
import { DecodeError, EncodeError, within } from '../codec/errors.ts';
import { bytesToHex, hexToBytesOrUndefined } from '../codec/hex.ts';
import { U64_MAX } from '../codec/schema.ts';
import { FieldError, FR_MODULUS, type Fr, frToBytes, leBytesToBigint } from '../crypto/field.ts';
import { bigintKeys, type KeyKind, PMap, stringKeys } from '../util/pmap.ts';
import type {
  EpochPoqInputs,
  PoqInputsMinusSigningKey,
  RewardProvider,
  SubmittedActivity,
  TargetEpochRewards,
} from './sdp-rewards.ts';
import type {
  ChannelState,
  Declaration,
  EpochState,
  GasState,
  LedgerState,
  NoteRecord,
  PowState,
  SdpState,
} from './state.ts';
import { UtxoTree } from './trees/utxo-tree.ts';
import { VoucherTree } from './trees/voucher-tree.ts';
import { MerkleTreeError } from './trees/zero-hashes.ts';

export const SNAPSHOT_VERSION = 3;

const FEE_WINDOW = 120;

// ---------------------------------------------------------------- primitives

function u64(w: Writer, v: bigint, what: string): void {
  if (typeof v !== 'bigint' || v < 0n || v > U64_MAX) throw new EncodeError(`${what} ${v} is not a u64`);
  w.u64(v);
}

function u32(w: Writer, v: number, what: string): void {
  if (!Number.isInteger(v) || v < 0 || v > 0xffffffff) throw new EncodeError(`${what} ${v} is not a u32`);
  w.u32(v);
}

/** A safe-integer count as u64. */
function count64(w: Writer, v: number, what: string): void {
  if (!Number.isSafeInteger(v) || v < 0) throw new EncodeError(`${what} ${v} is not a count`);
  w.u64(BigInt(v));
}

function readCount64(r: Reader): number {
  const v = r.u64();
  if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw new DecodeError(`count ${v} is too large`);
  return Number(v);
}

/** 32 bytes LE, as four u64 words (much faster than byte-wise bigint arithmetic). */
function writeFr(w: Writer, v: Fr): void {
  if (typeof v !== 'bigint' || v < 0n || v >= FR_MODULUS) {
    throw new EncodeError(`${String(v)} is not a canonical field element`);
  }
  w.u64(BigInt.asUintN(64, v));
  w.u64(BigInt.asUintN(64, v >> 64n));
  w.u64(BigInt.asUintN(64, v >> 128n));
  w.u64(v >> 192n);
}

function readFr(r: Reader): Fr {
  const a = r.u64();
  const b = r.u64();
  const c = r.u64();
  const d = r.u64();
  const v = a | (b << 64n) | (c << 128n) | (d << 192n);
  if (v >= FR_MODULUS) throw new DecodeError('field element is not canonical (>= p)');
  return v;
}

/** Unbounded non-negative integer: u8 byte length, then the bytes LE, minimal (no trailing zero). */
function writeBig(w: Writer, v: bigint, what: string): void {
  if (typeof v !== 'bigint' || v < 0n) throw new EncodeError(`${what} ${v} is not a non-negative integer`);
  const bytes: number[] = [];
  for (let x = v; x > 0n; x >>= 8n) bytes.push(Number(x & 0xffn));
  if (bytes.length > 0xff) throw new EncodeError(`${what} is too large`);
  w.u8(bytes.length);
  w.bytes(Uint8Array.from(bytes));
}

function readBig(r: Reader): bigint {
  const n = r.u8();
  const b = r.bytes(n);
  if (n > 0 && b[n - 1] === 0) throw new DecodeError('integer has a trailing zero byte (not minimal)');
  return leBytesToBigint(b);
}

function writeVarBytes(w: Writer, b: Uint8Array, what: string): void {
  if (!(b instanceof Uint8Array)) throw new EncodeError(`${what} is not a byte string`);
  w.u32(b.length);
  w.bytes(b);
}

function readVarBytes(r: Reader): Uint8Array {
  return r.bytes(r.u32()).slice();
}

function writeFixed(w: Writer, b: Uint8Array, n: number, what: string): void {
  if (!(b instanceof Uint8Array) || b.length !== n) throw new EncodeError(`${what} must be ${n} bytes`);
  w.bytes(b);
}

/** Byte length of a hex id that decodes back to exactly `hex` (lowercase, even length). */
function hexBytes(hex: string, what: string): Uint8Array {
  const b = typeof hex === 'string' ? hexToBytesOrUndefined(hex) : undefined;
  if (b === undefined || bytesToHex(b) !== hex) {
    throw new EncodeError(`${what} ${String(hex)} is not lowercase hex`);
  }
  return b;
}

/** A map key: hex string as u16 length ‖ bytes. */
function writeHexKey(w: Writer, hex: string, what: string): void {
  const b = hexBytes(hex, what);
  if (b.length > 0xffff) throw new EncodeError(`${what} is too long`);
  w.u16(b.length);
  w.bytes(b);
}

function readHexKey(r: Reader): string {
  return bytesToHex(r.bytes(r.u16()));
}

/** An optional 32-byte hex id: u8 0 (null) or u8 1 ‖ 32 bytes. */
function writeOptId(w: Writer, hex: string | null, what: string): void {
  if (hex === null) {
    w.u8(0);
    return;
  }
  const b = hexBytes(hex, what);
  if (b.length !== 32) throw new EncodeError(`${what} must be a 32-byte hex id`);
  w.u8(1);
  w.bytes(b);
}

function readFlag(r: Reader): boolean {
  const f = r.u8();
  if (f > 1) throw new DecodeError(`option flag ${f} is neither 0 nor 1`);
  return f === 1;
}

function readOptId(r: Reader): string | null {
  return readFlag(r) ? bytesToHex(r.bytes(32)) : null;
}

// ---------------------------------------------------------------- values

function writeRecord(w: Writer, rec: NoteRecord): void {
  u64(w, rec.note.value, 'note value');
  writeFr(w, rec.note.pk);
  u32(w, rec.index, 'note index');
  writeFr(w, rec.origin);
  u32(w, rec.output_index, 'output index');
  writeOptId(w, rec.channel, 'note channel');
  writeOptId(w, rec.locked_by, 'note locked_by');
}

function readRecord(r: Reader): NoteRecord {
  const value = r.u64();
  const pk = readFr(r);
  return {
    note: { value, pk },
    index: r.u32(),
    origin: readFr(r),
    output_index: r.u32(),
    channel: readOptId(r),
    locked_by: readOptId(r),
  };
}

function writeDeclaration(w: Writer, d: Declaration): void {
  if (d.service_type !== 'BN') throw new EncodeError(`unknown service type ${String(d.service_type)}`);
  w.u8(0);
  writeVarBytes(w, d.provider_id, 'provider id');
  writeFr(w, d.service_note_id);
  if (d.locators.length > 0xff) throw new EncodeError('too many locators');
  w.u8(d.locators.length);
  for (const l of d.locators) {
    if (!(l instanceof Uint8Array) || l.length > 0xffff) throw new EncodeError('bad locator');
    w.u16(l.length);
    w.bytes(l);
  }
  writeFr(w, d.zk_id);
  u32(w, d.created, 'declaration created');
  u32(w, d.active, 'declaration active');
  if (d.withdraw_at === null) w.u8(0);
  else {
    w.u8(1);
    u32(w, d.withdraw_at, 'declaration withdraw_at');
  }
  u64(w, d.nonce, 'declaration nonce');
}

function readDeclaration(r: Reader): Declaration {
  const st = r.u8();
  if (st !== 0) throw new DecodeError(`unknown service type ${st}`);
  const provider_id = readVarBytes(r);
  const service_note_id = readFr(r);
  const n = r.u8();
  const locators: Uint8Array[] = [];
  for (let i = 0; i < n; i++) locators.push(r.bytes(r.u16()).slice());
  return {
    service_type: 'BN',
    provider_id,
    service_note_id,
    locators,
    zk_id: readFr(r),
    created: r.u32(),
    active: r.u32(),
    withdraw_at: readFlag(r) ? r.u32() : null,
    nonce: r.u64(),
  };
}

/**
 * Like `table`, but maps with the same entries share one entry: the active sets are rebuilt from
 * the declarations and often equal them (or each other) without being the same object, and they
 * decode to one object, so only this keeps the encoding of a decoded state byte-identical.
 */
function mapTableByContent<K, V>(items: readonly PMap<K, V>[]): { distinct: PMap<K, V>[]; refs: number[] } {
  const distinct: PMap<K, V>[] = [];
  const refs = items.map((x) => {
    let i = distinct.findIndex((d) => d === x || (d.size === x.size && mapDiff(x, d, 0) !== undefined));
    if (i < 0) i = distinct.push(x) - 1;
    return i;
  });
  return { distinct, refs };
}

function writeSdp(w: Writer, sdp: SdpState): void {
  const decls = mapTableByContent([sdp.snapshot, sdp.next_snapshot, sdp.declarations]);
  writeMapTable(w, decls.distinct, DECL_MAPS);
  w.u8(decls.refs[2]!);
  w.u8(decls.refs[0]!);
  w.u8(decls.refs[1]!);
  const rw = sdp.rewards;
  u32(w, rw.current_epoch, 'rewards current epoch');
  writeFr(w, rw.current_nonce);
  writeEpochPoq(w, rw.current_poq);
  writeBig(w, rw.current_income, 'blend income');
  if (rw.target === null) {
    w.u8(0);
    return;
  }
  const t = rw.target;
  w.u8(1);
  u32(w, t.epoch, 'target epoch');
  writeFr(w, t.epoch_nonce);
  writePoqInputs(w, t.poq);
  u32(w, t.providers.length, 'target provider count');
  for (const p of t.providers) {
    writeFixed(w, p.provider_id, 32, 'provider id');
    writeFr(w, p.zk_id);
  }
  u32(w, t.token_count_byte_len, 'token byte length');
  u64(w, t.activity_threshold, 'activity threshold');
  writeBig(w, t.income, 'target income');
  u32(w, t.submitted.length, 'submitted proof count');
  for (const a of t.submitted) {
    writeFixed(w, a.provider_id, 32, 'provider id');
    writeFr(w, a.zk_id);
    u64(w, a.distance, 'hamming distance');
  }
}

function readSdp(r: Reader): SdpState {
  const maps = readMapTable(r, DECL_MAPS);
  const declarations = readRef(r, maps);
  const snapshot = readRef(r, maps);
  const next_snapshot = readRef(r, maps);
  const current_epoch = r.u32();
  const current_nonce = readFr(r);
  const current_poq = readEpochPoq(r);
  const current_income = readBig(r);
  let target: TargetEpochRewards | null = null;
  if (readFlag(r)) {
    const epoch = r.u32();
    const epoch_nonce = readFr(r);
    const poq = readPoqInputs(r);
    const providers: RewardProvider[] = [];
    const np = readCountOf(r, 64);
    for (let i = 0; i < np; i++) providers.push({ provider_id: r.bytes(32).slice(), zk_id: readFr(r) });
    const token_count_byte_len = r.u32();
    const activity_threshold = r.u64();
    const income = readBig(r);
    const submitted: SubmittedActivity[] = [];
    const ns = readCountOf(r, 72);
    for (let i = 0; i < ns; i++) {
      submitted.push({ provider_id: r.bytes(32).slice(), zk_id: readFr(r), distance: r.u64() });
    }
    target = {
      epoch,
      epoch_nonce,
      poq,
      providers,
      token_count_byte_len,
      activity_threshold,
      income,
      submitted,
    };
  }
  return {
    declarations,
    snapshot,
    next_snapshot,
    rewards: { current_epoch, current_nonce, current_poq, current_income, target },
  };
}

function writeEpochPoq(w: Writer, e: EpochPoqInputs): void {
  writeFr(w, e.pol_ledger_aged);
  writeFr(w, e.lottery_0);
  writeFr(w, e.lottery_1);
  writeFr(w, e.pow_blend_difficulty);
}

function readEpochPoq(r: Reader): EpochPoqInputs {
  return {
    pol_ledger_aged: readFr(r),
    lottery_0: readFr(r),
    lottery_1: readFr(r),
    pow_blend_difficulty: readFr(r),
  };
}

function writePoqInputs(w: Writer, q: PoqInputsMinusSigningKey): void {
  writeFr(w, q.core.zk_root);
  u64(w, q.core.quota, 'core quota');
  writeFr(w, q.leader.pol_ledger_aged);
  writeFr(w, q.leader.pol_epoch_nonce);
  u64(w, q.leader.message_quota, 'leader quota');
  writeFr(w, q.leader.lottery_0);
  writeFr(w, q.leader.lottery_1);
  writeFr(w, q.pow.pow_blend_difficulty);
  u64(w, q.pow.pow_quota, 'pow quota');
}

function readPoqInputs(r: Reader): PoqInputsMinusSigningKey {
  const core = { zk_root: readFr(r), quota: r.u64() };
  const leader = {
    pol_ledger_aged: readFr(r),
    pol_epoch_nonce: readFr(r),
    message_quota: r.u64(),
    lottery_0: readFr(r),
    lottery_1: readFr(r),
  };
  const pow = { pow_blend_difficulty: readFr(r), pow_quota: r.u64() };
  return { core, leader, pow };
}

function writeChannel(w: Writer, c: ChannelState): void {
  u32(w, c.accredited_keys.length, 'accredited key count');
  for (const k of c.accredited_keys) writeVarBytes(w, k, 'accredited key');
  u32(w, c.configuration_threshold, 'configuration threshold');
  writeVarBytes(w, c.tip_message, 'tip message');
  writeVarBytes(w, c.config_tip_hash, 'config tip hash');
  u64(w, c.tip_slot, 'tip slot');
  u32(w, c.tip_sequencer, 'tip sequencer');
  u64(w, c.tip_sequencer_starting_slot, 'tip sequencer starting slot');
  u32(w, c.posting_timeframe, 'posting timeframe');
  u32(w, c.posting_timeout, 'posting timeout');
  u32(w, c.transfer_threshold, 'transfer threshold');
}

function readChannel(r: Reader): ChannelState {
  const n = r.u32();
  if (n > r.remaining / 4) throw new DecodeError(`accredited key count ${n} exceeds the input`);
  const accredited_keys: Uint8Array[] = [];
  for (let i = 0; i < n; i++) accredited_keys.push(within(i, () => readVarBytes(r)));
  return {
    accredited_keys,
    configuration_threshold: r.u32(),
    tip_message: readVarBytes(r),
    config_tip_hash: readVarBytes(r),
    tip_slot: r.u64(),
    tip_sequencer: r.u32(),
    tip_sequencer_starting_slot: r.u64(),
    posting_timeframe: r.u32(),
    posting_timeout: r.u32(),
    transfer_threshold: r.u32(),
  };
}

// ---------------------------------------------------------------- tables of shared structures

/** Distinct objects in first-seen order, and the index of each place in the table. */
function table<T>(items: readonly T[]): { distinct: T[]; refs: number[] } {
  const distinct: T[] = [];
  const refs = items.map((x) => {
    let i = distinct.indexOf(x);
    if (i < 0) i = distinct.push(x) - 1;
    return i;
  });
  return { distinct, refs };
}

function readRef<T>(r: Reader, distinct: readonly T[]): T {
  const i = r.u8();
  const v = distinct[i];
  if (v === undefined) throw new DecodeError(`reference ${i} is outside the table of ${distinct.length}`);
  return v;
}

interface MapCodec<K, V> {
  readonly kind: KeyKind<K>;
  writeKey(w: Writer, k: K): void;
  readKey(r: Reader): K;
  writeValue(w: Writer, v: V): void;
  readValue(r: Reader): V;
  /** Minimum encoded size of one entry (a bound for counts read from the input). */
  readonly minEntry: number;
}

interface MapDiff<K, V> {
  removed: K[];
  set: [K, V][];
}

/** The difference from `base` to `map`, or undefined once it has more than `limit` items. */
function mapDiff<K, V>(map: PMap<K, V>, base: PMap<K, V>, limit: number): MapDiff<K, V> | undefined {
  const removed: K[] = [];
  const set: [K, V][] = [];
  for (const [k, v] of map.entries()) {
    if (base.get(k) !== v || (v === undefined && !base.has(k))) {
      set.push([k, v]);
      if (set.length > limit) return undefined;
    }
  }
  for (const k of base.keys()) {
    if (!map.has(k)) {
      removed.push(k);
      if (removed.length + set.length > limit) return undefined;
    }
  }
  return { removed, set };
}

function writeMapTable<K, V>(w: Writer, maps: readonly PMap<K, V>[], c: MapCodec<K, V>): void {
  w.u8(maps.length);
  maps.forEach((map, i) => {
    // The smallest difference from an earlier map, if smaller than half the full encoding.
    let best: { base: number; diff: MapDiff<K, V> } | undefined;
    let limit = Math.floor(map.size / 2);
    for (let j = 0; j < i; j++) {
      const diff = mapDiff(map, maps[j]!, limit);
      if (diff !== undefined) {
        best = { base: j, diff };
        limit = diff.removed.length + diff.set.length - 1;
      }
    }
    if (best === undefined) {
      w.u8(0);
      w.u32(map.size);
      // Trie order: decoding inserts in this order, which also reproduces collision-bucket order.
      for (const [k, v] of map.entries()) {
        c.writeKey(w, k);
        c.writeValue(w, v);
      }
    } else {
      w.u8(1);
      w.u8(best.base);
      w.u32(best.diff.removed.length);
      for (const k of best.diff.removed) c.writeKey(w, k);
      w.u32(best.diff.set.length);
      for (const [k, v] of best.diff.set) {
        c.writeKey(w, k);
        c.writeValue(w, v);
      }
    }
  });
}

function readCountOf(r: Reader, minEntry: number): number {
  const n = r.u32();
  if (n * minEntry > r.remaining) throw new DecodeError(`count ${n} exceeds the remaining input`);
  return n;
}

function readMapTable<K, V>(r: Reader, c: MapCodec<K, V>): PMap<K, V>[] {
  const n = r.u8();
  const maps: PMap<K, V>[] = [];
  for (let i = 0; i < n; i++) {
    maps.push(
      within(i, () => {
        const kind = r.u8();
        if (kind === 0) {
          const size = readCountOf(r, c.minEntry);
          const map = PMap.empty<K, V>(c.kind).withMutations((m) => {
            for (let e = 0; e < size; e++) {
              within(e, () => {
                const k = c.readKey(r);
                if (m.has(k)) throw new DecodeError('duplicate key');
                m.set(k, c.readValue(r));
              });
            }
          });
          return map;
        }
        if (kind !== 1) throw new DecodeError(`unknown table entry kind ${kind}`);
        const base = readRef(r, maps);
        const touched = new Set<K>(); // rejects keys listed twice
        return base.withMutations((m) => {
          const removed = readCountOf(r, 1);
          for (let e = 0; e < removed; e++) {
            const k = c.readKey(r);
            if (!m.has(k)) throw new DecodeError('removed key is not in the base map');
            m.delete(k);
            touched.add(k);
          }
          const set = readCountOf(r, c.minEntry);
          for (let e = 0; e < set; e++) {
            const k = c.readKey(r);
            if (touched.has(k)) throw new DecodeError('key listed twice in a map difference');
            touched.add(k);
            m.set(k, c.readValue(r));
          }
        });
      }),
    );
  }
  return maps;
}

const NOTE_MAPS: MapCodec<Fr, NoteRecord> = {
  kind: bigintKeys,
  writeKey: writeFr,
  readKey: readFr,
  writeValue: writeRecord,
  readValue: readRecord,
  minEntry: 32 + 8 + 32 + 4 + 32 + 4 + 2,
};

const DECL_MAPS: MapCodec<string, Declaration> = {
  kind: stringKeys,
  writeKey: (w, k) => writeHexKey(w, k, 'declaration id'),
  readKey: readHexKey,
  writeValue: writeDeclaration,
  readValue: readDeclaration,
  minEntry: 2 + 1 + 4 + 32 + 1 + 32 + 4 + 4 + 1 + 8,
};

// inferred: a UTXO tree is stored as its live leaves (a difference: leaves set, positions emptied);
// F serializes a position -> (key, item) map by serde, a storage format we need not share (docs/design/fidelity.md)
function writeTreeTable(w: Writer, trees: readonly UtxoTree[]): void {
  w.u8(trees.length);
  trees.forEach((tree, i) => {
    const full = tree.snapshot();
    let best: { base: number; changes: number } | undefined;
    for (let j = 0; j < i; j++) {
      if (trees[j]!.height !== tree.height) continue;
      const diff = tree.snapshot(trees[j]!);
      const changes = diff.leaves.length + (diff.removed?.length ?? 0);
      if (changes * 2 < full.leaves.length && changes < (best?.changes ?? Infinity)) {
        best = { base: j, changes };
      }
    }
    const s = best === undefined ? full : tree.snapshot(trees[best.base]!);
    if (best === undefined) w.u8(0);
    else {
      w.u8(1);
      w.u8(best.base);
    }
    w.u8(tree.height);
    w.u32(s.leaves.length);
    for (const [index, id] of s.leaves) {
      w.u32(index);
      writeFr(w, id);
    }
    if (best !== undefined) {
      const removed = s.removed ?? [];
      w.u32(removed.length);
      for (const index of removed) w.u32(index);
    }
  });
}

function readTreeTable(r: Reader): UtxoTree[] {
  const n = r.u8();
  const trees: UtxoTree[] = [];
  for (let i = 0; i < n; i++) {
    trees.push(
      within(i, () => {
        const kind = r.u8();
        if (kind > 1) throw new DecodeError(`unknown table entry kind ${kind}`);
        const base = kind === 1 ? readRef(r, trees) : undefined;
        const height = r.u8();
        const nLeaves = readCountOf(r, 36);
        const leaves: [number, Fr][] = new Array(nLeaves);
        for (let e = 0; e < nLeaves; e++) {
          const index = r.u32();
          leaves[e] = [index, readFr(r)];
        }
        const removed: number[] = [];
        if (base !== undefined) {
          const nRemoved = readCountOf(r, 4);
          for (let e = 0; e < nRemoved; e++) removed.push(r.u32());
        }
        try {
          return UtxoTree.restore({ height, leaves, removed }, base);
        } catch (e) {
          if (e instanceof MerkleTreeError || e instanceof FieldError) throw new DecodeError(e.message);
          throw e;
        }
      }),
    );
  }
  return trees;
}

// ---------------------------------------------------------------- state parts

function writeEpoch(w: Writer, e: EpochState, treeRef: number, notesRef: number): void {
  u32(w, e.epoch, 'epoch');
  writeFr(w, e.nonce);
  w.u8(treeRef);
  w.u8(notesRef);
  writeBig(w, e.total_stake, 'total stake');
  writeFr(w, e.lottery.t0);
  writeFr(w, e.lottery.t1);
  writeFr(w, e.blend_pow_difficulty);
}

function readEpoch(r: Reader, trees: UtxoTree[], notes: PMap<Fr, NoteRecord>[]): EpochState {
  return {
    epoch: r.u32(),
    nonce: readFr(r),
    utxos: readRef(r, trees),
    notes: readRef(r, notes),
    total_stake: readBig(r),
    lottery: { t0: readFr(r), t1: readFr(r) },
    blend_pow_difficulty: readFr(r),
  };
}

function writeGas(w: Writer, g: GasState): void {
  if (g.fee_window.length !== FEE_WINDOW) {
    throw new EncodeError(`fee window has ${g.fee_window.length} entries, expected ${FEE_WINDOW}`);
  }
  for (const f of g.fee_window) u64(w, f, 'fee window entry');
  u64(w, g.average_execution_gas, 'average execution gas');
  u64(w, g.execution_base_gas_price, 'execution base gas price');
  u64(w, g.storage_gas_ema, 'storage gas ema');
  u64(w, g.storage_gas_price, 'storage gas price');
  u64(w, g.storage_gas_consumed_in_epoch, 'storage gas consumed');
}

function readGas(r: Reader): GasState {
  const fee_window: bigint[] = [];
  for (let i = 0; i < FEE_WINDOW; i++) fee_window.push(r.u64());
  return {
    fee_window,
    average_execution_gas: r.u64(),
    execution_base_gas_price: r.u64(),
    storage_gas_ema: r.u64(),
    storage_gas_price: r.u64(),
    storage_gas_consumed_in_epoch: r.u64(),
  };
}

function writePow(w: Writer, p: PowState): void {
  writeBig(w, p.pool, 'pow pool');
  writeBig(w, p.epoch_reward, 'pow epoch reward');
  if (typeof p.target !== 'bigint' || p.target < 0n || p.target >> 256n !== 0n) {
    throw new EncodeError('pow target does not fit in 32 bytes');
  }
  w.bytes(frToBytes(p.target));
  writeBig(w, p.refill, 'pow refill');
  u32(w, p.recent_blocks.length, 'recent block count');
  for (const b of p.recent_blocks) {
    writeFixed(w, b.id, 32, 'recent block id');
    u64(w, b.slot, 'recent block slot');
  }
  u32(w, p.nullifiers.length, 'pow nullifier count');
  for (const n of p.nullifiers) {
    writeFr(w, n.nullifier);
    u64(w, n.slot, 'pow nullifier slot');
  }
  const d = p.tx_density;
  u64(w, d.current.blocks, 'epoch block count');
  u64(w, d.current.transactions, 'epoch tx count');
  w.u8(d.last_closed === null ? 0 : 1);
  if (d.last_closed !== null) {
    u64(w, d.last_closed.blocks, 'closed epoch block count');
    u64(w, d.last_closed.transactions, 'closed epoch tx count');
  }
}

function readPow(r: Reader): PowState {
  const pool = readBig(r);
  const epoch_reward = readBig(r);
  const target = leBytesToBigint(r.bytes(32));
  const refill = readBig(r);
  const nBlocks = readCountOf(r, 40);
  const recent_blocks: { id: Uint8Array; slot: bigint }[] = [];
  for (let i = 0; i < nBlocks; i++) recent_blocks.push({ id: r.bytes(32).slice(), slot: r.u64() });
  const nNull = readCountOf(r, 40);
  const nullifiers: { nullifier: Fr; slot: bigint }[] = [];
  for (let i = 0; i < nNull; i++) nullifiers.push({ nullifier: readFr(r), slot: r.u64() });
  const currentBlocks = r.u64();
  const current = { transactions: r.u64(), blocks: currentBlocks };
  const closedTag = r.u8();
  if (closedTag > 1) throw new DecodeError(`bad closed-epoch tag ${closedTag}`);
  let last_closed: { transactions: bigint; blocks: bigint } | null = null;
  if (closedTag === 1) {
    const blocks = r.u64();
    last_closed = { transactions: r.u64(), blocks };
  }
  return {
    pool,
    epoch_reward,
    target,
    refill,
    recent_blocks,
    nullifiers,
    tx_density: { current, last_closed },
  };
}

function writeVouchers(w: Writer, v: VoucherTree): void {
  const s = v.snapshot();
  w.u8(v.height);
  count64(w, s.count, 'voucher count');
  let c = s.count;
  for (let i = 0; i < s.frontier.length; i++) {
    if (c % 2 === 1) writeFr(w, s.frontier[i]!);
    c = Math.floor(c / 2);
  }
}

function readVouchers(r: Reader): VoucherTree {
  const height = r.u8();
  const count = readCount64(r);
  if (height < 1 || height > 32) throw new DecodeError(`voucher tree height ${height} is out of range`);
  const frontier: Fr[] = [];
  let c = count;
  for (let i = 0; i <= height; i++) {
    frontier.push(c % 2 === 1 ? readFr(r) : 0n);
    c = Math.floor(c / 2);
  }
  return VoucherTree.restore({ height, count, frontier });
}

// ---------------------------------------------------------------- block density

// inferred: occupied slots stored as a count and ascending slots (docs/design/fidelity.md)
function writeOccupiedSlots(w: Writer, occupied: PMap<bigint, true>): void {
  const slots = [...occupied.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  u32(w, slots.length, 'occupied slot count');
  for (const s of slots) u64(w, s, 'occupied slot');
}

function readOccupiedSlots(r: Reader): PMap<bigint, true> {
  const n = readCountOf(r, 8);
  let previous = -1n;
  return PMap.empty<bigint, true>(bigintKeys).withMutations((m) => {
    for (let i = 0; i < n; i++) {
      const s = r.u64();
      if (s <= previous) throw new DecodeError('occupied slots are not strictly ascending');
      previous = s;
      m.set(s, true);
    }
  });
}

// ---------------------------------------------------------------- entry points

/** The snapshot bytes of `state` (format `SNAPSHOT_VERSION`, see the file header). */
export function encodeLedgerState(state: LedgerState): Uint8Array {
  const w = new Writer(1 << 16);
  w.u8(SNAPSHOT_VERSION);
  u64(w, state.block_number, 'block number');
  u64(w, state.slot, 'slot');
  writeFr(w, state.nonce);
  writeFr(w, state.prev_epoch_nonce);
  writeOccupiedSlots(w, state.occupied_slots);

  // Oldest first: later (usually newer) structures are encoded as differences from earlier ones.
  const trees = table([state.epoch_state.utxos, state.next_epoch_state.utxos, state.utxos]);
  const notes = table([state.epoch_state.notes, state.next_epoch_state.notes, state.notes]);
  writeTreeTable(w, trees.distinct);
  writeMapTable(w, notes.distinct, NOTE_MAPS);
  w.u8(trees.refs[2]!);
  w.u8(notes.refs[2]!);
  writeEpoch(w, state.epoch_state, trees.refs[0]!, notes.refs[0]!);
  writeEpoch(w, state.next_epoch_state, trees.refs[1]!, notes.refs[1]!);

  writeGas(w, state.gas);

  u32(w, state.channels.size, 'channel count');
  for (const [k, c] of state.channels.entries()) {
    writeHexKey(w, k, 'channel id');
    writeChannel(w, c);
  }

  writeSdp(w, state.sdp);

  const l = state.leader;
  writeVouchers(w, l.vouchers);
  writeFr(w, l.snapshot.root);
  count64(w, l.snapshot.count, 'voucher snapshot count');
  u32(w, l.nullifiers.size, 'leader nullifier count');
  for (const [k, v] of l.nullifiers.entries()) {
    if (v !== true) throw new EncodeError('leader nullifier set holds a value other than true');
    writeFr(w, k);
  }
  writeBig(w, l.pending_rewards, 'pending rewards');
  writeBig(w, l.claimable_rewards, 'claimable rewards');

  writePow(w, state.pow);
  return w.finish();
}

/** Decodes snapshot bytes; throws DecodeError on any malformed, truncated or over-long input. */
export function decodeLedgerState(bytes: Uint8Array): LedgerState {
  const r = new Reader(bytes);
  try {
    const version = r.u8();
    if (version !== SNAPSHOT_VERSION) {
      throw new DecodeError(
        `unsupported ledger snapshot format version ${version} (this node reads version ${SNAPSHOT_VERSION})`,
      );
    }
    const block_number = r.u64();
    const slot = r.u64();
    const nonce = within('nonce', () => readFr(r));
    const prev_epoch_nonce = within('prev_epoch_nonce', () => readFr(r));
    const occupied_slots = within('occupied_slots', () => readOccupiedSlots(r));
    const trees = within('utxo_trees', () => readTreeTable(r));
    const noteMaps = within('note_maps', () => readMapTable(r, NOTE_MAPS));
    const utxos = within('utxos', () => readRef(r, trees));
    const notes = within('notes', () => readRef(r, noteMaps));
    const epoch_state = within('epoch_state', () => readEpoch(r, trees, noteMaps));
    const next_epoch_state = within('next_epoch_state', () => readEpoch(r, trees, noteMaps));
    const gas = within('gas', () => readGas(r));
    const channels = within('channels', () => {
      const n = readCountOf(r, 2 + 4 * 8 + 8 * 2);
      return PMap.empty<string, ChannelState>(stringKeys).withMutations((m) => {
        for (let i = 0; i < n; i++) {
          within(i, () => {
            const k = readHexKey(r);
            if (m.has(k)) throw new DecodeError('duplicate channel id');
            m.set(k, readChannel(r));
          });
        }
      });
    });
    const sdp = within('sdp', () => readSdp(r));
    const leader = within('leader', () => {
      const vouchers = readVouchers(r);
      const root = readFr(r);
      const count = readCount64(r);
      const n = readCountOf(r, 32);
      const nullifiers = PMap.empty<Fr, true>(bigintKeys).withMutations((m) => {
        for (let i = 0; i < n; i++) {
          const k = readFr(r);
          if (m.has(k)) throw new DecodeError('duplicate leader nullifier');
          m.set(k, true);
        }
      });
      return {
        vouchers,
        snapshot: { root, count },
        nullifiers,
        pending_rewards: readBig(r),
        claimable_rewards: readBig(r),
      };
    });
    const pow = within('pow', () => readPow(r));
    r.end();
    return {
      block_number,
      slot,
      nonce,
      prev_epoch_nonce,
      epoch_state,
      next_epoch_state,
      occupied_slots,
      notes,
      utxos,
      gas,
      channels,
      sdp,
      leader,
      pow,
    };
  } catch (e) {
    if (e instanceof DecodeError) throw e.under('ledger_snapshot');
    if (e instanceof MerkleTreeError || e instanceof FieldError) {
      throw new DecodeError(e.message, 'ledger_snapshot');
    }
    if (e instanceof LogosError) throw new DecodeError(e.message, 'ledger_snapshot');
    throw e;
  }
}
