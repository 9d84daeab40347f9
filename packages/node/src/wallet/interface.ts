/**
 * What the rest of the node sees of the wallet: `IWallet`. The API and the services that build
 * transactions for the node (SDP, channel deposits, leader claims) depend on this interface, not on the
 * service class. Keys are addressed as the reference does: by public key (ZK keys as field elements,
 * Ed25519 keys as 32 bytes); the secrets stay in the key store.
 */
import type { Fr } from '../crypto/field.ts';
import type { Note, Utxo } from '../mantle/note.ts';
import type { Op } from '../mantle/ops.ts';
import type { OpProof, ZkSignature } from '../mantle/proofs.ts';
import type { MantleTx, SignedMantleTx } from '../mantle/tx.ts';

/** An unsigned transaction under construction (F `MantleTxBuilder`). */
export interface TxBuilder {
  readonly ops: readonly Op[];
  /** Notes the builder's own ops spend (F `ledger_inputs`). */
  readonly ledgerInputs: readonly Utxo[];
  /** The funding Transfer being built; appended as the last op when the builder is finished. */
  readonly pendingTransfer: { readonly inputs: readonly Fr[]; readonly outputs: readonly Note[] };
  /** Proofs of ChannelWithdraw / ChannelTransfer ops, by op index (F `channel_multi_sig_proofs`). */
  readonly channelMultiSigProofs: ReadonlyMap<number, OpProof>;
  /**
   * Proofs the caller made for ops the wallet does not sign itself (a LeaderClaim's PoC), by op index;
   * used as given when the transaction is signed.
   */
  readonly opProofs?: ReadonlyMap<number, OpProof>;
}

export interface FundRequest {
  /** Block to fund against; default the tip. */
  readonly tip?: Uint8Array;
  readonly builder: TxBuilder;
  readonly changePk: Fr;
  readonly fundingPks: readonly Fr[];
  /** Extra fee reserve as a percentage of the mandatory fee (0: exactly the mandatory fee). */
  readonly priorityFeePercent: bigint;
  /** Fails with a wallet error when the fee is higher. */
  readonly maxTxFee?: bigint;
}

export interface FundedTx {
  /** Block the transaction was funded against. */
  readonly tip: Uint8Array;
  /** The funded builder (for signing). */
  readonly builder: TxBuilder;
  /** The funded transaction: every op, the funding Transfer last; unsigned. */
  readonly tx: MantleTx;
  /** The funding Transfer's ZkSig over the tx hash, null when nothing was pulled in. */
  readonly transferProof: ZkSignature | null;
  /** Inputs minus outputs. */
  readonly fee: bigint;
}

export interface WalletBalance {
  /** Block the balance was read at. */
  readonly tip: Uint8Array;
  /** Total value of the key's notes, excluding notes deposited into channels. */
  readonly balance: bigint;
  readonly notes: readonly { readonly id: Fr; readonly value: bigint }[];
  readonly address: Fr;
}

export interface TransferRequest {
  readonly tip?: Uint8Array;
  readonly changePk: Fr;
  readonly fundingPks: readonly Fr[];
  readonly recipientPk: Fr;
  readonly amount: bigint;
}

export interface IWallet {
  /** The key's notes at a block (default the tip); undefined when it holds none there. */
  balance(pk: Fr, tip?: Uint8Array): WalletBalance | undefined;
  /**
   * Funds a builder as F `fund_tx` and reserves the notes it spends (kept even when its transfer proof
   * cannot be signed, as F). Throws `WalletError`.
   */
  fund(req: FundRequest): Promise<FundedTx>;
  /** Signs every op of a funded transaction with the node's keys (F `SignTx`). Throws `WalletError`. */
  sign(funded: FundedTx): Promise<SignedMantleTx>;
  /**
   * Fund, sign and add to the mempool; returns the tx hash. A failed signature releases the notes; a
   * mempool refusal keeps them reserved (until expiry), as F.
   */
  submit(req: FundRequest): Promise<Uint8Array>;
  /**
   * Adds a transaction signed with `sign` (e.g. after a proof over its hash was added to
   * `builder.opProofs`) to the mempool; returns its hash. A refusal throws and keeps the notes reserved
   * (until expiry), as F.
   */
  submitSigned(signed: SignedMantleTx): Promise<Uint8Array>;
  /** Releases the notes a funded transaction reserved (it will not be submitted). */
  release(funded: FundedTx): void;
  /** `transfer-funds`: one output to the recipient, funded with the exact mandatory fee, submitted. */
  transfer(req: TransferRequest): Promise<Uint8Array>;
  /** Ed25519 signature of `msg` by the KMS key whose public key is `pk`. */
  signEd25519(msg: Uint8Array, pk: Uint8Array): Uint8Array;
  /** ZkSig over `msg` by the KMS keys of `pks` (at most 32). */
  signZk(msg: Fr, pks: readonly Fr[]): Promise<ZkSignature>;
}
