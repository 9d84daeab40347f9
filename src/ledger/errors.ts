import { LogosError } from '../errors/base.ts';

/**
 * Why the ledger refused a transaction or a block. `code` is stable (a reference error variant name
 * where the reference has one); `opIndex` locates the failing op inside its transaction.
 */
export type LedgerErrorCode =
  | 'InvalidSlot'
  | 'InvalidLeaderProof'
  | 'TooManyTransactions'
  | 'BlockTooLarge'
  | 'TooMuchExecutionGas'
  | 'InsufficientBalance'
  | 'Overflow'
  | 'InputNotFound'
  | 'DuplicateNote'
  | 'DuplicateInput'
  | 'InputLocked'
  | 'InputInChannel'
  | 'InputNotInChannel'
  | 'EmptyInputs'
  | 'ZeroValueOutput'
  | 'InvalidZkSignature'
  | 'TooManyZkKeys'
  | 'InvalidEd25519Signature'
  | 'IncorrectProofType'
  | 'ProofCountMismatch'
  | 'ChannelNotFound'
  | 'InvalidParent'
  | 'InvalidSigner'
  | 'InvalidThreshold'
  | 'ThresholdNotMet'
  | 'InvalidKeyIndex'
  | 'UnbalancedTransfer'
  | 'NoteValueBelowMinStake'
  | 'DuplicateDeclaration'
  | 'DuplicateProviderId'
  | 'DuplicateZkId'
  | 'DeclarationNotFound'
  | 'DeclarationWithdrawn'
  | 'InvalidNonce'
  | 'WrongServiceNote'
  | 'NoteNotLockedForService'
  | 'TargetEpochNotSet'
  | 'InvalidActivityEpoch'
  | 'UnknownProvider'
  | 'InvalidActivityProof'
  | 'HammingDistanceTooLarge'
  | 'DuplicateActiveMessage'
  | 'InvalidRewardsRoot'
  | 'VoucherAlreadyClaimed'
  | 'InvalidProofOfClaim'
  | 'RewardsDisabled'
  | 'RewardPoolExhausted'
  | 'UnknownPowBlock'
  | 'PowClaimOutsideWindow'
  | 'InvalidEpochNonce'
  | 'TicketAboveTarget'
  | 'PowNullifierUsed'
  | 'InvalidGenesis';

export class LedgerError extends LogosError {
  readonly ledgerCode: LedgerErrorCode;
  readonly opIndex: number | undefined;
  readonly txIndex: number | undefined;

  constructor(code: LedgerErrorCode, message: string, where: { opIndex?: number; txIndex?: number } = {}) {
    const at = [
      where.txIndex !== undefined ? `tx ${where.txIndex}` : '',
      where.opIndex !== undefined ? `op ${where.opIndex}` : '',
    ]
      .filter(Boolean)
      .join(', ');
    super(`LEDGER_${code}`, at ? `${code} (${at}): ${message}` : `${code}: ${message}`);
    this.ledgerCode = code;
    this.opIndex = where.opIndex;
    this.txIndex = where.txIndex;
  }

  /** The same error located inside a block's transaction list. */
  inTx(txIndex: number): LedgerError {
    return new LedgerError(this.ledgerCode, this.message.replace(/^[A-Za-z]+( \([^)]*\))?: /, ''), {
      txIndex,
      ...(this.opIndex !== undefined ? { opIndex: this.opIndex } : {}),
    });
  }
}

export function fail(code: LedgerErrorCode, message: string, opIndex?: number): never {
  throw new LedgerError(code, message, opIndex !== undefined ? { opIndex } : {});
}
