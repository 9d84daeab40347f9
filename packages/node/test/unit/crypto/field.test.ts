import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bytesToHex, hexToBytes } from '../../../src/codec/hex.ts';
import {
  FieldError,
  FR_MODULUS,
  fr,
  frFromAscii,
  frFromBytes,
  frFromBytesModOrder,
  frToBytes,
} from '../../../src/crypto/field.ts';

test('the BN254 scalar modulus', () => {
  assert.equal(FR_MODULUS, 21888242871839275222246405745257275088548364400416034343698204186575808495617n);
});

test('Fr(1) is 01 followed by 31 zero bytes (little-endian)', () => {
  assert.equal(bytesToHex(frToBytes(1n)), `01${'00'.repeat(31)}`);
  assert.equal(frFromBytes(hexToBytes(`01${'00'.repeat(31)}`)), 1n);
});

test('round trip and canonical boundary', () => {
  for (const v of [0n, 1n, 255n, 256n, 2n ** 128n, FR_MODULUS - 1n])
    assert.equal(frFromBytes(frToBytes(v)), v);
  assert.equal(frToBytes(FR_MODULUS - 1n)[31], 0x30);
  assert.throws(() => frFromBytes(frToBytes(FR_MODULUS)), FieldError);
  assert.throws(() => frFromBytes(new Uint8Array(32).fill(0xff)), FieldError);
  assert.throws(() => frFromBytes(new Uint8Array(31)), FieldError);
  assert.throws(() => fr(-1n), FieldError);
  assert.throws(() => fr(FR_MODULUS), FieldError);
});

test('from_le_bytes_mod_order reduces', () => {
  const max = new Uint8Array(32).fill(0xff);
  assert.equal(frFromBytesModOrder(max), (2n ** 256n - 1n) % FR_MODULUS);
  assert.equal(frFromBytesModOrder(frToBytes(FR_MODULUS)), 0n);
  assert.equal(frFromBytesModOrder(frToBytes(FR_MODULUS + 5n)), 5n);
});

test('domain constants are the LE integers of their ASCII tags', () => {
  assert.equal(frFromAscii('KDF'), 4605003n);
  assert.equal(frFromAscii('NOTE_ID_V1'), 232989242343357190262606n);
  assert.equal(frFromAscii('LEAD_V1'), 13887241025832268n);
  assert.equal(frFromAscii('REWARD_VOUCHER'), 1668646695034522932676805048878418n);
  assert.equal(frFromAscii('EPOCH_NONCE_V1'), 1000681177364816279997158727307333n);
});
