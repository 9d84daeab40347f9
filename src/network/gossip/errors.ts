/** Why the gossip service cannot start: `GossipError` with `GOSSIP_*` codes. */
import { LogosError } from '../../errors/base.ts';

export type GossipErrorCode =
  /** A topic name is empty, or both kinds of message would share one topic. */
  'GOSSIP_TOPICS';

export class GossipError extends LogosError<{ readonly blockTopic: string; readonly txTopic: string }> {
  declare readonly code: GossipErrorCode;

  constructor(code: GossipErrorCode, message: string, meta: { blockTopic: string; txTopic: string }) {
    super(code, message, { meta });
  }
}
LogosError.register(GossipError);
