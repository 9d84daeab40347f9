/**
 * Errors of the Blend network (the Blend libp2p swarm): framing of Blend streams, a swarm used before
 * it starts or after it stops, a listen address that cannot be bound, a message that cannot be sent.
 */
import { LogosError } from '@logos-ts/shared/errors';

export type BlendNetworkErrorCode =
  | 'BLEND_NETWORK_FRAME_LENGTH'
  | 'BLEND_NETWORK_STREAM_TRUNCATED'
  | 'BLEND_NETWORK_MESSAGE_TOO_LARGE'
  | 'BLEND_NETWORK_NOT_STARTED'
  | 'BLEND_NETWORK_LISTEN_FAILED'
  | 'BLEND_NETWORK_UNIDENTIFIED_MESSAGE'
  | 'BLEND_NETWORK_BAD_SETTINGS';

export class BlendNetworkError extends LogosError {
  constructor(code: BlendNetworkErrorCode, message: string, meta?: Readonly<Record<string, unknown>>) {
    super(code, message, meta === undefined ? undefined : { meta });
  }
}

/** A frame announces a length other than the one valid message size: refused before its body is read. */
export class BlendFrameLength extends BlendNetworkError {
  constructor(
    readonly length: number,
    readonly expected: number,
  ) {
    super('BLEND_NETWORK_FRAME_LENGTH', `frame of ${length} bytes, a Blend message has ${expected} bytes`, {
      length,
      expected,
    });
  }
}

/** The stream ended inside a frame (its length prefix or its body). */
export class BlendStreamTruncated extends BlendNetworkError {
  constructor(what: string) {
    super('BLEND_NETWORK_STREAM_TRUNCATED', `stream ended inside a frame's ${what}`, { what });
  }
}

/** A message does not fit the u16 length prefix (F `send_msg`: "Message length is too big"). */
export class BlendMessageTooLarge extends BlendNetworkError {
  constructor(readonly length: number) {
    super('BLEND_NETWORK_MESSAGE_TOO_LARGE', `message of ${length} bytes does not fit a u16 length`, {
      length,
    });
  }
}

for (const cls of [BlendNetworkError, BlendFrameLength, BlendStreamTruncated, BlendMessageTooLarge])
  LogosError.register(cls);
