/**
 * Notes (UTXOs). A note is a value owned by a ZK public key; its id is a Poseidon2 hash of where it
 * was created (op id, output index) and what it holds.
 */

import { bytesToHex } from '../codec/hex.ts';
import { hashArray } from '../codec/primitives.ts';
import { type Codec, fr, struct, u32, u64 } from '../codec/schema.ts';
import { type Fr, frFromAscii, frFromBytesModOrder } from '../crypto/field.ts';
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
 * Ids computed lately, by everything they are a function of. A pending transaction is applied again
 * and again (the mempool's view after every block, block building), and each of its outputs costs a
 * Poseidon2 digest; the ids do not change, so the recent ones are kept. Bounded: the oldest entries
 * leave first.
 */
const RECENT_IDS_MAX = 1 << 16;
const recentIds = new Map<string, Fr>();

/** Note id = Poseidon2 digest [NOTE_ID_V1, op_id mod p, output_index, value, pk]. */
export function noteId(opId: Uint8Array, outputIndex: number, n: Note): Fr {
  const key = `${bytesToHex(opId)}:${outputIndex}:${n.value}:${n.pk}`;
  const known = recentIds.get(key);
  if (known !== undefined) return known;
  const id = digest([NOTE_ID_V1, frFromBytesModOrder(opId), BigInt(outputIndex), n.value, n.pk]);
  if (recentIds.size >= RECENT_IDS_MAX) recentIds.delete(recentIds.keys().next().value!);
  recentIds.set(key, id);
  return id;
}

export function utxoId(u: Utxo): Fr {
  return noteId(u.op_id, u.output_index, u.note);
}
