/**
 * Transfers and transaction preverification, ported from the reference:
 * core/src/mantle/ops/transfer.rs, core/src/mantle/transactions/signed_mantle_tx.rs,
 * core/src/proofs/channel_multi_sig_proof.rs.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Reader, Writer } from '../../src/codec/binary.ts';
import { zkPublicKey } from '../../src/crypto/zk-keys.ts';
import { preverifyTx } from '../../src/ledger/preverify.ts';
import { noteId } from '../../src/mantle/note.ts';
import { type ChannelInscribeOp, type Op, Opcode, opId } from '../../src/mantle/ops.ts';
import { type IndexedSignature, type OpProof, readProof, writeProof } from '../../src/mantle/proofs.ts';
import { type SignedMantleTx, txHash, txHashToFr } from '../../src/mantle/tx.ts';
import { insecureTestZkSign } from '../../src/zk/insecure-test-proofs.ts';
import { CTX } from '../mocks/ledger.ts';
import { applyTx, edKey, freshState, rejects, signed } from './ledger-helpers.ts';

const TR = 'core/src/mantle/ops/transfer.rs';
const SMT = 'core/src/mantle/transactions/signed_mantle_tx.rs';
const _MSP = 'core/src/proofs/channel_multi_sig_proof.rs';

test(`test_preverify_rejects_empty_inputs (${TR})`, () => {
  const op: Op = { opcode: Opcode.Transfer, payload: { inputs: [], outputs: [{ value: 100n, pk: 0n }] } };
  rejects(() => preverifyTx(signed([op], [[]]), CTX.proofs), 'EmptyInputs');
});

test(`test_utxos_and_utxo_by_index (${TR})`, () => {
  // The outputs of a transfer are the UTXOs (op id, output index, note); applied, the ledger holds
  // exactly those ids.
  const { state, notes } = freshState();
  const input = notes[0]!;
  const outputs = [
    { value: 100n, pk: 0n },
    { value: 200n, pk: 1n },
    { value: 300n, pk: 2n },
  ];
  const op: Op = { opcode: Opcode.Transfer, payload: { inputs: [input.id], outputs } };
  const r = applyTx(state, signed([op], [[input.sk]]));
  const id = opId(op);
  outputs.forEach((note, i) => {
    const rec = r.state.notes.get(noteId(id, i, note));
    assert.deepEqual(rec?.note, note);
    assert.equal(rec?.output_index, i);
  });
  assert.equal(r.state.notes.size, state.notes.size - 1 + 3);
  // The balance is Σ inputs − Σ outputs.
  assert.equal(r.outcome.tip, input.note.value - 600n);
});

// ---------- core/src/mantle/transactions/signed_mantle_tx.rs ----------

/** `create_test_inscribe_op`: channel 0, inscription [1,2,3], zero parent, signed by `key`. */
function inscribeOp(key: ReturnType<typeof edKey>): Op {
  const payload: ChannelInscribeOp = {
    channel_id: new Uint8Array(32),
    inscription: Uint8Array.of(1, 2, 3),
    parent: new Uint8Array(32),
    signer: key.publicKey,
  };
  return { opcode: Opcode.ChannelInscribe, payload };
}

function withProofs(ops: Op[], proofs: (hash: Uint8Array) => OpProof[]): SignedMantleTx {
  const mantle_tx = { ops };
  return { mantle_tx, ops_proofs: proofs(txHash(mantle_tx)) };
}

/** Accepted (F: `preverify()` is `Ok`): the same transaction comes back with the hash its proofs sign. */
function assertPreverified(tx: SignedMantleTx): void {
  const r = preverifyTx(tx, CTX.proofs);
  assert.equal(r.tx, tx);
  assert.deepEqual(r.hash, txHash(tx.mantle_tx));
}

test(`test_signed_mantle_tx_new_with_valid_inscribe_proof (${SMT})`, () => {
  const key = edKey(1);
  const tx = withProofs([inscribeOp(key)], (h) => [{ type: 'Ed25519Sig', signature: key.sign(h) }]);
  assertPreverified(tx);
});

test(`test_signed_mantle_tx_new_missing_inscribe_proof (${SMT})`, () => {
  const tx = withProofs([inscribeOp(edKey(1))], () => []);
  rejects(() => preverifyTx(tx, CTX.proofs), 'ProofCountMismatch');
});

test(`test_signed_mantle_tx_new_invalid_inscribe_signature (${SMT})`, () => {
  const tx = withProofs([inscribeOp(edKey(1))], (h) => [{ type: 'Ed25519Sig', signature: edKey(2).sign(h) }]);
  rejects(() => preverifyTx(tx, CTX.proofs), 'InvalidEd25519Signature');
});

test(`test_signed_mantle_tx_new_incorrect_inscribe_proof_type (${SMT})`, () => {
  const tx = withProofs([inscribeOp(edKey(1))], (h) => [
    { type: 'ZkSig', signature: insecureTestZkSign(txHashToFr(h), []) },
  ]);
  rejects(() => preverifyTx(tx, CTX.proofs), 'IncorrectProofType');
});

test(`test_signed_mantle_tx_new_multiple_ops_valid (${SMT})`, () => {
  const [k1, k2] = [edKey(1), edKey(2)];
  const tx = withProofs([inscribeOp(k1), inscribeOp(k2)], (h) => [
    { type: 'Ed25519Sig', signature: k1.sign(h) },
    { type: 'Ed25519Sig', signature: k2.sign(h) },
  ]);
  assertPreverified(tx);
});

test(`test_signed_mantle_tx_new_multiple_ops_one_invalid (${SMT})`, () => {
  const [k1, k2] = [edKey(1), edKey(2)];
  const tx = withProofs([inscribeOp(k1), inscribeOp(k2)], (h) => [
    { type: 'Ed25519Sig', signature: k1.sign(h) },
    { type: 'Ed25519Sig', signature: edKey(3).sign(h) },
  ]);
  rejects(() => preverifyTx(tx, CTX.proofs), 'InvalidEd25519Signature');
});

test(`test_signed_mantle_tx_new_rejects_zero_value_transfer_output (${SMT})`, () => {
  const inputSk = 1n;
  const input = noteId(new Uint8Array(32).fill(1), 0, { value: 10_000n, pk: zkPublicKey(inputSk) });
  const op: Op = { opcode: Opcode.Transfer, payload: { inputs: [input], outputs: [{ value: 0n, pk: 2n }] } };
  rejects(() => preverifyTx(signed([op], [[inputSk]]), CTX.proofs), 'ZeroValueOutput');
});

test(`test_signed_mantle_tx_new_proof_count_mismatch (${SMT})`, () => {
  const key = edKey(1);
  rejects(
    () =>
      preverifyTx(
        withProofs([inscribeOp(key)], () => []),
        CTX.proofs,
      ),
    'ProofCountMismatch',
  );
  const two = withProofs([inscribeOp(key)], (h) => [
    { type: 'Ed25519Sig', signature: key.sign(h) },
    { type: 'Ed25519Sig', signature: key.sign(h) },
  ]);
  rejects(() => preverifyTx(two, CTX.proofs), 'ProofCountMismatch');
});

// ---------- core/src/proofs/channel_multi_sig_proof.rs ----------

const sig = (b: number) => new Uint8Array(64).fill(b);
const _multi = (pairs: [number, number][]): OpProof => ({
  type: 'ChannelMultiSigProof',
  signatures: pairs.map(([i, b]): IndexedSignature => ({ channel_key_index: i, signature: sig(b) })),
});
function _decodeMulti(p: OpProof): OpProof {
  const w = new Writer(256);
  writeProof(w, p);
  return readProof(new Reader(w.finish()), 'ChannelMultiSigProof');
}

test('test_note_id (core/src/mantle/ledger.rs)', () => {
  assert.equal(
    noteId(new Uint8Array(32), 0, { value: 100n, pk: 456n }),
    7557997998773395727489806263315711564569794358720487479582958381680367418066n,
  );
});
