/**
 * Stateless transaction checks: what can be verified without the ledger state. The reference runs
 * them while decoding a transaction, so a failure rejects the transaction before it reaches a mempool.
 * Proof counts and variants are enforced by the codec too; they are checked here again for
 * transactions built in memory (F: core/src/mantle/transactions/signed_mantle_tx.rs `preverify`).
 */
import { ed25519Verify } from '../crypto/ed25519.ts';
import { OPCODE_NAMES, Opcode } from '../mantle/ops.ts';
import { PROOF_TYPE_OF } from '../mantle/proofs.ts';
import { type SignedMantleTx, txHash, txHashToFr } from '../mantle/tx.ts';
import { fail, LedgerError } from './errors.ts';
import type { ProofChecks } from './proof-system.ts';

export interface PreverifiedTx {
  readonly tx: SignedMantleTx;
  readonly hash: Uint8Array;
}

export function preverifyTx(tx: SignedMantleTx, proofs: ProofChecks): PreverifiedTx {
  const hash = txHash(tx.mantle_tx);
  const ops = tx.mantle_tx.ops;
  if (tx.ops_proofs.length !== ops.length) {
    fail('ProofCountMismatch', `${tx.ops_proofs.length} proofs for ${ops.length} operations`);
  }
  for (let i = 0; i < ops.length; i++) {
    const op = ops[i]!;
    const proof = tx.ops_proofs[i]!;
    if (proof.type !== PROOF_TYPE_OF[op.opcode]) {
      fail('IncorrectProofType', `a ${proof.type} proof for a ${OPCODE_NAMES[op.opcode]} operation`, i);
    }
    switch (op.opcode) {
      case Opcode.Transfer:
        if (op.payload.inputs.length === 0) fail('EmptyInputs', 'a transfer needs at least one input', i);
        if (op.payload.outputs.some((o) => o.value === 0n))
          fail('ZeroValueOutput', 'outputs must have a positive value', i);
        break;
      case Opcode.ChannelDeposit:
      case Opcode.ChannelWithdraw:
        if (op.payload.inputs.length === 0) fail('EmptyInputs', 'at least one input note is required', i);
        break;
      // F: core/src/mantle/ops/channel/channel_transfer.rs `preverify`.
      case Opcode.ChannelTransfer:
        if (op.payload.inputs.length === 0) fail('EmptyInputs', 'at least one input note is required', i);
        if (op.payload.outputs.some((o) => o.value === 0n))
          fail('ZeroValueOutput', 'outputs must have a positive value', i);
        break;
      case Opcode.ChannelConfig:
        if (op.payload.configuration_threshold === 0 || op.payload.transfer_threshold === 0) {
          fail('InvalidThreshold', 'thresholds must be positive', i);
        }
        break;
      case Opcode.ChannelInscribe:
        if (proof.type !== 'Ed25519Sig' || !ed25519Verify(op.payload.signer, hash, proof.signature)) {
          fail('InvalidEd25519Signature', 'the signer did not sign this transaction', i);
        }
        break;
      case Opcode.SDPDeclare:
        if (
          proof.type !== 'ZkAndEd25519Sigs' ||
          !ed25519Verify(op.payload.provider_id, hash, proof.ed25519_sig)
        ) {
          fail('InvalidEd25519Signature', 'the provider did not sign this transaction', i);
        }
        break;
      case Opcode.LeaderClaim:
        if (
          proof.type !== 'PoC' ||
          !proofs.verifyPoc(
            {
              voucher_nullifier: op.payload.voucher_nullifier,
              voucher_root: op.payload.rewards_root,
              mantle_tx_hash: txHashToFr(hash),
            },
            proof.proof,
            { txHash: hash, opIndex: i },
          )
        ) {
          fail('InvalidProofOfClaim', 'the proof of claim does not verify', i);
        }
        break;
      default:
        break;
    }
  }
  return { tx, hash };
}

export function isLedgerError(e: unknown): e is LedgerError {
  return e instanceof LedgerError;
}
