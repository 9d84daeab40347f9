/**
 * Service Declaration Protocol (opcodes 32–34): Blend providers declare themselves with a locked
 * service note, report activity, and withdraw; at epoch changes withdrawn notes are unlocked and the
 * epoch's Blend income is paid out to the active providers.
 */

import { Writer } from '../codec/binary.ts';
import { bytesToHex, hexToBytes } from '../codec/hex.ts';
import { blake2b256, tag } from '../crypto/blake2b.ts';
import type { SDPActiveOp, SDPDeclareOp, SDPWithdrawOp } from '../mantle/ops.ts';
import type { OpProof } from '../mantle/proofs.ts';
import { declarationId } from '../mantle/sdp.ts';
import { SDP_WITHDRAW_DELAY, type SdpParams, SNAPSHOT_FINALIZATION_DELAY } from './config.ts';
import type { Draft } from './draft.ts';
import { fail } from './errors.ts';
import type { HeaderEvent } from './events.ts';
import { type OpEnv, requireZkSignature } from './op-env.ts';
import type { Declaration } from './state.ts';

export function applySdpDeclare(env: OpEnv, op: SDPDeclareOp, proof: OpProof): void {
  const { draft, opIndex } = env;
  const rec = draft.notes.get(op.service_note_id);
  if (!rec) fail('InputNotFound', `service note ${op.service_note_id} does not exist`, opIndex);
  if (rec.channel !== null) fail('InputInChannel', 'a channel note cannot be a service note', opIndex);
  if (rec.locked_by !== null) fail('InputLocked', `note is already locked by ${rec.locked_by}`, opIndex);
  if (rec.note.value < env.ctx.config.sdp.min_stake) {
    fail(
      'NoteValueBelowMinStake',
      `note value ${rec.note.value} is below ${env.ctx.config.sdp.min_stake}`,
      opIndex,
    );
  }
  const id = bytesToHex(declarationId(op));
  if (draft.sdp.declarations.has(id)) fail('DuplicateDeclaration', `declaration ${id} exists`, opIndex);
  for (const d of draft.sdp.declarations.values()) {
    if (d.service_type === op.service_type && bytesToHex(d.provider_id) === bytesToHex(op.provider_id)) {
      fail('DuplicateProviderId', 'this provider already declared the service', opIndex);
    }
    if (d.zk_id === op.zk_id) fail('DuplicateZkId', 'this zk id is already declared', opIndex);
  }
  requireZkSignature(env, proof, [rec.note.pk, op.zk_id]);
  const epoch = draft.epoch;
  const decl: Declaration = {
    service_type: op.service_type,
    provider_id: op.provider_id,
    service_note_id: op.service_note_id,
    locators: op.locators,
    zk_id: op.zk_id,
    created: epoch,
    active: epoch + SNAPSHOT_FINALIZATION_DELAY,
    withdraw_at: null,
    nonce: 0n,
  };
  draft.sdp = { ...draft.sdp, declarations: draft.sdp.declarations.set(id, decl) };
  draft.updateNote(op.service_note_id, { ...rec, locked_by: id });
}

function declarationOf(env: OpEnv, id: Uint8Array): Declaration {
  const d = env.draft.sdp.declarations.get(bytesToHex(id));
  if (!d) fail('DeclarationNotFound', `declaration ${bytesToHex(id)} does not exist`, env.opIndex);
  return d;
}

export function applySdpActive(env: OpEnv, op: SDPActiveOp, proof: OpProof): void {
  const d = declarationOf(env, op.declaration_id);
  const epoch = env.draft.epoch;
  if (d.withdraw_at !== null && d.withdraw_at <= epoch)
    fail('DeclarationWithdrawn', 'the declaration is withdrawn', env.opIndex);
  if (op.nonce <= d.nonce) fail('InvalidNonce', `nonce ${op.nonce} must exceed ${d.nonce}`, env.opIndex);
  requireZkSignature(env, proof, [d.zk_id]);
  const key = bytesToHex(op.declaration_id);
  env.draft.sdp = {
    ...env.draft.sdp,
    declarations: env.draft.sdp.declarations.set(key, { ...d, active: epoch, nonce: op.nonce }),
  };
}

export function applySdpWithdraw(env: OpEnv, op: SDPWithdrawOp, proof: OpProof): void {
  const d = declarationOf(env, op.declaration_id);
  if (d.withdraw_at !== null)
    fail('DeclarationWithdrawn', 'the declaration is already withdrawn', env.opIndex);
  if (op.service_note_id !== d.service_note_id)
    fail('WrongServiceNote', "not the declaration's service note", env.opIndex);
  if (op.nonce <= d.nonce) fail('InvalidNonce', `nonce ${op.nonce} must exceed ${d.nonce}`, env.opIndex);
  const note = env.draft.notes.get(d.service_note_id);
  if (!note) fail('InputNotFound', 'the service note does not exist', env.opIndex);
  requireZkSignature(env, proof, [note.note.pk, d.zk_id]);
  const key = bytesToHex(op.declaration_id);
  env.draft.sdp = {
    ...env.draft.sdp,
    declarations: env.draft.sdp.declarations.set(key, {
      ...d,
      withdraw_at: env.draft.epoch + SDP_WITHDRAW_DELAY,
      nonce: op.nonce,
    }),
  };
}

/** Declarations in the active set of `epoch`: recently active and not withdrawn. */
export function isActive(d: Declaration, epoch: number, p: SdpParams): boolean {
  return (
    d.active <= epoch &&
    d.active + p.inactivity_period >= epoch &&
    (d.withdraw_at === null || d.withdraw_at > epoch)
  );
}

const SDP_REWARD_V1 = tag('SDP_REWARD_V1');

/**
 * Epoch change (`epoch` is the new epoch): pay the closed epoch's Blend income evenly to the
 * providers active in it (remainder carried over), then unlock the notes of declarations whose
 * withdrawal took effect (removed at `withdraw_at + 1`). Returns the header events.
 */
export function sdpEpochChange(
  draft: Draft,
  closedEpoch: number,
  epoch: number,
  p: SdpParams,
): HeaderEvent[] {
  const events: HeaderEvent[] = [];
  const sorted = draft.sdp.declarations.sortedEntries((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const active = sorted.filter(([, d]) => isActive(d, closedEpoch, p));
  let income = draft.sdp.blend_income;
  if (active.length > 0 && income > 0n) {
    const share = income / BigInt(active.length);
    if (share > 0n) {
      for (const [id, d] of active) {
        const w = new Writer(40);
        w.u32(closedEpoch);
        w.bytes(hexToBytes(id));
        const opId = blake2b256(SDP_REWARD_V1, w.finish());
        const note = { value: share, pk: d.zk_id };
        draft.addNote(opId, 0, note);
        events.push({ type: 'SdpRewardDistributed', utxo: { op_id: opId, output_index: 0, note } });
      }
      income -= share * BigInt(active.length);
    }
  }
  let declarations = draft.sdp.declarations;
  for (const [id, d] of sorted) {
    if (d.withdraw_at !== null && epoch >= d.withdraw_at + 1) {
      declarations = declarations.delete(id);
      const rec = draft.notes.get(d.service_note_id);
      if (rec && rec.locked_by === id) draft.updateNote(d.service_note_id, { ...rec, locked_by: null });
      events.push({ type: 'SdpNoteUnlocked', note_id: d.service_note_id, declaration_id: hexToBytes(id) });
    }
  }
  draft.sdp = { declarations, snapshot: declarations, blend_income: income };
  return events;
}
