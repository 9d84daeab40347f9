/** The Blend network: Blend's own libp2p swarm (core peering, relaying, spam blocking, edge sends). */
export { BlendSwarm, type BlendSwarmDeps, type BlendSwarmListeners } from './blend-swarm.ts';
export { type ConnectionChoice, chooseConnection, type RemoteRole } from './connection-choice.ts';
export { ConnectionMonitor, type ExpectedMessageRange, type MonitorOutcome } from './connection-monitor.ts';
export {
  BlendFrameLength,
  BlendMessageTooLarge,
  BlendNetworkError,
  type BlendNetworkErrorCode,
  BlendStreamTruncated,
} from './errors.ts';
export { BlendFrameReader, encodeBlendFrame, MAX_BLEND_MESSAGE_BYTES } from './framing.ts';
export { MessageCache, type MessageStatus } from './message-cache.ts';
export type * from './types.ts';
