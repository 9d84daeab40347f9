/** Errors of the network service: framing of request/response streams, dials, the libp2p node. */
import { LogosError } from '@logos-ts/shared/errors';

export type NetworkErrorCode =
  | 'NETWORK_FRAME_TOO_LARGE'
  | 'NETWORK_FRAME_TIMEOUT'
  | 'NETWORK_STREAM_TRUNCATED'
  | 'NETWORK_DIAL_FAILED'
  | 'NETWORK_DNS_FAILED'
  | 'NETWORK_NOT_STARTED'
  | 'NETWORK_LISTEN_FAILED';

export class NetworkError extends LogosError {
  constructor(code: NetworkErrorCode, message: string, meta?: Readonly<Record<string, unknown>>) {
    super(code, message, meta === undefined ? undefined : { meta });
  }
}

/** A frame's length prefix is above the limit: refused before anything is allocated. */
export class FrameTooLarge extends NetworkError {
  constructor(
    readonly length: number,
    readonly limit: number,
  ) {
    super('NETWORK_FRAME_TOO_LARGE', `frame of ${length} bytes exceeds the limit of ${limit} bytes`, {
      length,
      limit,
    });
  }
}

/** A frame did not arrive in time. */
export class FrameTimeout extends NetworkError {
  constructor(readonly ms: number) {
    super('NETWORK_FRAME_TIMEOUT', `no frame within ${ms} ms`, { ms });
  }
}

/** The stream ended inside a frame (its length prefix or its body). */
export class StreamTruncated extends NetworkError {
  constructor(what: string) {
    super('NETWORK_STREAM_TRUNCATED', `stream ended inside a frame's ${what}`, { what });
  }
}

/** A dial failed; the message is the reason, as the API answers it. */
export class DialFailed extends NetworkError {
  constructor(message: string) {
    super('NETWORK_DIAL_FAILED', message);
  }
}
