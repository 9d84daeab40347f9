/**
 * Errors of the network wire messages: a peer's bytes that are not a valid message. Always typed, never a
 * crash: the receiver penalizes the peer and drops the stream.
 */
import { LogosError } from '@logos-ts/shared/errors';

export type WireErrorCode =
  /** The bytes are not a message of the expected type (bad tag, short, trailing bytes, bad length). */
  | 'WIRE_MALFORMED'
  /** A length or count in the message is above its cap. */
  | 'WIRE_TOO_LARGE';

export interface WireErrorMeta {
  /** The message type being decoded, e.g. `RequestMessage`. */
  readonly message: string;
  readonly [key: string]: unknown;
}

export class WireError extends LogosError<WireErrorMeta> {
  declare readonly code: WireErrorCode;

  constructor(code: WireErrorCode, message: string, meta: WireErrorMeta, cause?: unknown) {
    super(code, `${meta.message}: ${message}`, { meta, ...(cause !== undefined ? { cause } : {}) });
  }
}
LogosError.register(WireError);
