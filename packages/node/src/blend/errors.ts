/** Why the Blend service refused a request, with the reference's texts where it has them. */
import { LogosError } from '@logos-ts/shared/errors';

export type BlendErrorCode =
  /** A transaction whose encoding exceeds a Blend payload body (F `TransactionTooLarge`). */
  | 'BLEND_TRANSACTION_TOO_LARGE'
  /** Broadcast mode: the local mempool refused the transaction. */
  | 'BLEND_MEMPOOL'
  /** The service is stopping or not running. */
  | 'BLEND_UNAVAILABLE';

export class BlendError extends LogosError<Readonly<Record<string, unknown>>> {
  declare readonly code: BlendErrorCode;

  constructor(code: BlendErrorCode, message: string, meta: Readonly<Record<string, unknown>> = {}) {
    super(code, message, { meta });
  }
}

LogosError.register(BlendError);

/** F `services/blend/src/message.rs` `TransactionTooLarge`'s text. */
export const transactionTooLarge = (size: number, maximum: number) =>
  new BlendError(
    'BLEND_TRANSACTION_TOO_LARGE',
    `Transaction of ${size} bytes exceeds the ${maximum} a Blend payload can carry.`,
    { size, maximum },
  );
