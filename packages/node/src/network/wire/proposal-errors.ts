/**
 * Why a decoded proposal does not give a block: a `ProposalError` with a code per reason (F
 * `services/chain/chain-network/src/lib.rs` `Error`: `InvalidHeader`, `UnresolvedReference`,
 * `CollidingReference`, `NoMatchingReconstruction`) and typed metadata.
 */
import { LogosError } from '@logos-ts/shared/errors';

export type ProposalErrorCode =
  /** The header fails the checks that need the header alone (slot 0, leader signature). */
  | 'PROPOSAL_INVALID_HEADER'
  /** No local transaction has the reference's prefix. */
  | 'PROPOSAL_UNRESOLVED_REFERENCE'
  /** Two or more local transactions have the reference's prefix. */
  | 'PROPOSAL_COLLIDING_REFERENCE'
  /** The resolved transactions do not make the block the header commits to. */
  | 'PROPOSAL_NO_MATCHING_RECONSTRUCTION';

export interface ProposalErrorMeta {
  /** For an invalid header: `GenesisSlot` or `Signature` (F `HeaderError`). */
  readonly reason?: 'GenesisSlot' | 'Signature';
  /** Position of the reference in the proposal. */
  readonly index?: number;
  /** The reference (hex of the 16-byte tx-hash prefix). */
  readonly prefix?: string;
  /** For a failed reconstruction: the block check that failed. */
  readonly blockCode?: string;
  readonly [key: string]: unknown;
}

export class ProposalError extends LogosError<ProposalErrorMeta> {
  declare readonly code: ProposalErrorCode;

  constructor(
    code: ProposalErrorCode,
    message: string,
    options: { cause?: unknown; meta?: ProposalErrorMeta } = {},
  ) {
    super(code, message, { cause: options.cause, meta: options.meta ?? {} });
  }
}
LogosError.register(ProposalError);
