/**
 * Channel operations against a ledger state, ported from the reference: ledger/src/lib.rs,
 * core/src/mantle/channel.rs, core/src/mantle/ops/channel/*.rs, core/src/mantle/transactions/verified_ops.rs.
 * Transactions run through the op-by-op verification and execution with gas prices at 0, as the
 * reference's `try_apply_tx` does without the block's fee check.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DecodeError } from '../../src/codec/errors.ts';
import { bytesToHex } from '../../src/codec/hex.ts';
import { decode, encode } from '../../src/codec/schema.ts';
import { zkPublicKey } from '../../src/crypto/zk-keys.ts';
import { Draft } from '../../src/ledger/draft.ts';
import { preverifyTx } from '../../src/ledger/preverify.ts';
import type { LedgerState } from '../../src/ledger/state.ts';
import { configMessageId, inscriptionMessageId } from '../../src/mantle/channel.ts';
import { noteId } from '../../src/mantle/note.ts';
import {
  type ChannelConfigOp,
  type ChannelDepositOp,
  type ChannelInscribeOp,
  type ChannelWithdrawOp,
  channelInscribeOp,
  MAX_INSCRIPTION_BYTES,
  type Op,
  Opcode,
  opId,
} from '../../src/mantle/ops.ts';
import { CTX } from '../mocks/ledger.ts';
import {
  applyTx,
  bytes32,
  edKey,
  freshState,
  makeChannelState,
  multiSig,
  rejects,
  signed,
  ZERO32,
} from './ledger-helpers.ts';

const LIB = 'ledger/src/lib.rs';
const CH = 'core/src/mantle/channel.rs';

const inscribe = (p: ChannelInscribeOp): Op => ({ opcode: Opcode.ChannelInscribe, payload: p });
const configure = (p: ChannelConfigOp): Op => ({ opcode: Opcode.ChannelConfig, payload: p });
const deposit = (p: ChannelDepositOp): Op => ({ opcode: Opcode.ChannelDeposit, payload: p });
const withdraw = (p: ChannelWithdrawOp): Op => ({ opcode: Opcode.ChannelWithdraw, payload: p });

/** A transaction of one inscription signed by `key`. */
function inscriptionTx(op: ChannelInscribeOp, key = edKey(0)) {
  return signed([inscribe(op)], [], (hash) => ({ type: 'Ed25519Sig', signature: key.sign(hash) }));
}

/** `create_channel`: a first inscription by `key` creates the channel. */
function createChannel(state: LedgerState, id: Uint8Array, key = edKey(0)): LedgerState {
  const tx = inscriptionTx({
    channel_id: id,
    inscription: Uint8Array.of(1, 2, 3, 4),
    parent: ZERO32,
    signer: key.publicKey,
  });
  return applyTx(state, tx).state;
}

function channelOf(state: LedgerState, id: Uint8Array) {
  return state.channels.get(bytesToHex(id));
}

/** The state with a channel set directly (the reference tests build `Channels` by hand). */
function withChannel(state: LedgerState, id: Uint8Array, c = makeChannelState(1)): LedgerState {
  return { ...state, channels: state.channels.set(bytesToHex(id), c) };
}

/** The state with a note created as a channel note of `channel` (`register_channel_note`). */
function withChannelNote(
  state: LedgerState,
  channel: Uint8Array,
  origin: Uint8Array,
  value: bigint,
  pk: bigint,
) {
  const d = new Draft(state);
  const id = d.addNote(origin, 0, { value, pk }, bytesToHex(channel));
  return { state: d.state(), id };
}

test(`test_channel_inscribe_operation (${LIB})`, () => {
  const { state } = freshState();
  const id = bytes32(2);
  const r = applyTx(
    state,
    inscriptionTx({
      channel_id: id,
      inscription: Uint8Array.of(1, 2, 3, 4),
      parent: ZERO32,
      signer: edKey(0).publicKey,
    }),
  );
  assert.ok(channelOf(r.state, id));
  assert.equal(r.events.length, 0);
});

test(`test_channel_config_operation (${LIB})`, () => {
  // A config op creating a channel carries one signature by the new key; the reference does not
  // verify a creating config, so the signature is accepted (and paid for).
  const { state } = freshState();
  const id = bytes32(3);
  const key = edKey(0);
  const op: ChannelConfigOp = {
    channel: id,
    parent: ZERO32,
    keys: [key.publicKey],
    posting_timeframe: 0,
    posting_timeout: 0,
    configuration_threshold: 1,
    transfer_threshold: 1,
  };
  const r = applyTx(
    state,
    signed([configure(op)], [], (hash) => multiSig(hash, [[0, key]])),
  );
  assert.deepEqual(channelOf(r.state, id)?.accredited_keys, [key.publicKey]);
  assert.equal(r.outcome.executionGas, 56n);
  assert.equal(r.events.length, 0);
});

test(`test_channel_deposit_operation (${LIB})`, () => {
  const { state: s0, notes } = freshState();
  const utxo = notes[0]!;
  const id = bytes32(4);
  const state = createChannel(s0, id);
  assert.ok(channelOf(state, id));
  const dep: ChannelDepositOp = { channel_id: id, inputs: [utxo.id], metadata: Uint8Array.of(5, 6, 7, 8) };
  const tx = signed([deposit(dep)], [[utxo.sk]]);
  const r = applyTx(state, tx);
  const deposited = noteId(opId(deposit(dep)), 0, utxo.note);
  assert.equal(r.state.notes.has(utxo.id), false);
  assert.equal(r.state.notes.get(deposited)?.channel, bytesToHex(id));
  assert.equal(r.outcome.tip, 0n);
  assert.equal(r.events.length, 1);
  const ev = r.events[0]!;
  if (ev.kind !== 'Tx' || ev.event.payload.type !== 'Deposit') throw new Error('expected a deposit event');
  assert.equal(bytesToHex(ev.event.tx_hash), bytesToHex(r.outcome.hash));
  assert.equal(bytesToHex(ev.event.op_id), bytesToHex(opId(deposit(dep))));
  assert.equal(bytesToHex(ev.event.payload.channel_id), bytesToHex(id));
  assert.equal(ev.event.payload.amount, utxo.note.value);
  assert.deepEqual(ev.event.payload.metadata, dep.metadata);
  assert.deepEqual(ev.event.payload.notes, [
    { note_id: deposited, value: utxo.note.value, pk: utxo.note.pk },
  ]);
});

/** Creates channel `id` by inscription of key 0 and deposits `utxo` into it; returns the deposited note id. */
function depositInto(
  s0: LedgerState,
  id: Uint8Array,
  utxo: { id: bigint; sk: bigint; note: { value: bigint; pk: bigint } },
) {
  const state = createChannel(s0, id);
  const dep: ChannelDepositOp = { channel_id: id, inputs: [utxo.id], metadata: Uint8Array.of(5, 6, 7, 8) };
  const depositTx = signed([deposit(dep)], [[utxo.sk]]);
  const r = applyTx(state, depositTx);
  return { state: r.state, deposited: noteId(opId(deposit(dep)), 0, utxo.note), depositTx };
}

test(`test_channel_withdraw_operation (${LIB})`, () => {
  const { state: s0, notes } = freshState();
  const id = bytes32(9);
  const { state, deposited } = depositInto(s0, id, notes[0]!);
  assert.equal(state.notes.get(deposited)?.channel, bytesToHex(id));
  const tx = signed([withdraw({ channel_id: id, inputs: [deposited] })], [], (hash) =>
    multiSig(hash, [[0, edKey(0)]]),
  );
  const r = applyTx(state, tx);
  assert.equal(r.outcome.tip, 0n);
  // Released back to a regular note, under the id the deposit gave it.
  assert.equal(r.state.notes.get(deposited)?.channel, null);
  assert.equal(r.events.length, 0);
});

test(`test_channel_deposit_is_not_replayable_after_withdraw (${LIB})`, () => {
  const { state: s0, notes } = freshState();
  const utxo = notes[0]!;
  const id = bytes32(9);
  const { state, deposited, depositTx } = depositInto(s0, id, utxo);
  const tx = signed([withdraw({ channel_id: id, inputs: [deposited] })], [], (hash) =>
    multiSig(hash, [[0, edKey(0)]]),
  );
  const after = applyTx(state, tx).state;
  assert.equal(after.notes.has(utxo.id), false);
  rejects(() => applyTx(after, depositTx), 'InputNotFound');
});

test(`test_channel_withdraw_invalid_helper_backed_proof_fails_on_apply (${LIB})`, () => {
  const { state: s0, notes } = freshState();
  const id = bytes32(10);
  const { state, deposited } = depositInto(s0, id, notes[0]!);
  const tx = signed([withdraw({ channel_id: id, inputs: [deposited] })], [], (hash) =>
    multiSig(hash, [[0, edKey(42)]]),
  );
  rejects(() => applyTx(state, tx), 'InvalidEd25519Signature');
  assert.equal(state.notes.get(deposited)?.channel, bytesToHex(id));
});

test(`test_invalid_parent_error (${LIB})`, () => {
  const { state: s0 } = freshState();
  const key = edKey(0);
  const id = bytes32(5);
  const state = createChannel(s0, id, key);
  rejects(
    () =>
      applyTx(
        state,
        inscriptionTx({
          channel_id: id,
          inscription: Uint8Array.of(4, 5, 6),
          parent: bytes32(99),
          signer: key.publicKey,
        }),
      ),
    'InvalidParent',
  );
  // A first inscription into a channel that does not exist must have the zero parent.
  rejects(
    () =>
      applyTx(
        state,
        inscriptionTx({
          channel_id: bytes32(8),
          inscription: Uint8Array.of(7, 8, 9),
          parent: bytes32(1),
          signer: key.publicKey,
        }),
      ),
    'InvalidParent',
  );
});

test(`test_unauthorized_signer_error (${LIB})`, () => {
  const { state: s0 } = freshState();
  const id = bytes32(6);
  const first: ChannelInscribeOp = {
    channel_id: id,
    inscription: Uint8Array.of(1, 2, 3),
    parent: ZERO32,
    signer: edKey(0).publicKey,
  };
  const state = applyTx(s0, inscriptionTx(first)).state;
  const intruder = edKey(3);
  const second: ChannelInscribeOp = {
    channel_id: id,
    inscription: Uint8Array.of(4, 5, 6),
    parent: inscriptionMessageId(first),
    signer: intruder.publicKey,
  };
  rejects(() => applyTx(state, inscriptionTx(second, intruder)), 'InvalidSigner');
});

test(`test_multiple_operations_in_transaction (${LIB})`, () => {
  const { state } = freshState();
  const [k1, k2, k3, k4] = [1, 2, 3, 4].map(edKey) as [
    ReturnType<typeof edKey>,
    ReturnType<typeof edKey>,
    ReturnType<typeof edKey>,
    ReturnType<typeof edKey>,
  ];
  const ch1 = bytes32(10);
  const ch2 = bytes32(20);
  const cfg: ChannelConfigOp = {
    channel: ch1,
    parent: ZERO32,
    keys: [k3.publicKey, k4.publicKey],
    posting_timeframe: 0,
    posting_timeout: 0,
    configuration_threshold: 1,
    transfer_threshold: 1,
  };
  const third: ChannelInscribeOp = {
    channel_id: ch1,
    inscription: Uint8Array.of(7, 8, 9),
    parent: configMessageId(cfg),
    signer: k3.publicKey,
  };
  const ops = [
    inscribe({ channel_id: ch1, inscription: Uint8Array.of(1, 2, 3), parent: ZERO32, signer: k1.publicKey }),
    inscribe({ channel_id: ch2, inscription: Uint8Array.of(4, 5, 6), parent: ZERO32, signer: k2.publicKey }),
    configure(cfg),
    inscribe(third),
  ];
  const signers = [k1, k2, undefined, k3];
  const tx = signed(ops, [], (hash, i) =>
    i === 2 ? multiSig(hash, [[0, k1]]) : { type: 'Ed25519Sig', signature: signers[i]!.sign(hash) },
  );
  const r = applyTx(state, tx);
  assert.ok(channelOf(r.state, ch1));
  assert.ok(channelOf(r.state, ch2));
  assert.equal(bytesToHex(channelOf(r.state, ch1)!.tip_message), bytesToHex(inscriptionMessageId(third)));
});

// ---------- core/src/mantle/channel.rs (execution of deposits and withdrawals) ----------

test(`deposit_registers_channel_note (${CH})`, () => {
  // Channel 0 exists from the genesis inscription.
  const { state, notes } = freshState();
  const utxo = notes[0]!;
  const channel = new Uint8Array(32);
  const dep: ChannelDepositOp = { channel_id: channel, inputs: [utxo.id], metadata: new Uint8Array() };
  const r = applyTx(state, signed([deposit(dep)], [[utxo.sk]]));
  const deposited = noteId(opId(deposit(dep)), 0, utxo.note);
  assert.equal(r.state.notes.has(utxo.id), false);
  assert.equal(r.state.notes.get(deposited)?.channel, bytesToHex(channel));
  assert.equal(r.events.length, 1);
  const ev = r.events[0]!;
  if (ev.kind !== 'Tx' || ev.event.payload.type !== 'Deposit') throw new Error('expected a deposit event');
  assert.equal(ev.event.payload.amount, utxo.note.value);
  assert.deepEqual(ev.event.payload.metadata, dep.metadata);
  assert.deepEqual(ev.event.payload.notes, [
    { note_id: deposited, value: utxo.note.value, pk: utxo.note.pk },
  ]);
});

test(`deposit_derives_one_channel_note_per_input (${CH})`, () => {
  const { state, notes } = freshState();
  const [first, second] = [notes[0]!, notes[1]!];
  const channel = new Uint8Array(32);
  const dep: ChannelDepositOp = {
    channel_id: channel,
    inputs: [first.id, second.id],
    metadata: new Uint8Array(),
  };
  const r = applyTx(state, signed([deposit(dep)], [[first.sk, second.sk]]));
  const id = opId(deposit(dep));
  const a = noteId(id, 0, first.note);
  const b = noteId(id, 1, second.note);
  assert.notEqual(a, b);
  assert.equal(r.state.notes.has(first.id), false);
  assert.equal(r.state.notes.has(second.id), false);
  assert.equal(r.state.notes.get(a)?.channel, bytesToHex(channel));
  assert.equal(r.state.notes.get(b)?.channel, bytesToHex(channel));
});

test(`withdraw_releases_channel_note (${CH})`, () => {
  const channel = new Uint8Array(32);
  const key = edKey(0);
  const { state: s0 } = freshState();
  const { state, id } = withChannelNote(
    withChannel(s0, channel, makeChannelState(1, [key.publicKey])),
    channel,
    bytes32(7),
    6n,
    0n,
  );
  const r = applyTx(
    state,
    signed([withdraw({ channel_id: channel, inputs: [id] })], [], (h) => multiSig(h, [[0, key]])),
  );
  assert.equal(r.state.notes.get(id)?.channel, null);
  assert.equal(r.events.length, 0);
});

test(`withdraw_fails_when_note_not_in_channel (${CH})`, () => {
  const { state: s0, notes } = freshState();
  const channel = new Uint8Array(32);
  const key = edKey(0);
  const state = withChannel(s0, channel, makeChannelState(1, [key.publicKey]));
  rejects(
    () =>
      applyTx(
        state,
        signed([withdraw({ channel_id: channel, inputs: [notes[0]!.id] })], [], (h) =>
          multiSig(h, [[0, key]]),
        ),
      ),
    'InputNotInChannel',
  );
});

// ---------- core/src/mantle/ops/channel/verification.rs (threshold multi-signatures) ----------

const VER = 'core/src/mantle/ops/channel/verification.rs';
/** `create_withdraw_tx`: a withdraw of note 0 signed by `keys` at indices 0, 1, … */
function withdrawTx(
  channel: Uint8Array,
  keys: ReturnType<typeof edKey>[],
  inputs: bigint[] = [0n],
  indexOffset = 0,
) {
  return signed([withdraw({ channel_id: channel, inputs })], [], (h) =>
    multiSig(
      h,
      keys.map((k, i) => [i + indexOffset, k] as [number, typeof k]),
    ),
  );
}

test(`rejects_missing_channel (${VER})`, () => {
  const { state } = freshState();
  rejects(() => applyTx(state, withdrawTx(bytes32(1), [edKey(0)])), 'ChannelNotFound');
});

test(`rejects_not_enough_signatures (${VER})`, () => {
  const { state } = freshState();
  const ch = bytes32(2);
  rejects(
    () => applyTx(withChannel(state, ch, makeChannelState(2)), withdrawTx(ch, [edKey(0)])),
    'ThresholdNotMet',
  );
});

test(`rejects_missing_key (${VER})`, () => {
  // The reference's test helper knows no key for the channel; here the signature names index 1 of a
  // channel with one key.
  const { state } = freshState();
  const ch = bytes32(3);
  rejects(
    () => applyTx(withChannel(state, ch, makeChannelState(1)), withdrawTx(ch, [edKey(0)], [0n], 1)),
    'InvalidKeyIndex',
  );
});

test(`rejects_invalid_signature (${VER})`, () => {
  const { state } = freshState();
  const ch = bytes32(4);
  rejects(
    () => applyTx(withChannel(state, ch, makeChannelState(1)), withdrawTx(ch, [edKey(9)])),
    'InvalidEd25519Signature',
  );
});

// ---------- core/src/mantle/transactions/verified_ops.rs ----------

const VOPS = 'core/src/mantle/transactions/verified_ops.rs';

test(`helper_backed_verification_accepts_valid_channel_withdraw (${VOPS})`, () => {
  const ch = bytes32(8);
  const [k0, k1] = [edKey(8), edKey(9)];
  const { state: s0 } = freshState();
  const { state, id } = withChannelNote(
    withChannel(s0, ch, makeChannelState(2, [k0.publicKey, k1.publicKey])),
    ch,
    bytes32(1),
    10n,
    zkPublicKey(1n),
  );
  const r = applyTx(state, withdrawTx(ch, [k0, k1], [id]));
  assert.equal(r.state.notes.get(id)?.channel, null);
});

test(`helper_backed_verification_surfaces_op_validation_error (${VOPS})`, () => {
  const { state } = freshState();
  rejects(() => applyTx(state, withdrawTx(bytes32(10), [edKey(0)])), 'ChannelNotFound');
});

// ---------- preverification: empty inputs (core/src/mantle/ops/**) ----------

test('test_preverify_rejects_empty_inputs (core/src/mantle/ops/channel/deposit.rs)', () => {
  const tx = signed([deposit({ channel_id: ZERO32, inputs: [], metadata: new Uint8Array() })], [[]]);
  rejects(() => preverifyTx(tx, CTX.proofs), 'EmptyInputs');
});

test('test_preverify_rejects_empty_inputs (core/src/mantle/ops/channel/withdraw.rs)', () => {
  const tx = signed([withdraw({ channel_id: ZERO32, inputs: [] })], []);
  rejects(() => preverifyTx(tx, CTX.proofs), 'EmptyInputs');
});

test('test_preverify_rejects_empty_inputs (core/src/mantle/ops/channel/channel_transfer.rs)', () => {
  const op: Op = {
    opcode: Opcode.ChannelTransfer,
    payload: { channel_id: ZERO32, inputs: [], outputs: [{ value: 100n, pk: 0n }] },
  };
  rejects(() => preverifyTx(signed([op], []), CTX.proofs), 'EmptyInputs');
});

test('test_preverify_rejects_empty_inputs_and_outputs (core/src/mantle/ops/channel/channel_transfer.rs)', () => {
  const op: Op = { opcode: Opcode.ChannelTransfer, payload: { channel_id: ZERO32, inputs: [], outputs: [] } };
  rejects(() => preverifyTx(signed([op], []), CTX.proofs), 'EmptyInputs');
});

test('a channel transfer with a zero-value output fails preverification (core/src/mantle/ops/channel/channel_transfer.rs)', () => {
  const op: Op = {
    opcode: Opcode.ChannelTransfer,
    payload: { channel_id: ZERO32, inputs: [1n], outputs: [{ value: 0n, pk: 0n }] },
  };
  rejects(() => preverifyTx(signed([op], []), CTX.proofs), 'ZeroValueOutput');
});

test('an empty channel transfer is refused even with the threshold signatures (core/src/mantle/ops/channel/channel_transfer.rs)', () => {
  // Balanced (0 = 0) and signed by the one key: only the non-empty-inputs rule refuses it.
  const { state } = freshState();
  const ch = bytes32(11);
  const key = edKey(0);
  const op: Op = { opcode: Opcode.ChannelTransfer, payload: { channel_id: ch, inputs: [], outputs: [] } };
  const tx = signed([op], [], (h) => multiSig(h, [[0, key]]));
  rejects(() => applyTx(withChannel(state, ch, makeChannelState(1, [key.publicKey])), tx), 'EmptyInputs');
});

// ---------- core/src/mantle/ops/channel/config.rs (rules) ----------

const CFG = 'core/src/mantle/ops/channel/config.rs';

test(`a config creating a channel is not verified: any signatures pass (${CFG})`, () => {
  const { state } = freshState();
  const id = bytes32(12);
  const op: ChannelConfigOp = {
    channel: id,
    parent: ZERO32,
    keys: [edKey(1).publicKey],
    posting_timeframe: 0,
    posting_timeout: 0,
    configuration_threshold: 1,
    transfer_threshold: 1,
  };
  // Signatures by keys foreign to the channel, one of them not even over this transaction.
  const tx = signed([configure(op)], [], (h) => ({
    type: 'ChannelMultiSigProof',
    signatures: [
      { channel_key_index: 0, signature: edKey(5).sign(h) },
      { channel_key_index: 7, signature: edKey(6).sign(new Uint8Array(32)) },
    ],
  }));
  const r = applyTx(state, tx);
  assert.ok(channelOf(r.state, id));
  assert.equal(r.outcome.executionGas, 2n * 56n);
});

test(`thresholds above the number of keys are accepted (${CFG})`, () => {
  // The reference checks only that both thresholds are positive and that there is a key.
  const { state } = freshState();
  const id = bytes32(13);
  const op: ChannelConfigOp = {
    channel: id,
    parent: ZERO32,
    keys: [edKey(1).publicKey],
    posting_timeframe: 0,
    posting_timeout: 0,
    configuration_threshold: 3,
    transfer_threshold: 2,
  };
  const r = applyTx(
    state,
    signed([configure(op)], [], () => ({ type: 'ChannelMultiSigProof', signatures: [] })),
  );
  assert.equal(channelOf(r.state, id)?.configuration_threshold, 3);
  assert.equal(channelOf(r.state, id)?.transfer_threshold, 2);
});

test(`a config with a zero threshold fails preverification (${CFG})`, () => {
  const op: ChannelConfigOp = {
    channel: bytes32(14),
    parent: ZERO32,
    keys: [edKey(1).publicKey],
    posting_timeframe: 0,
    posting_timeout: 0,
    configuration_threshold: 0,
    transfer_threshold: 1,
  };
  rejects(() => preverifyTx(signed([configure(op)], []), CTX.proofs), 'InvalidThreshold');
  rejects(
    () =>
      preverifyTx(
        signed([configure({ ...op, configuration_threshold: 1, transfer_threshold: 0 })], []),
        CTX.proofs,
      ),
    'InvalidThreshold',
  );
});

test('a deposit whose input values overflow u64 is refused (core/src/mantle/ops/channel/deposit.rs, Inputs::amount)', () => {
  const { state: s0, notes } = freshState();
  const owner = notes[0]!;
  const d = new Draft(s0);
  const big = 2n ** 63n;
  const a = d.addNote(bytes32(0xa1), 0, { value: big, pk: owner.note.pk });
  const b = d.addNote(bytes32(0xa2), 0, { value: big, pk: owner.note.pk });
  const dep: ChannelDepositOp = {
    channel_id: new Uint8Array(32),
    inputs: [a, b],
    metadata: new Uint8Array(),
  };
  rejects(() => applyTx(d.state(), signed([deposit(dep)], [[owner.sk, owner.sk]])), 'Overflow');
});

// ---------- core/src/mantle/ops/channel/inscribe.rs ----------

const INS = 'core/src/mantle/ops/channel/inscribe.rs';
const sampleInscription = (): ChannelInscribeOp => ({
  channel_id: new Uint8Array(32),
  inscription: new TextEncoder().encode('genesis'),
  parent: new Uint8Array(32),
  signer: new Uint8Array(32),
});

test(`oversized_inscription_rejected_at_construction (${INS})`, () => {
  assert.equal(MAX_INSCRIPTION_BYTES, (2 * 1024 * 1024 * 7) / 8);
  const op = { ...sampleInscription(), inscription: new Uint8Array(MAX_INSCRIPTION_BYTES + 1) };
  assert.throws(() => encode(channelInscribeOp, op), {
    code: 'ENCODE_ERROR',
    message: /inscription .*length 1835009 is outside 0\.\.1835008/,
  });
});

test(`oversized_inscription_rejected_on_deserialize (${INS})`, () => {
  // Encode a maximal inscription, then patch its length prefix one above the bound.
  const bytes = encode(channelInscribeOp, {
    ...sampleInscription(),
    inscription: new Uint8Array(MAX_INSCRIPTION_BYTES),
  });
  const lenAt = 32;
  const view = new DataView(bytes.buffer, bytes.byteOffset);
  const len = view.getUint32(lenAt, true);
  assert.equal(len, MAX_INSCRIPTION_BYTES);
  view.setUint32(lenAt, MAX_INSCRIPTION_BYTES + 1, true);
  const longer = new Uint8Array(bytes.length + 1);
  longer.set(bytes.subarray(0, lenAt + 4 + MAX_INSCRIPTION_BYTES));
  longer.set(bytes.subarray(lenAt + 4 + MAX_INSCRIPTION_BYTES), lenAt + 4 + MAX_INSCRIPTION_BYTES + 1);
  assert.throws(() => decode(channelInscribeOp, longer), DecodeError);
});

test(`json_round_trip (${INS})`, () => {
  const op = sampleInscription();
  const json = JSON.stringify(channelInscribeOp.toJson(op));
  assert.ok(json.includes('"67656e65736973"'), json);
  assert.deepEqual(channelInscribeOp.fromJson(JSON.parse(json)), op);
});

test(`bincode_round_trip (${INS})`, () => {
  const op = sampleInscription();
  assert.deepEqual(decode(channelInscribeOp, encode(channelInscribeOp, op)), op);
});
