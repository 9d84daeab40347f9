/**
 * What the API sees of the node's transaction-building operations: `IOps`. Each operation builds its
 * ops, has the wallet fund and sign them and adds the transaction to the mempool (F: the handlers of
 * `/leader/*`, `/sdp/*`, `/channel/deposit` and `/blend/join`, the SDP service and the chain leader's claim).
 */
import type { Fr } from '../crypto/field.ts';
import type { Locator } from '../mantle/locator.ts';
import type { ActivityMetadata, ChannelDepositOp, SDPDeclareOp } from '../mantle/ops.ts';
import type { VoucherView } from './vouchers.ts';

export interface AgedNote {
  readonly note_id: Fr;
  readonly value: bigint;
  readonly public_key: Fr;
}

export interface AgedNotes {
  readonly tip: Uint8Array;
  readonly notes: readonly AgedNote[];
}

export interface ClaimableVouchers {
  readonly tip: Uint8Array;
  readonly vouchers: readonly { readonly commitment: Fr; readonly nullifier: Fr }[];
  /** The payout of one claim at the tip. */
  readonly reward_amount: bigint;
}

export interface WalletVouchers {
  readonly tip: Uint8Array;
  readonly vouchers: readonly VoucherView[];
  readonly reward_amount: bigint;
}

/** An SDP message submitted to the mempool. */
export interface SdpSubmission {
  readonly declarationId: Uint8Array;
  readonly txHash: Uint8Array;
}

export interface ChannelDepositRequest {
  readonly deposit: ChannelDepositOp;
  readonly changePk: Fr;
  readonly fundingPks: readonly Fr[];
  readonly maxTxFee: bigint;
}

export interface IOps {
  /** The wallet's notes that may win a slot at a block (default the tip). */
  agedNotes(tip?: Uint8Array): AgedNotes;
  /** The vouchers a claim can be made of at a block (default the tip). */
  claimableVouchers(tip?: Uint8Array): ClaimableVouchers;
  /** Every voucher of the wallet with its state at the tip. */
  walletVouchers(): WalletVouchers;
  /** Claims one available voucher; returns the claim's tx hash. Throws `OpsError` when none is available. */
  claim(): Promise<Uint8Array>;
  /** Declares a service; the declaration becomes the node's current one. */
  declare(op: SDPDeclareOp): Promise<SdpSubmission>;
  /** An activity message for the node's current declaration. */
  activity(metadata: ActivityMetadata): Promise<SdpSubmission>;
  /** Withdraws a declaration; the node then has no current declaration. */
  withdraw(declarationId: Uint8Array): Promise<SdpSubmission>;
  /** Sets (after checking it exists at the tip) or clears the node's current declaration. */
  setDeclarationId(id: Uint8Array | null): Promise<void>;
  /** The node's current declaration id. */
  currentDeclarationId(): Uint8Array | undefined;
  /** Declares this node as a Blend core node with its Blend keys. */
  joinBlend(locator: Locator, serviceNoteId: Fr): Promise<SdpSubmission>;
  /** Funds, signs and submits a channel deposit; returns its tx hash. */
  channelDeposit(req: ChannelDepositRequest): Promise<Uint8Array>;
}
