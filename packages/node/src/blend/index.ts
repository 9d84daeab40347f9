/** The Blend service: the mix network that hides who proposed a block and who sent a transaction. */

export {
  type BlendDeps,
  BlendService,
  type BlendServiceConfig,
  MAX_PAYLOAD_BODY_SIZE,
} from './blend-service.ts';
export {
  type BlendCoreBackend,
  type BlendEdgeBackend,
  type BlendSection,
  DEFAULT_BLEND,
  parseBlendSection,
} from './config.ts';
export { BlendError, type BlendErrorCode } from './errors.ts';
export type {
  BlendMode,
  BlendNetworkInfo,
  IBlend,
  LeadershipWin,
  ProposalPublisher,
} from './interface.ts';
