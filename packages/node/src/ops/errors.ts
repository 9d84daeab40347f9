/**
 * Why a transaction-building operation (leader claim, SDP message, channel deposit, Blend join) was
 * refused. Texts of the reference where it has them (`services/wallet`, `services/sdp`,
 * `services/chain/chain-leader`); the HTTP layer answers them as 500 `{code, message}`.
 */
import { LogosError } from '@logos-ts/shared/errors';

export type OpsErrorCode =
  /** `POST /leader/claim` with no voucher available. */
  | 'OPS_NO_CLAIMABLE_VOUCHER'
  /** The node has no current SDP declaration (activity). */
  | 'OPS_NO_DECLARATION'
  /** A block the node holds no ledger state of. */
  | 'OPS_NO_LEDGER_STATE'
  /** A declaration id that the ledger at the tip does not hold. */
  | 'OPS_DECLARATION_NOT_FOUND'
  /** A fee above the configured or requested cap. */
  | 'OPS_FEE_TOO_HIGH'
  /** A setting or key the operation needs is not configured (or not in the KMS). */
  | 'OPS_NOT_CONFIGURED'
  /** The voucher's Merkle path cannot be built (its block left the canonical chain). */
  | 'OPS_VOUCHER_PATH'
  /** The node runs no wallet and mempool to build transactions with. */
  | 'OPS_NO_WALLET'
  /** The nonce of a declaration cannot be increased. */
  | 'OPS_NONCE_OVERFLOW';

export interface OpsErrorMeta {
  readonly [key: string]: unknown;
}

export class OpsError extends LogosError<OpsErrorMeta> {
  declare readonly code: OpsErrorCode;

  constructor(code: OpsErrorCode, message: string, meta: OpsErrorMeta = {}) {
    super(code, message, { meta });
  }
}

LogosError.register(OpsError);
