/**
 * The ops each operation builds and the signed leader-claim transaction, as pure functions (F:
 * `MantleTxBuilder::new().push_op(..)` in the handlers, `services/sdp/src/lib.rs` for the SDP messages,
 * `services/wallet/src/lib.rs` `build_reserved_leader_claim_tx` for the claim, whose proof of claim the
 * wallet's signing takes as given).
 */
import type { Fr } from '../crypto/field.ts';
import type { Declaration } from '../ledger/state.ts';
import type { Locator } from '../mantle/locator.ts';
import { type ActivityMetadata, type Op, Opcode, type SDPDeclareOp } from '../mantle/ops.ts';
import type { OpProof } from '../mantle/proofs.ts';
import type { FundedTx, TxBuilder } from '../wallet/index.ts';
import { OpsError } from './errors.ts';

/** An unfunded builder holding `ops` (F `MantleTxBuilder::new().push_op(op)`). */
export function builderOf(...ops: Op[]): TxBuilder {
  return {
    ops,
    ledgerInputs: [],
    pendingTransfer: { inputs: [], outputs: [] },
    channelMultiSigProofs: new Map(),
  };
}

/** The next nonce of a declaration's messages (F: `declaration.nonce.checked_add(1)`). */
export function nextNonce(d: Pick<Declaration, 'nonce'>): bigint {
  if (d.nonce >= 0xffff_ffff_ffff_ffffn) throw new OpsError('OPS_NONCE_OVERFLOW', "Can't bump nonce");
  return d.nonce + 1n;
}

/** SDPActive for a declaration: its nonce + 1 and the activity proof. */
export function activeOp(
  declarationId: Uint8Array,
  d: Pick<Declaration, 'nonce'>,
  metadata: ActivityMetadata,
): Op {
  return {
    opcode: Opcode.SDPActive,
    payload: { declaration_id: declarationId, nonce: nextNonce(d), metadata },
  };
}

/** SDPWithdraw of a declaration: its nonce + 1 and its locked note. */
export function withdrawOp(declarationId: Uint8Array, d: Pick<Declaration, 'nonce' | 'service_note_id'>): Op {
  return {
    opcode: Opcode.SDPWithdraw,
    payload: { declaration_id: declarationId, nonce: nextNonce(d), service_note_id: d.service_note_id },
  };
}

/** The Blend core declaration of a node (F: `services/blend/src/lib.rs` `submit_blend_sdp_declaration`). */
export function blendDeclaration(
  locator: Locator,
  serviceNoteId: Fr,
  providerId: Uint8Array,
  zkId: Fr,
): SDPDeclareOp {
  return {
    service_type: 'BN',
    locators: [locator],
    provider_id: providerId,
    zk_id: zkId,
    service_note_id: serviceNoteId,
  };
}

/** LeaderClaim of a voucher against the snapshot root, paid to `pk`. */
export function leaderClaimOp(rewardsRoot: Fr, nullifier: Fr, pk: Fr): Op {
  return {
    opcode: Opcode.LeaderClaim,
    payload: { rewards_root: rewardsRoot, voucher_nullifier: nullifier, pk },
  };
}

/**
 * The signed claim: the LeaderClaim's proof of claim, and the funding Transfer's ZkSig that funding made
 * over the funded transaction's hash (F `sign_tx`: LeaderClaim → PoC, Transfer → ZkSig).
 */
/** The funded transaction with `proof` for its op of `opcode` (F: proofs the wallet does not make itself). */
export function withProof(funded: FundedTx, opcode: Opcode, proof: OpProof): FundedTx {
  const index = funded.tx.ops.findIndex((op) => op.opcode === opcode);
  if (index < 0) throw new Error(`the funded transaction has no op ${opcode}`);
  const opProofs = new Map(funded.builder.opProofs ?? []);
  opProofs.set(index, proof);
  return { ...funded, builder: { ...funded.builder, opProofs } };
}
