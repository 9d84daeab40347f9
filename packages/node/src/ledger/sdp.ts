/**
 * Service Declaration Protocol (opcodes 32–34): Blend providers declare themselves with a locked
 * service note, report activity, and withdraw; the active sets of the current and next epoch are
 * frozen with the stake distribution; at epoch changes withdrawn notes are unlocked and the Blend
 * income of the target epoch is paid to the providers that proved their activity.
 * F: core/src/mantle/ops/sdp/*.rs, ledger/src/mantle/sdp/mod.rs.
 */

import { bytesToHex, hexToBytes } from '../codec/hex.ts';
import type { SDPActiveOp, SDPDeclareOp, SDPWithdrawOp } from '../mantle/ops.ts';
import type { OpProof } from '../mantle/proofs.ts';
import { declarationId } from '../mantle/sdp.ts';
import { PMap, stringKeys } from '../util/pmap.ts';
import type { Draft } from './draft.ts';
import { fail, NoteNotFound } from './errors.ts';
import type { HeaderEvent } from './events.ts';
import { type OpEnv, requireZkSignature } from './op-env.ts';
import {
  type EpochSchedule,
  type LedgerConfig,
  type SdpParams,
  SNAPSHOT_FINALIZATION_DELAY,
} from './parameters.ts';
import { PROOFS_ALREADY_VERIFIED } from './proof-system.ts';
import {
  type ActivityProofChecks,
  addBlendIncome,
  applyActivity,
  blendActivityChecks,
  epochPoqInputs,
  resolveBlendRewardParams,
  rewardsEpochChange,
} from './sdp-rewards.ts';
import type { Declaration } from './state.ts';

export function applySdpDeclare(env: OpEnv, op: SDPDeclareOp, proof: OpProof): void {
  const { draft, opIndex } = env;
  // F: core/src/mantle/ops/sdp/declare.rs — verify (note exists, signature) then validate.
  const rec = draft.notes.get(op.service_note_id);
  if (!rec)
    throw new NoteNotFound(op.service_note_id, `service note ${op.service_note_id} does not exist`, opIndex);
  requireZkSignature(env, proof, [rec.note.pk, op.zk_id]);
  const id = bytesToHex(declarationId(op));
  if (draft.sdp.declarations.has(id)) fail('DuplicateDeclaration', `declaration ${id} exists`, opIndex);
  for (const d of draft.sdp.declarations.values()) {
    if (d.service_type !== op.service_type) continue;
    if (bytesToHex(d.provider_id) === bytesToHex(op.provider_id)) {
      fail('DuplicateProviderId', 'this provider already declared the service', opIndex);
    }
    if (d.zk_id === op.zk_id) fail('DuplicateZkId', 'this zk id already declared the service', opIndex);
  }
  if (rec.channel !== null) fail('InputInChannel', 'a channel note cannot be a service note', opIndex);
  if (rec.note.value < env.ctx.config.sdp.min_stake) {
    fail(
      'NoteValueBelowMinStake',
      `note value ${rec.note.value} is below ${env.ctx.config.sdp.min_stake}`,
      opIndex,
    );
  }
  if (rec.locked_by !== null) fail('InputLocked', `note is already locked by ${rec.locked_by}`, opIndex);
  const decl = newDeclaration(op, draft.epoch);
  draft.sdp = { ...draft.sdp, declarations: draft.sdp.declarations.set(id, decl) };
  draft.updateNote(op.service_note_id, { ...rec, locked_by: id });
}

/** A new declaration: active from `created + SNAPSHOT_FINALIZATION_DELAY`, nonce 0 (F: `Declaration::new`). */
export function newDeclaration(op: SDPDeclareOp, epoch: number): Declaration {
  return {
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
}

function declarationOf(env: OpEnv, id: Uint8Array): Declaration {
  const d = env.draft.sdp.declarations.get(bytesToHex(id));
  if (!d) fail('DeclarationNotFound', `declaration ${bytesToHex(id)} does not exist`, env.opIndex);
  return d;
}

/**
 * An activity message: refreshes `active` and the nonce, and hands its Blend activity proof to the
 * rewards, which may refuse it (and with it the op) (F: `SdpLedger::apply_active_msg`).
 */
export function applySdpActive(
  env: OpEnv,
  op: SDPActiveOp,
  proof: OpProof,
  // Genesis mode verifies no proof (OpEnv.genesis), the proof of quota included.
  checks: ActivityProofChecks = blendActivityChecks(env.genesis ? PROOFS_ALREADY_VERIFIED : env.ctx.proofs, {
    txHash: env.txHash,
    opIndex: env.opIndex,
  }),
): void {
  const d = declarationOf(env, op.declaration_id);
  const epoch = env.draft.epoch;
  if (d.withdraw_at !== null && d.withdraw_at <= epoch)
    fail('DeclarationWithdrawn', 'the declaration is withdrawn', env.opIndex);
  if (op.nonce <= d.nonce) fail('InvalidNonce', `nonce ${op.nonce} must exceed ${d.nonce}`, env.opIndex);
  requireZkSignature(env, proof, [d.zk_id]);
  const key = bytesToHex(op.declaration_id);
  const rewards = applyActivity(env.draft.sdp.rewards, d.provider_id, op.metadata.Blend, env.opIndex, checks);
  env.draft.sdp = {
    ...env.draft.sdp,
    declarations: env.draft.sdp.declarations.set(key, { ...d, active: epoch, nonce: op.nonce }),
    rewards,
  };
}

export function applySdpWithdraw(env: OpEnv, op: SDPWithdrawOp, proof: OpProof): void {
  // F: core/src/mantle/ops/sdp/withdraw.rs
  const d = declarationOf(env, op.declaration_id);
  if (d.withdraw_at !== null)
    fail('DeclarationWithdrawn', 'the declaration is already withdrawn', env.opIndex);
  const note = env.draft.notes.get(op.service_note_id);
  const key = bytesToHex(op.declaration_id);
  if (!note || note.locked_by === null)
    fail('NoteNotLockedForService', 'the note is not locked for the service', env.opIndex);
  if (op.service_note_id !== d.service_note_id)
    fail('WrongServiceNote', "not the declaration's service note", env.opIndex);
  requireZkSignature(env, proof, [note.note.pk, d.zk_id]);
  if (op.nonce <= d.nonce) fail('InvalidNonce', `nonce ${op.nonce} must exceed ${d.nonce}`, env.opIndex);
  env.draft.sdp = {
    ...env.draft.sdp,
    declarations: env.draft.sdp.declarations.set(key, {
      ...d,
      // The note stays locked while the snapshots still count the declaration.
      withdraw_at: env.draft.epoch + SNAPSHOT_FINALIZATION_DELAY,
      nonce: op.nonce,
    }),
  };
}

/**
 * Whether a declaration is in the active set of `epoch`: its last activity is at most
 * `inactivity_period` epochs back and its withdrawal has not taken effect (F: `is_active`).
 */
export function isActive(d: Declaration, epoch: number, p: SdpParams): boolean {
  return d.active + p.inactivity_period >= epoch && (d.withdraw_at === null || d.withdraw_at > epoch);
}

/** The active set of `epoch` among `declarations` (F: `SdpLedger::active_declarations`). */
export function activeDeclarations(
  declarations: PMap<string, Declaration>,
  epoch: number,
  p: SdpParams,
): PMap<string, Declaration> {
  return PMap.empty<string, Declaration>(stringKeys).withMutations((m) => {
    for (const [id, d] of declarations.entries()) if (isActive(d, epoch, p)) m.set(id, d);
  });
}

/** Adds a block's Blend share to the current epoch's income. */
export function addSdpIncome(draft: Draft, income: bigint): void {
  draft.sdp = { ...draft.sdp, rewards: addBlendIncome(draft.sdp.rewards, income) };
}

/**
 * Epoch change from `closedEpoch` to `epoch`, after the epoch states moved: rotates the active-set
 * snapshots, unlocks the notes of declarations whose withdrawal took effect (`epoch ≥ withdraw_at`)
 * and removes them, then pays the Blend rewards. Returns the header events: unlocks first, then
 * rewards (F: `ServiceState::try_apply_header`).
 */
export function sdpEpochChange(
  draft: Draft,
  closedEpoch: number,
  epoch: number,
  config: LedgerConfig,
  s: EpochSchedule,
): HeaderEvent[] {
  const p = config.sdp;
  const events: HeaderEvent[] = [];
  const parent = draft.sdp;
  // F: ledger/src/cryptarchia/mod.rs `update_epoch_state` freezes the sets from the parent's SDP.
  // F also lets the next epoch's set follow the parent while the parent's slot is before that
  // epoch's stake-distribution snapshot slot (`EpochState::update_from_ledger`); that slot is the
  // first slot of the parent's own epoch, so the set never moves between epoch changes.
  const snapshot =
    epoch === closedEpoch + 1 ? parent.next_snapshot : activeDeclarations(parent.declarations, epoch, p);
  const next_snapshot = activeDeclarations(parent.declarations, epoch + 1, p);

  let declarations = parent.declarations;
  const sorted = parent.declarations.sortedEntries((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  for (const [id, d] of sorted) {
    if (d.withdraw_at === null || epoch < d.withdraw_at) continue;
    declarations = declarations.delete(id);
    const rec = draft.notes.get(d.service_note_id);
    if (rec && rec.locked_by === id) {
      draft.updateNote(d.service_note_id, { ...rec, locked_by: null });
      events.push({ type: 'SdpNoteUnlocked', note_id: d.service_note_id, declaration_id: hexToBytes(id) });
    }
  }

  const blend = resolveBlendRewardParams(p.blend_rewards, s.epoch_length);
  const lastSet = [...parent.snapshot.values()].filter((d) => d.service_type === 'BN');
  const { rewards, utxos } = rewardsEpochChange(
    parent.rewards,
    closedEpoch,
    lastSet,
    epoch,
    draft.epoch_state.nonce,
    epochPoqInputs(draft.epoch_state),
    blend,
  );
  for (const u of utxos) {
    draft.addNote(u.op_id, u.output_index, u.note);
    events.push({ type: 'SdpRewardDistributed', utxo: u });
  }
  draft.sdp = { declarations, snapshot, next_snapshot, rewards };
  return events;
}
