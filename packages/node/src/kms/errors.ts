/** Why the key store refused to sign. Messages name keys by public key only, never by secret. */
import { LogosError } from '@logos-ts/shared/errors';

export type KmsErrorCode =
  /** No key of the store has this public key (and kind). */
  | 'KMS_KEY_NOT_FOUND'
  /** A ZK signature over more keys than the circuit takes (32), or over none (F's texts). */
  | 'KMS_KEY_COUNT';

export interface KmsErrorMeta {
  /** Hex of the public key (the key id). */
  readonly keyId?: string;
  readonly count?: number;
  readonly [key: string]: unknown;
}

export class KmsError extends LogosError<KmsErrorMeta> {
  declare readonly code: KmsErrorCode;

  constructor(code: KmsErrorCode, message: string, meta: KmsErrorMeta = {}) {
    super(code, message, { meta });
  }
}
LogosError.register(KmsError);
