/** The reference's deployment-parameter codec tests (core/src/mantle/transactions/genesis_tx.rs). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bytesToHex, hexToBytes } from '../../src/codec/hex.ts';
import { FR_MODULUS, leBytesToBigint } from '../../src/crypto/field.ts';
import {
  type CryptarchiaParameter,
  decodeCryptarchiaParameter,
  encodeCryptarchiaParameter,
} from '../../src/mantle/genesis-parameter.ts';

const F = '(core/src/mantle/transactions/genesis_tx.rs)';
const param = (): CryptarchiaParameter => ({ chain_id: 'test', genesis_time: 1000, epoch_nonce: 0n });

/** The legacy layout: u64 chain-id length ‖ chain id ‖ u64 time ‖ 32 nonce bytes. */
function legacy(chainId: string, time: number, nonce: Uint8Array): Uint8Array {
  const id = new TextEncoder().encode(chainId);
  const out = new Uint8Array(8 + id.length + 8 + 32);
  const dv = new DataView(out.buffer);
  dv.setBigUint64(0, BigInt(id.length), true);
  out.set(id, 8);
  dv.setBigUint64(8 + id.length, BigInt(time), true);
  out.set(nonce, 16 + id.length);
  return out;
}

test(`test_cryptarchia_parameter_decode_errors ${F}`, () => {
  assert.throws(
    () => decodeCryptarchiaParameter(new Uint8Array(1)),
    /chain_id: length 0 is below the minimum 1/,
  );
  assert.throws(() => decodeCryptarchiaParameter(new Uint8Array(0)), /end of input|unexpected end/i);
  const bad = new Uint8Array(48);
  bad[0] = 100;
  assert.throws(() => decodeCryptarchiaParameter(bad), /end of input|unexpected end/i);
  const encoded = encodeCryptarchiaParameter(param());
  encoded[1] = 0xff;
  assert.throws(() => decodeCryptarchiaParameter(encoded), /chain id is not valid UTF-8/);
});

test(`legacy_deployment_encoding_is_accepted ${F}`, () => {
  const p = { chain_id: 'testnet-0.2.0', genesis_time: 1_782_808_200, epoch_nonce: 0n };
  assert.deepEqual(decodeCryptarchiaParameter(legacy(p.chain_id, p.genesis_time, new Uint8Array(32))), p);
});

test(`published_testnet_legacy_deployment_is_accepted ${F}`, () => {
  const encoded = hexToBytes(
    '0d00000000000000746573746e65742d302e322e30887e436a000000002d2ddf918544bca603c5a291c7dd1b902d6769ff4b00021506780e075c06051a',
  );
  const decoded = decodeCryptarchiaParameter(encoded);
  assert.equal(decoded.chain_id, 'testnet-0.2.0');
  assert.equal(decoded.genesis_time, 1_782_808_200);
  // fr_from_bytes_unchecked: the 32 bytes read little-endian, reduced mod p.
  assert.equal(decoded.epoch_nonce, leBytesToBigint(encoded.subarray(29, 61)) % FR_MODULUS);
});

test('legacy deployment nonce above p is reduced mod p, not refused (decode_legacy_cryptarchia_parameter)', () => {
  const nonce = new Uint8Array(32).fill(0xff);
  const decoded = decodeCryptarchiaParameter(legacy('testnet-0.2.0', 1000, nonce));
  assert.equal(decoded.epoch_nonce, (2n ** 256n - 1n) % FR_MODULUS);
});

test(`compact_encoding_takes_precedence_for_nul_chain_id ${F}`, () => {
  const p = { chain_id: '\0\0\0\0\0\0\0', genesis_time: 1000, epoch_nonce: 0n };
  assert.deepEqual(decodeCryptarchiaParameter(encodeCryptarchiaParameter(p)), p);
});

test(`compact_deployment_encoding_rejects_noncanonical_nonce ${F}`, () => {
  const id = new TextEncoder().encode('testnet-0.2.0');
  const encoded = new Uint8Array([id.length, ...id, 0xe8, 0x03, 0, 0, ...new Uint8Array(32).fill(0xff)]);
  assert.throws(() => decodeCryptarchiaParameter(encoded), /not canonical/);
});

test(`test_genesis_time_boundaries ${F}`, () => {
  assert.equal(
    bytesToHex(encodeCryptarchiaParameter({ ...param(), genesis_time: 0xffffffff })).slice(10, 18),
    'ffffffff',
  );
  assert.throws(() => encodeCryptarchiaParameter({ ...param(), genesis_time: 0x1_0000_0000 }), /u32/);
  assert.throws(() => encodeCryptarchiaParameter({ ...param(), genesis_time: -1 }), /u32/);
});
