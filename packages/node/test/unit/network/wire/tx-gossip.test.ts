/**
 * Transactions on the wire: `u64 LE length ‖ binary transaction`, the length checked against the bytes
 * received and the cap before reading, trailing bytes refused, and fuzzing (typed errors only).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { encodeSignedTx } from '../../../../src/mantle/tx.ts';
import { WireError } from '../../../../src/network/wire/errors.ts';
import {
  decodeTxGossip,
  encodeTxGossip,
  MAX_GOSSIP_TX_BYTES,
} from '../../../../src/network/wire/tx-gossip.ts';
import { le64, SAMPLE_OPS, sampleSignedTx } from '../../../mocks/fixtures.ts';
import { xorshift32 } from '../../../utils/prng.ts';

const TX = sampleSignedTx();

test('a transaction is its binary encoding behind a u64 length', () => {
  const body = encodeSignedTx(TX);
  const bytes = encodeTxGossip(TX);
  assert.deepEqual(bytes.subarray(0, 8), le64(BigInt(body.length)));
  assert.deepEqual(bytes.subarray(8), body);
  assert.deepEqual(decodeTxGossip(bytes), TX);
});

test('lengths are checked before anything is read', () => {
  const body = encodeSignedTx(TX);
  const code = (bytes: Uint8Array, c: string) =>
    assert.throws(
      () => decodeTxGossip(bytes),
      (e) => e instanceof WireError && e.code === c,
    );
  code(new Uint8Array(7), 'WIRE_MALFORMED');
  code(le64(BigInt(MAX_GOSSIP_TX_BYTES) + 1n), 'WIRE_TOO_LARGE');
  code(le64(0xffffffffffffffffn), 'WIRE_TOO_LARGE');
  code(new Uint8Array([...le64(BigInt(body.length + 1)), ...body]), 'WIRE_MALFORMED');
  code(new Uint8Array([...le64(BigInt(body.length)), ...body, 0]), 'WIRE_MALFORMED');
  code(
    new Uint8Array([...le64(BigInt(body.length - 1)), ...body.subarray(0, body.length - 1)]),
    'WIRE_MALFORMED',
  );
  // A smaller cap.
  assert.throws(
    () => decodeTxGossip(encodeTxGossip(TX), 10),
    (e) => e instanceof WireError && e.code === 'WIRE_TOO_LARGE',
  );
});

test('fuzz: random and mutated messages give a transaction or a typed error', () => {
  const next = xorshift32(0x7a7a);
  const valid = [encodeTxGossip(TX), encodeTxGossip(sampleSignedTx(SAMPLE_OPS.slice(0, 1)))];
  const outcomes = new Set<string>();
  for (let i = 0; i < 5000; i++) {
    let b: Uint8Array;
    if (i % 3 === 0) {
      b = new Uint8Array(next() % 600);
      for (let j = 0; j < b.length; j++) b[j] = next() & 0xff;
    } else {
      b = valid[i % 2]!.slice();
      for (let k = 1 + (next() % 3); k > 0; k--) b[next() % b.length] = next() & 0xff;
      if (i % 5 === 0) b = b.subarray(0, next() % b.length);
    }
    try {
      decodeTxGossip(b);
      outcomes.add('tx');
    } catch (e) {
      if (!(e instanceof WireError)) throw new Error(`not a WireError: ${(e as Error).stack}`);
      outcomes.add(e.code);
    }
  }
  // Refused for more than one reason (the mutations reach past the first check).
  assert.ok([...outcomes].filter((o) => o !== 'tx').length >= 2, `outcomes: ${[...outcomes].join(', ')}`);
});
