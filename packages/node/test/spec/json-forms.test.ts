/**
 * JSON input rules of the reference's serde code, field type by field type, and the reference's
 * JSON/proof codec tests (kms/keys/src/keys/zk/signature.rs, core/src/mantle/ops/codec.rs,
 * core/src/header/mod.rs).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type Json, parseJson } from '@logos-ts/shared/json';
import { header } from '../../src/block/header.ts';
import { Reader, Writer } from '../../src/codec/binary.ts';
import { bytesToHex } from '../../src/codec/hex.ts';
import { id32 } from '../../src/codec/primitives.ts';
import { decode, encode } from '../../src/codec/schema.ts';
import { ed25519PublicKey } from '../../src/crypto/ed25519.ts';
import { Opcode, op } from '../../src/mantle/ops.ts';
import { proofFromJson, readProof, writeProof, zkSignature } from '../../src/mantle/proofs.ts';
import { signedMantleTx } from '../../src/mantle/tx.ts';

const KEY = bytesToHex(ed25519PublicKey(new Uint8Array(32).fill(1)));
const inscribe = (fields: Record<string, Json>): Json => ({
  opcode: Opcode.ChannelInscribe,
  payload: {
    channel_id: '00'.repeat(32),
    inscription: '6869',
    parent: '00'.repeat(32),
    signer: KEY,
    ...fields,
  },
});
const transfer = (fields: Record<string, Json>): Json => ({
  opcode: Opcode.Transfer,
  payload: { inputs: [], outputs: [], ...fields },
});

describe('0x prefixes: const_hex fields take one, serde_fr fields do not', () => {
  test('ids (core/src/utils/mod.rs const_hex::decode_to_array): 0x accepted, 0X and uppercase prefix refused', () => {
    assert.deepEqual(id32.fromJson(`0x${'ab'.repeat(32)}`), new Uint8Array(32).fill(0xab));
    assert.deepEqual(id32.fromJson('AB'.repeat(32)), new Uint8Array(32).fill(0xab));
    assert.throws(() => id32.fromJson(`0X${'ab'.repeat(32)}`), /invalid hex/);
  });
  test('Ed25519 keys (utils/src/lib.rs deserialize_bytes_array): 0x accepted', () => {
    const o = op.fromJson(inscribe({ signer: `0x${KEY}` }));
    assert.equal(bytesToHex((o.payload as { signer: Uint8Array }).signer), KEY);
  });
  test('Ed25519 signatures (kms/keys/src/keys/ed25519/signature.rs): 0x accepted', () => {
    const p = proofFromJson({ Ed25519Sig: `0x${'11'.repeat(64)}` });
    assert.deepEqual(p, { type: 'Ed25519Sig', signature: new Uint8Array(64).fill(0x11) });
  });
  test('PoC proofs (core/src/proofs/leader_claim_proof.rs proof_serde): 0x accepted', () => {
    const p = proofFromJson({ PoC: { proof: `0x${'22'.repeat(128)}` } });
    assert.deepEqual(p, { type: 'PoC', proof: new Uint8Array(128).fill(0x22) });
  });
  test('inscriptions (core/src/mantle/ops/channel/inscribe.rs serde_inscription): 0x accepted', () => {
    const o = op.fromJson(inscribe({ inscription: '0x6869' }));
    assert.equal(bytesToHex((o.payload as { inscription: Uint8Array }).inscription), '6869');
  });
  test('field elements (zk/groth16/src/serde.rs serde_fr, the hex crate): 0x refused, uppercase accepted', () => {
    assert.throws(
      () => op.fromJson(transfer({ inputs: [`0x${'00'.repeat(32)}`] })),
      /inputs\[0\]: invalid hex/,
    );
    const o = op.fromJson(transfer({ inputs: [`AB${'00'.repeat(31)}`] }));
    assert.deepEqual((o.payload as { inputs: bigint[] }).inputs, [0xabn]);
  });
  test('ZK signature parts (kms/keys/src/keys/zk/signature.rs, the hex crate): 0x refused, byte arrays accepted', () => {
    const good = { pi_a: '00'.repeat(32), pi_b: '00'.repeat(64), pi_c: '00'.repeat(32) };
    assert.throws(() => zkSignature.fromJson({ ...good, pi_a: `0x${'00'.repeat(32)}` }), /pi_a: invalid hex/);
    assert.deepEqual(
      zkSignature.fromJson({ ...good, pi_c: Array(32).fill(7) }).pi_c,
      new Uint8Array(32).fill(7),
    );
  });
});

describe('other serde leniencies', () => {
  const sampleHeader = {
    parent_block: '11'.repeat(32),
    slot: 42,
    body_root: '22'.repeat(32),
    proof_of_leadership: {
      proof: '22'.repeat(128),
      entropy_contribution: `5555${'00'.repeat(30)}`,
      leader_key: '33'.repeat(32),
      voucher_cm: `4444${'00'.repeat(30)}`,
    },
  };
  test('header version in any case (core/src/header/mod.rs TryFrom<&str> for Version), written "Bedrock"', () => {
    for (const v of ['Bedrock', 'bedrock', 'BEDROCK', 'bEdRoCk']) {
      const h = header.fromJson({ version: v, ...sampleHeader });
      assert.equal((header.toJson(h) as { version: string }).version, 'Bedrock');
    }
    assert.throws(() => header.fromJson({ version: 'Bedrock2', ...sampleHeader }), /unknown header version/);
    assert.throws(() => header.fromJson({ version: 1, ...sampleHeader }), /unknown header version/);
  });
  test('header leader key: 0x accepted, must decompress (small order allowed)', () => {
    const pol = {
      ...sampleHeader.proof_of_leadership,
      leader_key: `0x${'00'.repeat(32)}`,
      proof: `0x${'22'.repeat(128)}`,
    };
    assert.ok(header.fromJson({ version: 'Bedrock', ...sampleHeader, proof_of_leadership: pol }));
    const notPoint = { ...pol, leader_key: `02${'00'.repeat(31)}` };
    assert.throws(
      () => header.fromJson({ version: 'Bedrock', ...sampleHeader, proof_of_leadership: notPoint }),
      /leader_key: not a valid Ed25519 public key/,
    );
  });
  test('the None proof only as {"None":null} (core/src/mantle/ops/mod.rs OpProof::None(NoOpProof))', () => {
    assert.deepEqual(proofFromJson({ None: null }), { type: 'None' });
    assert.throws(() => proofFromJson('None'), /expected a proof/);
    assert.throws(() => proofFromJson({ None: [] }), /None proof takes null/);
  });
  test('integers written 1.0 or 1e2 are refused (serde_json reads them as floats)', () => {
    const text = (opcode: string, value: string) =>
      `{"mantle_tx":{"ops":[{"opcode":${opcode},"payload":{"inputs":[],"outputs":[{"value":${value},"pk":"${'00'.repeat(32)}"}]}}]},"ops_proofs":[{"ZkSig":{"pi_a":"${'00'.repeat(32)}","pi_b":"${'00'.repeat(64)}","pi_c":"${'00'.repeat(32)}"}}]}`;
    assert.ok(signedMantleTx.fromJson(parseJson(text('0', '100'))));
    assert.throws(
      () => signedMantleTx.fromJson(parseJson(text('0.0', '100'))),
      /opcode: expected u8, got a floating point/,
    );
    assert.throws(
      () => signedMantleTx.fromJson(parseJson(text('0', '1e2'))),
      /value: expected u64, got a floating point/,
    );
    assert.throws(
      () => signedMantleTx.fromJson(parseJson(text('0', '100.0'))),
      /value: expected u64, got a floating point/,
    );
  });
});

describe('reference tests', () => {
  test('signature_rejects_wrong_pi_a_hex_length_json (kms/keys/src/keys/zk/signature.rs)', () => {
    const j = parseJson(`{"pi_a":"00","pi_b":"${'00'.repeat(64)}","pi_c":"${'00'.repeat(32)}"}`);
    assert.throws(() => zkSignature.fromJson(j), /must be 32 bytes/);
  });
  test('signature_rejects_wrong_pi_b_hex_length_yaml (kms/keys/src/keys/zk/signature.rs; the same shape as JSON)', () => {
    assert.throws(
      () => zkSignature.fromJson({ pi_a: '00'.repeat(32), pi_b: '00', pi_c: '00'.repeat(32) }),
      /must be 64 bytes/,
    );
  });
  test('zk_signature_json_roundtrip (kms/keys/src/keys/zk/signature.rs)', () => {
    const sig = {
      pi_a: new Uint8Array(32).fill(3),
      pi_b: new Uint8Array(64).fill(4),
      pi_c: new Uint8Array(32).fill(5),
    };
    assert.deepEqual(zkSignature.fromJson(parseJson(JSON.stringify(zkSignature.toJson(sig)))), sig);
  });
  test('test_encode_decode_leader_claim_op_proof (core/src/mantle/ops/codec.rs)', () => {
    const proof = Uint8Array.from({ length: 128 }, (_, i) => i);
    const w = new Writer(128);
    writeProof(w, { type: 'PoC', proof });
    const encoded = w.finish();
    assert.equal(encoded.length, 128);
    const r = new Reader(encoded);
    assert.deepEqual(readProof(r, 'PoC'), { type: 'PoC', proof });
    r.end();
  });
  test('test_serde (core/src/header/mod.rs): HeaderId [0; 32] round trip', () => {
    assert.deepEqual(decode(id32, encode(id32, new Uint8Array(32))), new Uint8Array(32));
  });
});
