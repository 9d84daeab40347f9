/**
 * Blocks: the tests of the reference's core/src/block/{mod,deser,genesis}.rs that carry concrete
 * values. The reference builds a real proof of leadership; the structural checks never look at the
 * proof, so a fixed 128-byte proof stands in for it here.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Json, parseJson, stringifyJson } from '@logos-ts/shared/json';
import {
  type Block,
  blockBodyRoot,
  block as blockCodec,
  bodyRoot,
  checkBlockStructure,
  checkGenesisBlock,
  decodeBlock,
  EMPTY_BLOCK_BYTES,
  encodeBlock,
  MAX_BLOCK_TRANSACTIONS,
  MAX_BLOCK_TRANSACTIONS_SIZE,
} from '../../src/block/block.ts';
import { encodeHeader, type Header, headerId, type SignedHeader } from '../../src/block/header.ts';
import { bytesToHex } from '../../src/codec/hex.ts';
import { Ed25519Signer } from '../../src/crypto/ed25519.ts';
import { Opcode } from '../../src/mantle/ops.ts';
import { encodeSignedTx, type SignedMantleTx } from '../../src/mantle/tx.ts';
import { filled, sampleSignedTx, seq } from '../mocks/fixtures.ts';

const KEY = new Ed25519Signer(filled(32, 0));
const OTHER_KEY = new Ed25519Signer(filled(32, 1));
const PROOF = { proof: seq(128, 3), entropy_contribution: 77n, leader_key: KEY.publicKey, voucher_cm: 0n };

/** An empty transaction (no operations), as the reference's `RawMantleTx(Ops::new_unchecked(vec![]))`. */
const EMPTY_TX: SignedMantleTx = { mantle_tx: { ops: [] }, ops_proofs: [] };

function makeHeader(parent: Uint8Array, slot: bigint, body_root: Uint8Array): Header {
  return { parent_block: parent, slot, body_root, proof_of_leadership: PROOF };
}

/** `Block::create`: header over the body root, signed by the leader key. */
function create(slot: bigint, uncle_headers: SignedHeader[], transactions: SignedMantleTx[]): Block {
  const header = makeHeader(filled(32, 0), slot, blockBodyRoot({ uncle_headers, transactions }));
  return { header, signature: KEY.sign(encodeHeader(header)), uncle_headers, transactions };
}

function signedUncle(slot: bigint): SignedHeader {
  const header = makeHeader(filled(32, 9), slot, filled(32, 9));
  return { header, signature: KEY.sign(encodeHeader(header)) };
}

function inscriptionTx(size: number): SignedMantleTx {
  return sampleSignedTx([
    {
      opcode: Opcode.ChannelInscribe,
      payload: {
        channel_id: filled(32, 1),
        inscription: new Uint8Array(size),
        parent: filled(32, 0),
        signer: seq(32, 9),
      },
    },
  ]);
}

/** Two transactions whose encoded sizes add up to exactly `total` bytes. */
function txsOfTotalSize(total: number): SignedMantleTx[] {
  const overhead = encodeSignedTx(inscriptionTx(0)).length;
  const first = 1_000_000;
  const txs = [inscriptionTx(first), inscriptionTx(total - 2 * overhead - first)];
  assert.equal(
    txs.reduce((n, t) => n + encodeSignedTx(t).length, 0),
    total,
  );
  return txs;
}

// ---------- core/src/block/mod.rs ----------

test('test_block_signature_validation (core/src/block/mod.rs)', () => {
  const valid = create(42n, [], []);
  checkBlockStructure(valid);
  const invalid = { ...valid, signature: OTHER_KEY.sign(encodeHeader(valid.header)) };
  assert.throws(() => checkBlockStructure(invalid), /signature/);
});

test('test_block_transaction_count_validation (core/src/block/mod.rs)', () => {
  checkBlockStructure(create(42n, [], []));
  const full = create(
    42n,
    [],
    Array.from({ length: MAX_BLOCK_TRANSACTIONS }, () => EMPTY_TX),
  );
  checkBlockStructure(full);
  assert.equal(decodeBlock(encodeBlock(full)).transactions.length, MAX_BLOCK_TRANSACTIONS);
  const over = { ...full, transactions: [...full.transactions, EMPTY_TX] };
  assert.throws(() => encodeBlock(over), /1025 transactions/);
  // The count read back from bytes is bounded the same way.
  const bytes = encodeBlock(full);
  const countAt = EMPTY_BLOCK_BYTES - 8;
  new DataView(bytes.buffer).setBigUint64(countAt, BigInt(MAX_BLOCK_TRANSACTIONS + 1), true);
  assert.throws(() => decodeBlock(bytes), /transactions: length 1025 exceeds static maximum 1024/);
});

test('test_block_transaction_size_validation (core/src/block/mod.rs)', () => {
  checkBlockStructure(create(42n, [], []));
  checkBlockStructure(create(42n, [], txsOfTotalSize(MAX_BLOCK_TRANSACTIONS_SIZE)));
  assert.throws(
    () => checkBlockStructure(create(42n, [], txsOfTotalSize(MAX_BLOCK_TRANSACTIONS_SIZE + 1))),
    new RegExp(`take ${MAX_BLOCK_TRANSACTIONS_SIZE + 1} bytes, the limit is ${MAX_BLOCK_TRANSACTIONS_SIZE}`),
  );
});

test('global_block_limits_are_reflective_in_block_transaction_bounds (core/src/block/mod.rs)', () => {
  assert.equal(MAX_BLOCK_TRANSACTIONS, 1024);
  assert.equal(MAX_BLOCK_TRANSACTIONS_SIZE, 2 * 1024 * 1024);
  // MIN is 0: an empty block encodes and decodes.
  assert.deepEqual(decodeBlock(encodeBlock(create(42n, [], []))).transactions, []);
});

test('test_create_rejects_genesis_slot (core/src/block/mod.rs)', () => {
  assert.throws(() => checkBlockStructure(create(0n, [], [])), /slot 0/);
});

test('test_reconstruct_rejects_genesis_slot (core/src/block/mod.rs)', () => {
  const valid = create(1n, [], []);
  const genesisHeader = { ...valid.header, slot: 0n };
  const b = { ...valid, header: genesisHeader, signature: KEY.sign(encodeHeader(genesisHeader)) };
  assert.throws(() => checkBlockStructure(b), /slot 0/);
});

test('body_root_accepts_carried_uncle_headers (core/src/block/mod.rs)', () => {
  const uncles = [signedUncle(1n), signedUncle(2n)];
  const b = create(42n, uncles, []);
  // Accepted (F: `into_verified` is Ok), also as read back from its bytes: the block keeps both headers,
  // in order, and its body root commits to them (it is not the root of an uncle-less body).
  assert.doesNotThrow(() => checkBlockStructure(b));
  const read = decodeBlock(encodeBlock(b));
  assert.doesNotThrow(() => checkBlockStructure(read));
  assert.deepEqual(read.uncle_headers, uncles);
  assert.deepEqual(read.header.body_root, bodyRoot(uncles, []));
  assert.notDeepEqual(read.header.body_root, bodyRoot([], []));
});

test('body_root_rejects_dropped_uncle_header (core/src/block/mod.rs)', () => {
  const b = create(42n, [signedUncle(1n)], []);
  assert.throws(() => checkBlockStructure({ ...b, uncle_headers: [] }), /body_root/);
});

test('body_root_rejects_substituted_uncle_header (core/src/block/mod.rs)', () => {
  const b = create(42n, [signedUncle(1n)], []);
  assert.throws(() => checkBlockStructure({ ...b, uncle_headers: [signedUncle(2n)] }), /body_root/);
});

test('body_root_rejects_reordered_uncle_headers (core/src/block/mod.rs)', () => {
  const [first, second] = [signedUncle(1n), signedUncle(2n)];
  const b = create(42n, [first, second], []);
  assert.throws(() => checkBlockStructure({ ...b, uncle_headers: [second, first] }), /body_root/);
});

test('body_root_rejects_tampered_uncle_signature (core/src/block/mod.rs)', () => {
  const uncle = signedUncle(1n);
  const b = create(42n, [uncle], []);
  const tampered = { header: uncle.header, signature: OTHER_KEY.sign(encodeHeader(uncle.header)) };
  assert.throws(() => checkBlockStructure({ ...b, uncle_headers: [tampered] }), /body_root/);
});

// ---------- core/src/block/deser.rs ----------

const emptyBlock = () => create(1n, [], []);
const jsonOf = (b: Block): Json => parseJson(stringifyJson(blockCodec.toJson(b)));

test('test_json_round_trip (core/src/block/deser.rs)', () => {
  const b = emptyBlock();
  const restored = blockCodec.fromJson(jsonOf(b));
  assert.deepEqual(headerId(restored.header), headerId(b.header));
  assert.deepEqual(restored.signature, b.signature);
});

test('test_json_signature_is_hex (core/src/block/deser.rs)', () => {
  const sig = (jsonOf(emptyBlock()) as { signature: string }).signature;
  assert.equal(sig.length, 128);
  assert.match(sig, /^[0-9a-f]+$/);
});

test('test_json_proof_is_hex (core/src/block/deser.rs)', () => {
  const j = jsonOf(emptyBlock()) as { header: { proof_of_leadership: { proof: string } } };
  const proof = j.header.proof_of_leadership.proof;
  assert.equal(proof.length, 256);
  assert.match(proof, /^[0-9a-f]+$/);
});

test('test_bincode_round_trip (core/src/block/deser.rs)', () => {
  const b = emptyBlock();
  const restored = decodeBlock(encodeBlock(b));
  assert.deepEqual(headerId(restored.header), headerId(b.header));
  assert.deepEqual(restored.signature, b.signature);
});

test('test_bincode_fixed_size_fields_have_no_length_prefix (core/src/block/deser.rs)', () => {
  const EXPECTED = 1 + 32 + 8 + 32 + 8 + 128 + 32 + 32 + 32 + 64 + 8;
  assert.equal(EXPECTED, 377);
  assert.equal(encodeBlock(emptyBlock()).length, EXPECTED);
  assert.equal(EMPTY_BLOCK_BYTES, EXPECTED);
});

// ---------- core/src/block/genesis.rs ----------

/** A genesis block: slot 0, zero parent, one transaction, zero signature (`GenesisBlock::genesis`). */
function genesisBlock(): Block {
  const transactions = [sampleSignedTx()];
  const header = makeHeader(filled(32, 0), 0n, blockBodyRoot({ uncle_headers: [], transactions }));
  return { header, signature: filled(64, 0), uncle_headers: [], transactions };
}

test('genesis_block_serde_roundtrip_wrapper (core/src/block/genesis.rs)', () => {
  const b = genesisBlock();
  const decoded = blockCodec.fromJson(jsonOf(b));
  checkGenesisBlock(decoded);
  assert.equal(decoded.header.slot, 0n);
  assert.equal(decoded.uncle_headers.length, 0);
  assert.equal(decoded.transactions.length, 1);
  assert.equal(bytesToHex(headerId(decoded.header)), bytesToHex(headerId(b.header)));
  checkGenesisBlock(decodeBlock(encodeBlock(b)));
});

test('genesis_block_deserialize_rejects_non_genesis_slot (core/src/block/genesis.rs)', () => {
  const b = genesisBlock();
  assert.throws(
    () => checkGenesisBlock({ ...b, header: { ...b.header, slot: 1n } }),
    /expected genesis slot/,
  );
});

test('genesis_block_deserialize_rejects_nonempty_uncle_references (core/src/block/genesis.rs)', () => {
  const b = genesisBlock();
  assert.throws(
    () => checkGenesisBlock({ ...b, uncle_headers: [{ header: b.header, signature: b.signature }] }),
    /genesis block must not reference uncles/,
  );
});

test('genesis_block_deserialize_rejects_transaction_count_not_one (core/src/block/genesis.rs)', () => {
  const b = genesisBlock();
  assert.throws(
    () => checkGenesisBlock({ ...b, transactions: [b.transactions[0]!, b.transactions[0]!] }),
    /genesis block must contain exactly one transaction/,
  );
});

test('genesis_block_deserialize_rejects_body_root_mismatch (core/src/block/genesis.rs)', () => {
  const b = genesisBlock();
  assert.throws(
    () => checkGenesisBlock({ ...b, header: { ...b.header, body_root: filled(32, 0) } }),
    /Body root mismatch: calculated body does not match header/,
  );
});
