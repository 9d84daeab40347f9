/**
 * A working copy of the ledger state while a block (or a single transaction) is applied. It holds
 * the persistent structures and replaces them as ops execute; the state it started from never
 * changes, so a failed block or transaction is simply dropped.
 */
import { bytesToHex } from '../codec/hex.ts';
import { type Fr, hashFr } from '../crypto/field.ts';
import { type Note, noteId } from '../mantle/note.ts';
import type { PMap } from '../util/pmap.ts';
import { fail, NoteNotFound } from './errors.ts';
import type { LedgerEvent } from './events.ts';
import type { LedgerConfig } from './parameters.ts';
import type { ProofChecks } from './proof-system.ts';
import type {
  ChannelState,
  EpochState,
  GasState,
  LeaderState,
  LedgerState,
  NoteRecord,
  PowState,
  SdpState,
} from './state.ts';
import type { UtxoTree } from './trees/utxo-tree.ts';

export interface LedgerContext {
  readonly config: LedgerConfig;
  readonly proofs: ProofChecks;
}

export class Draft {
  block_number: bigint;
  slot: bigint;
  nonce: Fr;
  prev_epoch_nonce: Fr;
  epoch_state: EpochState;
  next_epoch_state: EpochState;
  occupied_slots: PMap<bigint, true>;
  notes: PMap<Fr, NoteRecord>;
  utxos: UtxoTree;
  gas: GasState;
  channels: PMap<string, ChannelState>;
  sdp: SdpState;
  leader: LeaderState;
  pow: PowState;
  readonly events: LedgerEvent[] = [];
  /** When set, the id of every note created is appended to it (what a transaction makes, for the mempool). */
  created: Fr[] | null = null;

  constructor(s: LedgerState) {
    this.block_number = s.block_number;
    this.slot = s.slot;
    this.nonce = s.nonce;
    this.prev_epoch_nonce = s.prev_epoch_nonce;
    this.epoch_state = s.epoch_state;
    this.next_epoch_state = s.next_epoch_state;
    this.occupied_slots = s.occupied_slots;
    this.notes = s.notes;
    this.utxos = s.utxos;
    this.gas = s.gas;
    this.channels = s.channels;
    this.sdp = s.sdp;
    this.leader = s.leader;
    this.pow = s.pow;
  }

  get epoch(): number {
    return this.epoch_state.epoch;
  }

  state(): LedgerState {
    return {
      block_number: this.block_number,
      slot: this.slot,
      nonce: this.nonce,
      prev_epoch_nonce: this.prev_epoch_nonce,
      epoch_state: this.epoch_state,
      next_epoch_state: this.next_epoch_state,
      occupied_slots: this.occupied_slots,
      notes: this.notes,
      utxos: this.utxos,
      gas: this.gas,
      channels: this.channels,
      sdp: this.sdp,
      leader: this.leader,
      pow: this.pow,
    };
  }

  // ---------- notes ----------

  /** A note that an op may spend as a regular note: it exists, is not locked and not in a channel. */
  spendable(id: Fr, opIndex: number): NoteRecord {
    const rec = this.notes.get(id);
    if (!rec) throw new NoteNotFound(id, `note ${id} does not exist`, opIndex);
    if (rec.locked_by !== null)
      fail('InputLocked', `note ${id} is locked by declaration ${rec.locked_by}`, opIndex);
    if (rec.channel !== null) fail('InputInChannel', `note ${id} belongs to channel ${rec.channel}`, opIndex);
    return rec;
  }

  /** A note held by the given channel. */
  channelNote(id: Fr, channel: string, opIndex: number): NoteRecord {
    const rec = this.notes.get(id);
    if (!rec) throw new NoteNotFound(id, `note ${id} does not exist`, opIndex);
    if (rec.channel !== channel)
      fail('InputNotInChannel', `note ${id} is not a note of channel ${channel}`, opIndex);
    return rec;
  }

  removeNote(id: Fr): NoteRecord {
    const rec = this.notes.get(id);
    if (!rec) throw new Error(`removeNote: ${id} is not in the note set`);
    this.notes = this.notes.delete(id);
    this.utxos = this.utxos.remove(rec.index);
    return rec;
  }

  /** Creates the UTXO `(opId, outputIndex, note)` and returns its id. */
  addNote(
    opId: Uint8Array,
    outputIndex: number,
    note: Note,
    channel: string | null = null,
    opIndex?: number,
  ): Fr {
    const id = noteId(opId, outputIndex, note);
    if (this.notes.has(id)) fail('DuplicateNote', `note ${id} already exists`, opIndex);
    this.created?.push(id);
    const { tree, index } = this.utxos.insert(id);
    this.utxos = tree;
    this.notes = this.notes.set(id, {
      note,
      index,
      origin: hashFr(opId),
      output_index: outputIndex,
      channel,
      locked_by: null,
    });
    return id;
  }

  updateNote(id: Fr, rec: NoteRecord): void {
    this.notes = this.notes.set(id, rec);
  }
}

export function hexKey(id: Uint8Array): string {
  return bytesToHex(id);
}
