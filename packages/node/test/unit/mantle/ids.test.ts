/**
 * Ids and hashes. The note id and key vectors come from the reference; where the reference quotes no
 * vector, the expected value is derived here by hand from the formula (independent Blake2b from
 * @noble/hashes, bytes laid out explicitly), and the test name says so.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseJson, stringifyJson } from '@logos-ts/shared/json';
import { blake2b } from '@noble/hashes/blake2.js';
import { blockBodyRoot, bodyRoot } from '../../../src/block/block.ts';
import { encodeHeader, headerId } from '../../../src/block/header.ts';
import { txMerkleRoot } from '../../../src/block/merkle.ts';
import { bytesToHex, concatBytes, hexToBytes } from '../../../src/codec/hex.ts';
import { encode } from '../../../src/codec/schema.ts';
import { frFromBytes, frToBytes } from '../../../src/crypto/field.ts';
import { zkPublicKey } from '../../../src/crypto/zk-keys.ts';
import { configMessageId, inscriptionMessageId } from '../../../src/mantle/channel.ts';
import {
  decodeCryptarchiaParameter,
  encodeCryptarchiaParameter,
} from '../../../src/mantle/genesis-parameter.ts';
import { NOTE_ID_V1, noteId, utxo, utxoId } from '../../../src/mantle/note.ts';
import { channelConfigOp, channelInscribeOp, type Op, Opcode, op, opId } from '../../../src/mantle/ops.ts';
import { declarationId } from '../../../src/mantle/sdp.ts';
import { encodeMantleTx, txHash, txHashToFr } from '../../../src/mantle/tx.ts';
import {
  filled,
  le64,
  SAMPLE_BLOCK,
  SAMPLE_HEADER,
  SAMPLE_OPS,
  SAMPLE_UNCLE,
  SIMPLE_TRANSFER,
  sampleSignedTx,
  seq,
} from '../../mocks/fixtures.ts';
import { REFERENCE } from '../../spec/vectors.ts';

const ascii = (s: string) => new TextEncoder().encode(s);
const b2 = (...parts: Uint8Array[]) => blake2b(concatBytes(...parts), { dkLen: 32 });

describe('reference vectors', () => {
  test('note id (core/src/mantle/ledger.rs test_note_id)', () => {
    const v = REFERENCE.note_id;
    assert.equal(NOTE_ID_V1, 232989242343357190262606n);
    const id = noteId(hexToBytes(v.op_id_hex), v.output_index, { value: BigInt(v.value), pk: BigInt(v.pk) });
    assert.equal(id.toString(), v.note_id);
  });

  test('ZK public keys from the keystore fixture: pk = compress([KDF, sk])', () => {
    for (const { title, sk, pk } of REFERENCE.zk_keys.pairs) {
      assert.equal(bytesToHex(frToBytes(zkPublicKey(frFromBytes(hexToBytes(sk))))), pk, title);
    }
  });

  test('genesis inscription payload: the formats.md example layout', () => {
    const g = REFERENCE.genesis_parameter;
    const bytes = concatBytes(
      Uint8Array.of(5),
      ascii(g.chain_id),
      hexToBytes(g.genesis_time_hex_le),
      frToBytes(42n),
    );
    const p = decodeCryptarchiaParameter(bytes);
    assert.equal(p.chain_id, g.chain_id);
    assert.equal(new Date(p.genesis_time * 1000).toISOString(), g.genesis_time_iso);
    assert.equal(p.epoch_nonce, 42n);
    assert.equal(bytesToHex(encodeCryptarchiaParameter(p)), bytesToHex(bytes));
  });
});

describe('ids derived by hand from the formulas (no reference vector)', () => {
  test('derived: tx hash = Blake2b256("MANTLE_TXHASH_V1" ‖ encode(MantleTx)), proofs not hashed', () => {
    const o = SIMPLE_TRANSFER;
    const body = concatBytes(
      Uint8Array.of(1, 0, 1),
      frToBytes(1n),
      Uint8Array.of(1),
      le64(100n),
      frToBytes(456n),
    );
    assert.equal(bytesToHex(encodeMantleTx({ ops: [o] })), bytesToHex(body));
    assert.equal(bytesToHex(txHash({ ops: [o] })), bytesToHex(b2(ascii('MANTLE_TXHASH_V1'), body)));
    assert.equal(
      bytesToHex(txHash({ ops: [] })),
      bytesToHex(b2(ascii('MANTLE_TXHASH_V1'), Uint8Array.of(0))),
    );
    const tx = sampleSignedTx();
    const other = sampleSignedTx();
    other.ops_proofs[0] = {
      type: 'ZkSig',
      signature: { pi_a: filled(32, 1), pi_b: filled(64, 1), pi_c: filled(32, 1) },
    };
    assert.deepEqual(txHash(tx.mantle_tx), txHash(other.mantle_tx));
  });

  test('derived: tx hash as a field element is the LE integer mod p', () => {
    const h = txHash({ ops: SAMPLE_OPS });
    let v = 0n;
    for (let i = 31; i >= 0; i--) v = (v << 8n) | BigInt(h[i]!);
    assert.equal(
      txHashToFr(h),
      v % 21888242871839275222246405745257275088548364400416034343698204186575808495617n,
    );
  });

  test('derived: op id = Blake2b256("OPERATION_ID_V1" ‖ payload without the opcode)', () => {
    for (const o of SAMPLE_OPS) {
      const payload = encode(op, o).subarray(1);
      assert.equal(
        bytesToHex(opId(o)),
        bytesToHex(b2(ascii('OPERATION_ID_V1'), payload)),
        `opcode ${o.opcode}`,
      );
    }
  });

  test('derived: tx Merkle root pads with zero leaves to a power of two', () => {
    const z = new Uint8Array(32);
    const [a, b, c] = [filled(32, 1), filled(32, 2), filled(32, 3)];
    assert.equal(bytesToHex(txMerkleRoot([])), '00'.repeat(32));
    assert.equal(bytesToHex(txMerkleRoot([a])), bytesToHex(a));
    assert.equal(bytesToHex(txMerkleRoot([a, b])), bytesToHex(b2(a, b)));
    assert.equal(bytesToHex(txMerkleRoot([a, b, c])), bytesToHex(b2(b2(a, b), b2(c, z))));
    const five = [a, b, c, a, b];
    const l1 = [b2(a, b), b2(c, a), b2(b, z), b2(z, z)];
    assert.equal(bytesToHex(txMerkleRoot(five)), bytesToHex(b2(b2(l1[0]!, l1[1]!), b2(l1[2]!, l1[3]!))));
  });

  test('derived: body root = Blake2b256("BODY_ROOT_V1" ‖ u8 uncle count ‖ 361-byte uncles ‖ tx root)', () => {
    const hashes = SAMPLE_BLOCK.transactions.map((t) => txHash(t.mantle_tx));
    const uncleBytes = concatBytes(encodeHeader(SAMPLE_UNCLE.header), SAMPLE_UNCLE.signature);
    assert.equal(uncleBytes.length, 361);
    const want = b2(ascii('BODY_ROOT_V1'), Uint8Array.of(1), uncleBytes, b2(hashes[0]!, hashes[1]!));
    assert.equal(bytesToHex(bodyRoot([SAMPLE_UNCLE], hashes)), bytesToHex(want));
    assert.equal(bytesToHex(blockBodyRoot(SAMPLE_BLOCK)), bytesToHex(want));
    assert.equal(
      bytesToHex(bodyRoot([], [])),
      bytesToHex(b2(ascii('BODY_ROOT_V1'), Uint8Array.of(0), new Uint8Array(32))),
    );
  });

  test('derived: header bytes are the 297-byte signing layout', () => {
    const h = SAMPLE_HEADER;
    const pol = h.proof_of_leadership;
    const want = concatBytes(
      Uint8Array.of(1),
      h.parent_block,
      le64(h.slot),
      h.body_root,
      pol.proof,
      frToBytes(pol.entropy_contribution),
      pol.leader_key,
      frToBytes(pol.voucher_cm),
    );
    assert.equal(want.length, 297);
    assert.equal(bytesToHex(encodeHeader(h)), bytesToHex(want));
  });

  test('derived: header id hashes the fields in its own order (voucher, entropy, proof, key)', () => {
    const h = SAMPLE_HEADER;
    const pol = h.proof_of_leadership;
    const want = b2(
      ascii('BLOCK_ID_V1'),
      Uint8Array.of(1),
      h.parent_block,
      le64(h.slot),
      h.body_root,
      frToBytes(pol.voucher_cm),
      frToBytes(pol.entropy_contribution),
      pol.proof,
      pol.leader_key,
    );
    assert.equal(bytesToHex(headerId(h)), bytesToHex(want));
    assert.notEqual(bytesToHex(headerId(h)), bytesToHex(b2(ascii('BLOCK_ID_V1'), encodeHeader(h))));
  });

  test('derived: channel message ids = Blake2b256(encode(payload)), untagged', () => {
    const ins = SAMPLE_OPS.find((o) => o.opcode === Opcode.ChannelInscribe)! as Extract<Op, { opcode: 17 }>;
    assert.equal(
      bytesToHex(inscriptionMessageId(ins.payload)),
      bytesToHex(b2(encode(channelInscribeOp, ins.payload))),
    );
    assert.equal(bytesToHex(inscriptionMessageId(ins.payload)), bytesToHex(b2(encode(op, ins).subarray(1))));
    const cfg = SAMPLE_OPS.find((o) => o.opcode === Opcode.ChannelConfig)! as Extract<Op, { opcode: 16 }>;
    assert.equal(
      bytesToHex(configMessageId(cfg.payload)),
      bytesToHex(b2(encode(channelConfigOp, cfg.payload))),
    );
  });

  test('derived: declaration id = Blake2b256("BN" ‖ provider ‖ zk_id LE ‖ encode(locators))', () => {
    const d = (SAMPLE_OPS.find((o) => o.opcode === Opcode.SDPDeclare)! as Extract<Op, { opcode: 32 }>)
      .payload;
    const locs = concatBytes(Uint8Array.of(1, 11, 0), hexToBytes('047f00000191020bb8cd03'));
    const want = b2(ascii('BN'), d.provider_id, frToBytes(d.zk_id), locs);
    assert.equal(bytesToHex(declarationId(d)), bytesToHex(want));
  });
});

describe('genesis parameter', () => {
  test('legacy form with u64 lengths decodes to the same value', () => {
    const legacy = concatBytes(le64(5n), ascii('0.2.1'), le64(1785920400n), frToBytes(7n));
    assert.deepEqual(decodeCryptarchiaParameter(legacy), {
      chain_id: '0.2.1',
      genesis_time: 1785920400,
      epoch_nonce: 7n,
    });
  });

  test('rejects empty, oversized, non-UTF-8 chain ids and trailing bytes', () => {
    const good = encodeCryptarchiaParameter({ chain_id: 'devnet', genesis_time: 1, epoch_nonce: 0n });
    assert.throws(() => decodeCryptarchiaParameter(concatBytes(good, Uint8Array.of(0))), /trailing/);
    assert.throws(
      () => decodeCryptarchiaParameter(concatBytes(Uint8Array.of(0), le64(0n).subarray(0, 4), frToBytes(0n))),
      /chain_id: length 0 is below the minimum 1/,
    );
    assert.throws(
      () => decodeCryptarchiaParameter(concatBytes(Uint8Array.of(1, 0xff), new Uint8Array(4), frToBytes(0n))),
      /chain_id: chain id is not valid UTF-8/,
    );
    assert.throws(
      () => encodeCryptarchiaParameter({ chain_id: '', genesis_time: 1, epoch_nonce: 0n }),
      /1\.\.255/,
    );
    assert.throws(
      () => encodeCryptarchiaParameter({ chain_id: 'x'.repeat(256), genesis_time: 1, epoch_nonce: 0n }),
      /1\.\.255/,
    );
  });
});

describe('notes and utxos', () => {
  test('utxo JSON: op_id as an array of 32 integers, note with value and pk', () => {
    const u = { op_id: seq(32, 1), output_index: 3, note: { value: 2n ** 64n - 1n, pk: 456n } };
    const text = stringifyJson(utxo.toJson(u));
    assert.equal(
      text,
      `{"op_id":[${[...seq(32, 1)].join(',')}],"output_index":3,"note":{"value":18446744073709551615,"pk":"c801${'00'.repeat(30)}"}}`,
    );
    assert.deepEqual(utxo.fromJson(parseJson(text)), u);
    assert.equal(utxoId(u), noteId(u.op_id, 3, u.note));
  });
});
