/** Why the pool refused a transaction. Texts of the reference where it has them (`services/tx-service`). */
import { LogosError } from '@logos-ts/shared/errors';

export type MempoolErrorCode =
  /** Bigger than a block's transaction bytes (2 MiB). */
  | 'MEMPOOL_ITEM_TOO_LARGE'
  /** The pool holds its maximum count or bytes (a bound the reference does not have). */
  | 'MEMPOOL_FULL';

export interface MempoolErrorMeta {
  readonly size?: number;
  readonly limit?: number;
  readonly [key: string]: unknown;
}

export class MempoolError extends LogosError<MempoolErrorMeta> {
  declare readonly code: MempoolErrorCode;

  constructor(code: MempoolErrorCode, message: string, meta: MempoolErrorMeta = {}) {
    super(code, message, { meta });
  }
}
