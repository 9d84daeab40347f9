/**
 * Notes (UTXOs). A note is a value owned by a ZK public key; its id is a Poseidon2 hash of where it
 * was created (op id, output index) and what it holds.
 */

import { bytesEqual, bytesToHex } from '../codec/hex.ts';
import { hashArray } from '../codec/primitives.ts';
import { type Codec, fr, struct, u32, u64 } from '../codec/schema.ts';
import { type Fr, frFromAscii, hashFr } from '../crypto/field.ts';
import { digest } from '../crypto/poseidon2/index.ts';

export interface Note {
  value: bigint;
  pk: Fr;
}

export const note: Codec<Note> = struct<Note>('a note {value, pk}', { value: u64, pk: fr });

export interface Utxo {
  op_id: Uint8Array;
  output_index: number;
  note: Note;
}

/** JSON only (events, wallet builder inputs): `{"op_id":[32 ints],"output_index":n,"note":{...}}`. */
export const utxo: Codec<Utxo> = struct<Utxo>('a utxo {op_id, output_index, note}', {
  op_id: hashArray,
  output_index: u32,
  note,
});

/** Fr of the ASCII tag "NOTE_ID_V1" read little-endian (= 232989242343357190262606). */
export const NOTE_ID_V1: Fr = frFromAscii('NOTE_ID_V1');

/**
 * Ids computed lately. A pending transaction is applied again and again (the mempool's view on each new
 * tip, block building), and a block brings transactions seen pending before, each output costing a
 * Poseidon2 digest. Two memories: by note object (the same decoded transaction applied again; a hit
 * counts only if the op id, the output index and the note's fields are still the same), and, for
 * another object of the same note (a block's copy of a transaction), by everything the id is a
 * function of, bounded (the oldest entries leave first).
 */
const idsByNote = new WeakMap<
  Note,
  {
    readonly opId: Uint8Array;
    readonly index: number;
    readonly value: bigint;
    readonly pk: Fr;
    readonly id: Fr;
  }
>();
const RECENT_IDS_MAX = 1 << 16;
const recentIds = new Map<string, Fr>();

/** Note id = Poseidon2 digest [NOTE_ID_V1, op_id mod p, output_index, value, pk]. */
export function noteId(opId: Uint8Array, outputIndex: number, n: Note): Fr {
  const mine = idsByNote.get(n);
  if (
    mine !== undefined &&
    mine.index === outputIndex &&
    mine.value === n.value &&
    mine.pk === n.pk &&
    bytesEqual(mine.opId, opId)
  )
    return mine.id;
  const key = `${bytesToHex(opId)}:${outputIndex}:${n.value}:${n.pk}`;
  let id = recentIds.get(key);
  if (id === undefined) {
    id = digest([NOTE_ID_V1, hashFr(opId), BigInt(outputIndex), n.value, n.pk]);
    if (recentIds.size >= RECENT_IDS_MAX) recentIds.delete(recentIds.keys().next().value!);
    recentIds.set(key, id);
  }
  idsByNote.set(n, { opId: opId.slice(), index: outputIndex, value: n.value, pk: n.pk, id });
  return id;
}

export function utxoId(u: Utxo): Fr {
  return noteId(u.op_id, u.output_index, u.note);
}
