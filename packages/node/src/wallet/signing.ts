/**
 * Signing a funded builder (F `SignTx`, `services/wallet/src/lib.rs` `sign_tx`): one proof per op of
 * the built transaction, over its hash, with the key store's keys and the ledger state at the block the
 * transaction was funded against:
 * - Transfer, ChannelDeposit: ZkSig by the input notes' keys (resolved from the ledger), in input order;
 * - ChannelInscribe: Ed25519 by `signer`;
 * - ChannelWithdraw, ChannelTransfer: the builder's channel multi-signature proof for that op index;
 * - ChannelConfig: the builder's multi-signature proof, else one by the channel's first key (none for a new channel);
 * - SDPDeclare: ZkSig by [service note key, zk_id] and Ed25519 by the provider id;
 * - SDPWithdraw: ZkSig by [service note key, zk_id] of the declaration; SDPActive: ZkSig by [zk_id];
 * - LeaderClaim: the PoC the builder carries (`opProofs`); ClaimPowReward: no proof.
 */
import { bytesToHex } from '../codec/hex.ts';
import { type Fr, frToBytes } from '../crypto/field.ts';
import type { IKms } from '../kms/index.ts';
import type { LedgerState } from '../ledger/state.ts';
import { Opcode } from '../mantle/ops.ts';
import type { OpProof, ZkSignature } from '../mantle/proofs.ts';
import { type SignedMantleTx, txHash, txHashToFr } from '../mantle/tx.ts';
import { buildTx } from './builder.ts';
import { WalletError } from './errors.ts';
import type { TxBuilder } from './interface.ts';

const frHex = (x: Fr) => bytesToHex(frToBytes(x));

function notePk(ledger: LedgerState, id: Fr, what: 'Input' | 'Locked'): Fr {
  const r = ledger.notes.get(id);
  if (!r)
    throw new WalletError('WALLET_MISSING_LEDGER_DATA', `${what} note ${frHex(id)} is missing in ledger`);
  return r.note.pk;
}

function declaration(ledger: LedgerState, id: Uint8Array) {
  const d = ledger.sdp.declarations.get(bytesToHex(id));
  if (!d)
    throw new WalletError('WALLET_MISSING_LEDGER_DATA', `Declaration ${bytesToHex(id)} is missing in ledger`);
  return d;
}

function builderProof(i: number, map: ReadonlyMap<number, OpProof> | undefined, what: string): OpProof {
  const p = map?.get(i);
  if (!p)
    throw new WalletError(
      'WALLET_MISSING_PROOF',
      `Failed to fetch ${what} proof for op index ${i} from the TxBuilder`,
      { opIndex: i },
    );
  return p;
}

/**
 * Signs every op of the built transaction. `transferProof`, when given, is the funding Transfer's
 * ZkSig already made over the same transaction (by `/wallet/fund`) and is used for the last op.
 * Throws `WalletError` or `KmsError`.
 */
export async function signTx(
  b: TxBuilder,
  ledger: LedgerState,
  kms: IKms,
  transferProof: ZkSignature | null,
): Promise<SignedMantleTx> {
  const tx = buildTx(b);
  const hash = txHash(tx);
  const msg = txHashToFr(hash);
  const proofs: OpProof[] = [];
  const zk = async (pks: Fr[]): Promise<OpProof> => ({
    type: 'ZkSig',
    signature: await kms.signZk(msg, pks),
  });
  for (let i = 0; i < tx.ops.length; i++) {
    const op = tx.ops[i]!;
    switch (op.opcode) {
      case Opcode.Transfer:
        if (transferProof && i === tx.ops.length - 1 && i === b.ops.length)
          proofs.push({ type: 'ZkSig', signature: transferProof });
        else proofs.push(await zk(op.payload.inputs.map((id) => notePk(ledger, id, 'Input'))));
        break;
      case Opcode.ChannelDeposit:
        proofs.push(await zk(op.payload.inputs.map((id) => notePk(ledger, id, 'Input'))));
        break;
      case Opcode.ChannelInscribe:
        proofs.push({ type: 'Ed25519Sig', signature: kms.signEd25519(hash, op.payload.signer) });
        break;
      case Opcode.ChannelWithdraw:
      case Opcode.ChannelTransfer:
        proofs.push(builderProof(i, b.channelMultiSigProofs, 'Channel Withdraw'));
        break;
      case Opcode.ChannelConfig: {
        const given = b.channelMultiSigProofs.get(i);
        if (given) {
          proofs.push(given);
          break;
        }
        // inferred: F (an older ChannelConfig) signs with the channel's first accredited key; here the
        // proof is a multi-signature, so that one signature at key index 0 (docs/design/fidelity.md)
        const channel = ledger.channels.get(bytesToHex(op.payload.channel));
        proofs.push({
          type: 'ChannelMultiSigProof',
          signatures: channel
            ? [{ signature: kms.signEd25519(hash, channel.accredited_keys[0]!), channel_key_index: 0 }]
            : [],
        });
        break;
      }
      case Opcode.SDPDeclare: {
        const pk = notePk(ledger, op.payload.service_note_id, 'Locked');
        const zkSig = await kms.signZk(msg, [pk, op.payload.zk_id]);
        proofs.push({
          type: 'ZkAndEd25519Sigs',
          zk_sig: zkSig,
          ed25519_sig: kms.signEd25519(hash, op.payload.provider_id),
        });
        break;
      }
      case Opcode.SDPWithdraw: {
        const d = declaration(ledger, op.payload.declaration_id);
        proofs.push(await zk([notePk(ledger, d.service_note_id, 'Locked'), d.zk_id]));
        break;
      }
      case Opcode.SDPActive:
        proofs.push(await zk([declaration(ledger, op.payload.declaration_id).zk_id]));
        break;
      case Opcode.LeaderClaim:
        proofs.push(builderProof(i, b.opProofs, 'LeaderClaim'));
        break;
      case Opcode.ClaimPowReward:
        proofs.push({ type: 'None' });
        break;
    }
  }
  return { mantle_tx: tx, ops_proofs: proofs };
}
