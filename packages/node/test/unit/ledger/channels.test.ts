import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { bytesToHex } from '../../../src/codec/hex.ts';
import { Ed25519Signer } from '../../../src/crypto/ed25519.ts';
import { checkTx } from '../../../src/ledger/apply.ts';
import { roundRobin } from '../../../src/ledger/channels.ts';
import { LedgerError } from '../../../src/ledger/errors.ts';
import { configMessageId, inscriptionMessageId } from '../../../src/mantle/channel.ts';
import { noteId } from '../../../src/mantle/note.ts';
import {
  type ChannelConfigOp,
  type ChannelInscribeOp,
  type Op,
  Opcode,
  opId,
} from '../../../src/mantle/ops.ts';
import type { OpProof } from '../../../src/mantle/proofs.ts';
import { feeOp, genesisNotes, type Owned, signTx, TestChain, transfer } from '../../mocks/ledger.ts';

const ZERO = new Uint8Array(32);
const signers = [1, 2, 3].map((i) => new Ed25519Signer(new Uint8Array(32).fill(100 + i)));
const CH = new Uint8Array(32).fill(0xc1);

function rejects(fn: () => unknown, code: string) {
  assert.throws(fn, (e: unknown) => e instanceof LedgerError && e.ledgerCode === code, `expected ${code}`);
}

/** A tx of channel ops funded by a transfer op first (fees), signed by the given channel signers. */
function channelTx(
  _c: TestChain,
  fund: Owned,
  ops: Op[],
  sign: (hash: Uint8Array, op: Op) => OpProof,
): { tx: ReturnType<typeof signTx>; change: Owned } {
  const { op, change } = feeOp(fund, 100_000n);
  const tx = signTx([op, ...ops], [[fund.sk]], (hash, _msg, o) =>
    o.opcode === Opcode.Transfer || o.opcode === Opcode.ChannelDeposit ? undefined : sign(hash, o),
  );
  return { tx, change };
}

function multiSig(hash: Uint8Array, idx: number[]): OpProof {
  return {
    type: 'ChannelMultiSigProof',
    signatures: idx.map((i) => ({ signature: signers[i]!.sign(hash), channel_key_index: i })),
  };
}

describe('channels', () => {
  test('inscriptions create a channel, chain by parent, and follow the round robin with timeframe and timeout', () => {
    const c = new TestChain();
    let fund = genesisNotes(c.genesis)[0]!;
    const inscribe = (
      signer: Ed25519Signer,
      parent: Uint8Array,
      text: string,
    ): { op: ChannelInscribeOp; tx: ReturnType<typeof signTx> } => {
      const op: ChannelInscribeOp = {
        channel_id: CH,
        inscription: new TextEncoder().encode(text),
        parent,
        signer: signer.publicKey,
      };
      const r = channelTx(c, fund, [{ opcode: Opcode.ChannelInscribe, payload: op }], (hash) => ({
        type: 'Ed25519Sig',
        signature: signer.sign(hash),
      }));
      fund = r.change;
      return { op, tx: r.tx };
    };
    // First inscription: parent zero, the signer becomes the only key.
    const first = inscribe(signers[0]!, ZERO, 'hello');
    c.apply([first.tx]);
    let ch = c.state.channels.get(bytesToHex(CH))!;
    assert.equal(ch.accredited_keys.length, 1);
    assert.equal(bytesToHex(ch.tip_message), bytesToHex(inscriptionMessageId(first.op)));

    // Stale parent is refused.
    rejects(
      () => checkTx(c.state, c.ctx, inscribe(signers[0]!, ZERO, 'again').tx, c.state.slot + 1n),
      'InvalidParent',
    );
    fund = genesisNotes(c.genesis)[1]!;

    // Reconfigure: three keys, timeframe 10 slots, timeout 25 slots.
    const cfg: ChannelConfigOp = {
      channel: CH,
      parent: ZERO,
      keys: signers.map((s) => s.publicKey),
      posting_timeframe: 10,
      posting_timeout: 25,
      configuration_threshold: 2,
      transfer_threshold: 2,
    };
    // The channel was created by an inscription: its config tip is zero and its threshold 1.
    const cfgTx = channelTx(c, fund, [{ opcode: Opcode.ChannelConfig, payload: cfg }], (hash) =>
      multiSig(hash, [0]),
    );
    fund = cfgTx.change;
    const cfgSlot = c.state.slot + 1n;
    c.apply([cfgTx.tx], cfgSlot);
    ch = c.state.channels.get(bytesToHex(CH))!;
    assert.equal(ch.accredited_keys.length, 3);
    assert.equal(bytesToHex(ch.config_tip_hash), bytesToHex(configMessageId(cfg)));
    assert.equal(ch.tip_slot, cfgSlot);

    // Round robin: sequencer 0 until cfgSlot+10, then 1, then 2.
    assert.equal(roundRobin(ch, cfgSlot + 5n).index, 0);
    assert.equal(roundRobin(ch, cfgSlot + 10n).index, 1);
    assert.equal(roundRobin(ch, cfgSlot + 21n).index, 2);
    // Timeout: 25 slots after the tip without inscription, the turn moves by elapsed/timeout.
    assert.equal(roundRobin(ch, cfgSlot + 26n).index, 1);
    assert.equal(roundRobin(ch, cfgSlot + 26n).start, cfgSlot + 25n);

    // The wrong sequencer is refused; the right one is accepted.
    const tip = ch.tip_message;
    const wrong = inscribe(signers[1]!, tip, 'early');
    rejects(() => checkTx(c.state, c.ctx, wrong.tx, cfgSlot + 2n), 'InvalidSigner');
    fund = genesisNotes(c.genesis)[2]!;
    const right = inscribe(signers[1]!, tip, 'on time');
    c.apply([right.tx], cfgSlot + 12n);
    ch = c.state.channels.get(bytesToHex(CH))!;
    assert.equal(ch.tip_sequencer, 1);
    assert.equal(ch.tip_sequencer_starting_slot, cfgSlot + 10n);
  });

  test('config: threshold signatures, config parent, no bound of thresholds by the key count', () => {
    const c = new TestChain();
    const notes = genesisNotes(c.genesis);
    const cfg: ChannelConfigOp = {
      channel: CH,
      parent: ZERO,
      keys: signers.map((s) => s.publicKey),
      posting_timeframe: 0,
      posting_timeout: 0,
      configuration_threshold: 2,
      transfer_threshold: 2,
    };
    // A new channel is not verified (it is created here without signatures).
    const create = channelTx(c, notes[0]!, [{ opcode: Opcode.ChannelConfig, payload: cfg }], (hash) =>
      multiSig(hash, []),
    );
    c.apply([create.tx]);
    const next = { ...cfg, parent: configMessageId(cfg), configuration_threshold: 3 };
    rejects(
      () =>
        checkTx(
          c.state,
          c.ctx,
          channelTx(c, notes[1]!, [{ opcode: Opcode.ChannelConfig, payload: next }], (h) => multiSig(h, [0]))
            .tx,
          2n,
        ),
      'ThresholdNotMet',
    );
    rejects(
      () =>
        checkTx(
          c.state,
          c.ctx,
          channelTx(
            c,
            notes[1]!,
            [{ opcode: Opcode.ChannelConfig, payload: { ...next, parent: ZERO } }],
            (h) => multiSig(h, [0, 1]),
          ).tx,
          2n,
        ),
      'InvalidParent',
    );
    // Thresholds above the number of keys are not refused (F: core/src/mantle/ops/channel/config.rs).
    checkTx(
      c.state,
      c.ctx,
      channelTx(
        c,
        notes[1]!,
        [{ opcode: Opcode.ChannelConfig, payload: { ...next, configuration_threshold: 4 } }],
        (h) => multiSig(h, [0, 1]),
      ).tx,
      2n,
    );
    // A forged signature.
    const forged = channelTx(c, notes[1]!, [{ opcode: Opcode.ChannelConfig, payload: next }], (h) => {
      const p = multiSig(h, [0, 1]);
      if (p.type === 'ChannelMultiSigProof') p.signatures[1]!.signature = signers[2]!.sign(h);
      return p;
    });
    rejects(() => checkTx(c.state, c.ctx, forged.tx, 2n), 'InvalidEd25519Signature');
    const ok = channelTx(c, notes[1]!, [{ opcode: Opcode.ChannelConfig, payload: next }], (h) =>
      multiSig(h, [0, 2]),
    );
    const out = checkTx(c.state, c.ctx, ok.tx, 2n);
    assert.equal(out.executionGas, 590n + 2n * 56n);
  });

  test('deposit, withdraw and channel transfer move notes in and out of a channel', () => {
    const c = new TestChain();
    const notes = genesisNotes(c.genesis);
    const cfg: ChannelConfigOp = {
      channel: CH,
      parent: ZERO,
      keys: signers.map((s) => s.publicKey),
      posting_timeframe: 0,
      posting_timeout: 0,
      configuration_threshold: 1,
      transfer_threshold: 2,
    };
    c.apply([
      channelTx(c, notes[0]!, [{ opcode: Opcode.ChannelConfig, payload: cfg }], (h) => multiSig(h, [])).tx,
    ]);

    // Deposit two notes; the transfer op pays the fee.
    const payer = notes[1]!;
    const depositOp: Op = {
      opcode: Opcode.ChannelDeposit,
      payload: { channel_id: CH, inputs: [notes[2]!.id, notes[3]!.id], metadata: Uint8Array.of(9, 9) },
    };
    const transferOp: Op = {
      opcode: Opcode.Transfer,
      payload: { inputs: [payer.id], outputs: [{ value: payer.note.value - 100_000n, pk: payer.note.pk }] },
    };
    const dep = signTx([transferOp, depositOp], [[payer.sk], [notes[2]!.sk, notes[3]!.sk]]);
    const r = c.apply([dep]);
    assert.equal(r.events.length, 1);
    const ev = r.events[0]!;
    assert.equal(ev.kind, 'Tx');
    if (ev.kind !== 'Tx' || ev.event.payload.type !== 'Deposit') throw new Error('expected a deposit event');
    assert.equal(ev.event.payload.amount, notes[2]!.note.value + notes[3]!.note.value);
    const channelNotes = ev.event.payload.notes.map((n) => n.note_id);
    for (const id of channelNotes) assert.equal(c.state.notes.get(id)?.channel, bytesToHex(CH));
    // Channel notes cannot be spent by a plain transfer.
    const owned = { id: channelNotes[0]!, note: c.state.notes.get(channelNotes[0]!)!.note, sk: notes[2]!.sk };
    rejects(
      () => checkTx(c.state, c.ctx, transfer(c.state, [owned], []).tx, c.state.slot + 1n),
      'InputInChannel',
    );

    // Channel transfer must balance and needs the transfer threshold.
    const ctOp = (outs: bigint[]): Op => ({
      opcode: Opcode.ChannelTransfer,
      payload: {
        channel_id: CH,
        inputs: [channelNotes[0]!],
        outputs: outs.map((value) => ({ value, pk: notes[4]!.note.pk })),
      },
    });
    const v = owned.note.value;
    rejects(
      () =>
        checkTx(
          c.state,
          c.ctx,
          channelTx(c, notes[4]!, [ctOp([v - 1n])], (h) => multiSig(h, [0, 1])).tx,
          c.state.slot + 1n,
        ),
      'UnbalancedTransfer',
    );
    rejects(
      () =>
        checkTx(
          c.state,
          c.ctx,
          channelTx(c, notes[4]!, [ctOp([v])], (h) => multiSig(h, [0])).tx,
          c.state.slot + 1n,
        ),
      'ThresholdNotMet',
    );
    const ct = channelTx(c, notes[4]!, [ctOp([v - 5n, 5n])], (h) => multiSig(h, [1, 2]));
    c.apply([ct.tx]);
    const ctId = opId(ctOp([v - 5n, 5n]));
    const split = [
      noteId(ctId, 0, { value: v - 5n, pk: notes[4]!.note.pk }),
      noteId(ctId, 1, { value: 5n, pk: notes[4]!.note.pk }),
    ];
    for (const id of split) assert.equal(c.state.notes.get(id)?.channel, bytesToHex(CH));

    // Withdraw: the notes keep their ids and become regular notes.
    const wd: Op = {
      opcode: Opcode.ChannelWithdraw,
      payload: { channel_id: CH, inputs: [channelNotes[1]!, split[1]!] },
    };
    rejects(
      () =>
        checkTx(c.state, c.ctx, channelTx(c, notes[5]!, [wd], (h) => multiSig(h, [2])).tx, c.state.slot + 1n),
      'ThresholdNotMet',
    );
    c.apply([channelTx(c, notes[5]!, [wd], (h) => multiSig(h, [0, 2])).tx]);
    assert.equal(c.state.notes.get(channelNotes[1]!)?.channel, null);
    assert.equal(c.state.notes.get(split[1]!)?.channel, null);
    // Withdrawing a note that is no longer in the channel fails.
    rejects(
      () =>
        checkTx(
          c.state,
          c.ctx,
          channelTx(c, notes[6]!, [wd], (h) => multiSig(h, [0, 2])).tx,
          c.state.slot + 1n,
        ),
      'InputNotInChannel',
    );
  });

  test('deposit into an unknown channel is refused', () => {
    const c = new TestChain();
    const notes = genesisNotes(c.genesis);
    const op: Op = {
      opcode: Opcode.ChannelDeposit,
      payload: { channel_id: new Uint8Array(32).fill(7), inputs: [notes[0]!.id], metadata: new Uint8Array() },
    };
    rejects(() => checkTx(c.state, c.ctx, signTx([op], [[notes[0]!.sk]]), 1n), 'ChannelNotFound');
  });
});
