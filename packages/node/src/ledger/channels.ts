/**
 * Channels (opcodes 16–20): configuration, inscriptions in round-robin order of sequencers,
 * deposits of notes into a channel, withdrawals and transfers signed by a threshold of its keys.
 */
import { bytesEqual, bytesToHex } from '../codec/hex.ts';
import { ed25519Verify } from '../crypto/ed25519.ts';
import { configMessageId, inscriptionMessageId } from '../mantle/channel.ts';
import {
  type ChannelConfigOp,
  type ChannelDepositOp,
  type ChannelInscribeOp,
  type ChannelTransferOp,
  type ChannelWithdrawOp,
  Opcode,
  opId,
} from '../mantle/ops.ts';
import type { OpProof } from '../mantle/proofs.ts';
import { fail } from './errors.ts';
import type { DepositedNote } from './events.ts';
import { checkedAdd, type OpEnv, requireDistinct, requireZkSignature } from './op-env.ts';
import type { ChannelState } from './state.ts';

const ZERO = new Uint8Array(32);

/** The sequencer whose turn it is at `slot`, and the slot its turn started (`ChannelState::round_robin`). */
export function roundRobin(c: ChannelState, slot: bigint): { index: number; start: bigint } {
  const n = BigInt(c.accredited_keys.length);
  // F: core/src/mantle/channel.rs `round_robin` uses saturating subtraction.
  const elapsedTip = slot > c.tip_slot ? slot - c.tip_slot : 0n;
  const elapsedSeq = slot > c.tip_sequencer_starting_slot ? slot - c.tip_sequencer_starting_slot : 0n;
  const timeout = BigInt(c.posting_timeout);
  const timeframe = BigInt(c.posting_timeframe);
  const seq = BigInt(c.tip_sequencer);
  if (timeout !== 0n && elapsedTip >= timeout) {
    const turns = elapsedTip / timeout;
    return { index: Number((seq + turns) % n), start: c.tip_slot + turns * timeout };
  }
  if (timeframe !== 0n) {
    const turns = elapsedSeq / timeframe;
    return { index: Number((seq + turns) % n), start: c.tip_sequencer_starting_slot + turns * timeframe };
  }
  return { index: c.tip_sequencer, start: c.tip_sequencer_starting_slot };
}

function channelOf(env: OpEnv, id: Uint8Array): ChannelState {
  const c = env.draft.channels.get(bytesToHex(id));
  if (!c) fail('ChannelNotFound', `channel ${bytesToHex(id)} does not exist`, env.opIndex);
  return c;
}

/** Exactly `threshold` signatures by distinct accredited keys (indices strictly increase), over the tx hash. */
function requireThreshold(env: OpEnv, c: ChannelState, threshold: number, proof: OpProof): number {
  if (proof.type !== 'ChannelMultiSigProof')
    fail('IncorrectProofType', `expected a channel multi-signature`, env.opIndex);
  if (env.genesis) return proof.signatures.length;
  if (proof.signatures.length !== threshold) {
    fail(
      'ThresholdNotMet',
      `${proof.signatures.length} signatures, the channel requires exactly ${threshold}`,
      env.opIndex,
    );
  }
  for (const s of proof.signatures) {
    const key = c.accredited_keys[s.channel_key_index];
    if (!key) fail('InvalidKeyIndex', `key index ${s.channel_key_index} is out of range`, env.opIndex);
    if (!ed25519Verify(key, env.txHash, s.signature)) {
      fail(
        'InvalidEd25519Signature',
        `signature of channel key ${s.channel_key_index} is invalid`,
        env.opIndex,
      );
    }
  }
  return proof.signatures.length;
}

export function applyChannelInscribe(env: OpEnv, op: ChannelInscribeOp): void {
  const key = bytesToHex(op.channel_id);
  const existing = env.draft.channels.get(key);
  let c: ChannelState;
  if (existing) {
    if (!bytesEqual(op.parent, existing.tip_message)) {
      fail('InvalidParent', 'parent is not the channel tip message', env.opIndex);
    }
    const turn = roundRobin(existing, env.slot);
    if (!env.genesis && !bytesEqual(op.signer, existing.accredited_keys[turn.index]!)) {
      fail('InvalidSigner', `it is sequencer ${turn.index}'s turn to inscribe`, env.opIndex);
    }
    c = existing;
  } else {
    if (!bytesEqual(op.parent, ZERO))
      fail('InvalidParent', 'the first inscription of a channel has a zero parent', env.opIndex);
    c = {
      accredited_keys: [op.signer],
      configuration_threshold: 1,
      tip_message: ZERO,
      config_tip_hash: ZERO,
      tip_slot: env.slot,
      tip_sequencer: 0,
      tip_sequencer_starting_slot: env.slot,
      posting_timeframe: 0,
      posting_timeout: 0,
      transfer_threshold: 1,
    };
  }
  const turn = roundRobin(c, env.slot);
  env.draft.channels = env.draft.channels.set(key, {
    ...c,
    tip_message: inscriptionMessageId(op),
    tip_slot: env.slot,
    tip_sequencer: turn.index,
    tip_sequencer_starting_slot: turn.start,
  });
}

export function applyChannelConfig(env: OpEnv, op: ChannelConfigOp, proof: OpProof): void {
  const key = bytesToHex(op.channel);
  const existing = env.draft.channels.get(key);
  // F (core/src/mantle/ops/channel/config.rs): no check that the thresholds fit the number of keys;
  // only preverification's "thresholds > 0, keys non-empty".
  // inferred: config `parent` must be the channel's config tip (zero for a new channel); F's config op
  // has no parent, the field and `config_tip_hash` come from the 0.3.x format (docs/design/fidelity.md)
  if (existing) {
    if (!bytesEqual(op.parent, existing.config_tip_hash)) {
      fail('InvalidParent', 'parent is not the channel configuration tip', env.opIndex);
    }
    requireThreshold(env, existing, existing.configuration_threshold, proof);
  } else {
    if (!bytesEqual(op.parent, ZERO))
      fail('InvalidParent', 'a new channel is configured with a zero parent', env.opIndex);
    // F: a config op that creates a channel is not verified at all; whatever signatures its proof
    // carries are neither counted against a threshold nor checked (they still cost gas).
  }
  const msg = configMessageId(op);
  env.draft.channels = env.draft.channels.set(key, {
    accredited_keys: op.keys,
    configuration_threshold: op.configuration_threshold,
    tip_message: msg,
    config_tip_hash: msg,
    tip_slot: env.slot,
    tip_sequencer: 0,
    tip_sequencer_starting_slot: env.slot,
    posting_timeframe: op.posting_timeframe,
    posting_timeout: op.posting_timeout,
    transfer_threshold: op.transfer_threshold,
  });
}

export function applyChannelDeposit(env: OpEnv, op: ChannelDepositOp, proof: OpProof): DepositedNote[] {
  const { draft, opIndex } = env;
  const channel = bytesToHex(op.channel_id);
  channelOf(env, op.channel_id);
  requireDistinct(op.inputs, opIndex);
  const keys: bigint[] = [];
  const records = op.inputs.map((id) => {
    const rec = draft.spendable(id, opIndex);
    keys.push(rec.note.pk);
    return rec;
  });
  requireZkSignature(env, proof, keys);
  // F: the deposited amount (the event's) is a checked u64 sum (`Inputs::amount`).
  let amount = 0n;
  for (const rec of records) amount = checkedAdd(amount, rec.note.value, opIndex);
  const id = opId({ opcode: Opcode.ChannelDeposit, payload: op });
  for (const n of op.inputs) draft.removeNote(n);
  return records.map((rec, i) => ({
    note_id: draft.addNote(id, i, rec.note, channel, opIndex),
    value: rec.note.value,
    pk: rec.note.pk,
  }));
}

// F (core/src/mantle/ops/channel/{withdraw,channel_transfer}.rs): the threshold signatures are
// checked first, then the inputs; zero-value outputs and empty inputs are refused at preverification.
export function applyChannelWithdraw(env: OpEnv, op: ChannelWithdrawOp, proof: OpProof): void {
  const c = channelOf(env, op.channel_id);
  const channel = bytesToHex(op.channel_id);
  requireThreshold(env, c, c.transfer_threshold, proof);
  requireDistinct(op.inputs, env.opIndex);
  const records = op.inputs.map((id) => env.draft.channelNote(id, channel, env.opIndex));
  op.inputs.forEach((id, i) => {
    env.draft.updateNote(id, { ...records[i]!, channel: null });
  });
}

export function applyChannelTransfer(env: OpEnv, op: ChannelTransferOp, proof: OpProof): void {
  const c = channelOf(env, op.channel_id);
  const channel = bytesToHex(op.channel_id);
  requireThreshold(env, c, c.transfer_threshold, proof);
  requireDistinct(op.inputs, env.opIndex);
  let inSum = 0n;
  for (const id of op.inputs) {
    inSum = checkedAdd(inSum, env.draft.channelNote(id, channel, env.opIndex).note.value, env.opIndex);
  }
  let outSum = 0n;
  for (const o of op.outputs) outSum = checkedAdd(outSum, o.value, env.opIndex);
  if (inSum !== outSum)
    fail('UnbalancedTransfer', `inputs sum to ${inSum}, outputs to ${outSum}`, env.opIndex);
  const id = opId({ opcode: Opcode.ChannelTransfer, payload: op });
  for (const n of op.inputs) env.draft.removeNote(n);
  op.outputs.forEach((note, i) => {
    env.draft.addNote(id, i, note, channel, env.opIndex);
  });
}

export const CHANNEL_ZERO = ZERO;
