/** The network service: the only way into `network/` from outside. */
export { DEFAULT_NETWORK, type NetworkSection, parseNetworkSection } from './config.ts';
export { DialFailed, FrameTimeout, FrameTooLarge, NetworkError, StreamTruncated } from './errors.ts';
export { encodeFrame, FrameReader } from './framing.ts';
export {
  type BlockPublisher,
  DEFAULT_GOSSIP_LIMITS,
  type GossipConfig,
  type GossipCounters,
  type GossipDeps,
  GossipService,
  gossipConfig,
  type IGossip,
  type OrphanSink,
  type ProposalRelay,
} from './gossip/index.ts';
export type * from './interface.ts';
export { acceptUnsignedAuthor, deploymentProtocols, gossipMessageId } from './libp2p-node.ts';
export { NetworkService, type NetworkServiceConfig } from './network-service.ts';
export { DEFAULT_SCORING, PeerScores, type ScoringSettings } from './scoring.ts';
export { jointVerdict } from './verdict.ts';
export { WireError, type WireErrorCode } from './wire/errors.ts';
export { encodeProposal, type Proposal, toProposal } from './wire/proposal.ts';
export {
  type BlocksUnavailableReason,
  decodeBlocksResponse,
  decodeRequest,
  decodeTipResponse,
  encodeBlocksResponse,
  encodeRequest,
  encodeTipResponse,
  type GetTipResponse,
  type KnownBlocks,
  MAX_REQUEST_BYTES,
  MAX_SYNC_FRAME_BYTES,
  type RequestMessage,
  reasonText,
} from './wire/sync-messages.ts';
export { decodeTxGossip, encodeTxGossip } from './wire/tx-gossip.ts';
