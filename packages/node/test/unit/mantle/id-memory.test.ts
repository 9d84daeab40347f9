/**
 * The ids a pending transaction asks for again and again are kept (src/mantle/ops.ts `opId`,
 * src/mantle/note.ts `noteId`, src/crypto/field.ts `hashFr`); a kept value is given only for the same
 * content, so an object changed since gets its id computed again, equal to a fresh computation.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { frFromBytesModOrder, hashFr } from '../../../src/crypto/field.ts';
import { digest } from '../../../src/crypto/poseidon2/index.ts';
import { NOTE_ID_V1, type Note, noteId } from '../../../src/mantle/note.ts';
import { type Op, opId, type TransferOp } from '../../../src/mantle/ops.ts';

const fresh = (o: TransferOp): Op => ({
  opcode: 0,
  payload: { inputs: [...o.inputs], outputs: o.outputs.map((n) => ({ ...n })) },
});

test('a transfer payload changed after its id was asked for gets the id of its new content', () => {
  const payload: TransferOp = { inputs: [5n, 6n], outputs: [{ value: 10n, pk: 7n }] };
  const v: Op = { opcode: 0, payload };
  const first = opId(v);
  assert.equal(opId(v), first, 'asked again: the same id');
  payload.outputs[0]!.value = 11n;
  assert.deepEqual(opId(v), opId(fresh(payload)));
  assert.notDeepEqual(opId(v), first);
  payload.inputs.push(8n);
  assert.deepEqual(opId(v), opId(fresh(payload)));
  payload.outputs.push({ value: 1n, pk: 2n });
  assert.deepEqual(opId(v), opId(fresh(payload)));
});

test('a note id follows the note, its output index and its op id, whichever changed', () => {
  const id = new Uint8Array(32).fill(3);
  const n: Note = { value: 100n, pk: 9n };
  const expected = (op: Uint8Array, i: number, note: Note) =>
    digest([NOTE_ID_V1, frFromBytesModOrder(op), BigInt(i), note.value, note.pk]);
  assert.equal(noteId(id, 0, n), expected(id, 0, n));
  assert.equal(noteId(id, 1, n), expected(id, 1, n));
  n.value = 101n;
  assert.equal(noteId(id, 1, n), expected(id, 1, n));
  n.pk = 10n;
  assert.equal(noteId(id, 1, n), expected(id, 1, n));
  id[0] = 4;
  assert.equal(noteId(id, 1, n), expected(id, 1, n));
});

test('a hash as a field element follows the bytes of its array', () => {
  const h = new Uint8Array(32).fill(0xff);
  assert.equal(hashFr(h), frFromBytesModOrder(h));
  h[31] = 0;
  assert.equal(hashFr(h), frFromBytesModOrder(h));
  h[0] = 1;
  assert.equal(hashFr(h), frFromBytesModOrder(h));
});
