/**
 * The ledger's errors. Each names the broken rule by the reference's variant name (`ledgerCode`,
 * e.g. `InputNotFound`) and has the code `LEDGER_` + that name in snake case (`LEDGER_INPUT_NOT_FOUND`);
 * where it happened (transaction and op index) and the detail are metadata, rendered into the message.
 */
import { LogosError } from '@logos-ts/shared/errors';

/** Why the ledger refused a transaction or a block: a reference error variant name where the reference has one. */
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

/** What a ledger error carries. */
export interface LedgerErrorMeta {
  /** The reference's variant name of the broken rule. */
  readonly ledgerCode: LedgerErrorCode;
  /** What is wrong, in words (without the variant name and the location). */
  readonly detail: string;
  /** The transaction's index in its block, when the error is located in a block. */
  readonly txIndex?: number;
  /** The op's index in its transaction. */
  readonly opIndex?: number;
  readonly [key: string]: unknown;
}

/** `InputNotFound` → `LEDGER_INPUT_NOT_FOUND`. */
export function ledgerErrorCode(variant: LedgerErrorCode): string {
  return `LEDGER_${variant.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase()}`;
}

/** `InputNotFound (tx 1, op 0): detail`. */
function render(m: LedgerErrorMeta): string {
  const at = [
    m.txIndex !== undefined ? `tx ${m.txIndex}` : '',
    m.opIndex !== undefined ? `op ${m.opIndex}` : '',
  ]
    .filter(Boolean)
    .join(', ');
  return at ? `${m.ledgerCode} (${at}): ${m.detail}` : `${m.ledgerCode}: ${m.detail}`;
}

export class LedgerError extends LogosError<LedgerErrorMeta> {
  constructor(code: LedgerErrorCode, detail: string, where: { opIndex?: number; txIndex?: number } = {}) {
    const meta: LedgerErrorMeta = {
      ledgerCode: code,
      detail,
      ...(where.txIndex !== undefined ? { txIndex: where.txIndex } : {}),
      ...(where.opIndex !== undefined ? { opIndex: where.opIndex } : {}),
    };
    super(ledgerErrorCode(code), render(meta), { meta });
  }

  get ledgerCode(): LedgerErrorCode {
    return this.meta.ledgerCode;
  }

  get opIndex(): number | undefined {
    return this.meta.opIndex;
  }

  get txIndex(): number | undefined {
    return this.meta.txIndex;
  }

  /** The same error located inside a block's transaction list. */
  inTx(txIndex: number): LedgerError {
    return new LedgerError(this.meta.ledgerCode, this.meta.detail, {
      txIndex,
      ...(this.meta.opIndex !== undefined ? { opIndex: this.meta.opIndex } : {}),
    });
  }
}
LogosError.register(LedgerError);

/** The reference variant of a missing input (a ledger code, not a `LogosError` code). */
const INPUT_NOT_FOUND: LedgerErrorCode = 'InputNotFound';

/**
 * `InputNotFound` for a note that is not in the state: the note is named, so that a caller can tell
 * when the transaction may apply (never before that note exists: the ids of the notes a transaction's
 * own ops create do not depend on the state, so a note it spends is either made by an earlier op of it
 * or must already exist).
 */
export class NoteNotFound extends LedgerError {
  constructor(
    readonly note: bigint,
    detail: string,
    opIndex?: number,
  ) {
    super(INPUT_NOT_FOUND, detail, opIndex !== undefined ? { opIndex } : {});
  }
}

export function fail(code: LedgerErrorCode, message: string, opIndex?: number): never {
  throw new LedgerError(code, message, opIndex !== undefined ? { opIndex } : {});
}
