/** The network service: the only way into `network/` from outside. */
export { DEFAULT_NETWORK, type NetworkSection, parseNetworkSection } from './config.ts';
export { DialFailed, FrameTimeout, FrameTooLarge, NetworkError, StreamTruncated } from './errors.ts';
export { encodeFrame, FrameReader } from './framing.ts';
export type * from './interface.ts';
export { acceptUnsignedAuthor, gossipMessageId } from './libp2p-node.ts';
export { NetworkService, type NetworkServiceConfig } from './network-service.ts';
export { DEFAULT_SCORING, PeerScores, type ScoringSettings } from './scoring.ts';
export { decodeTxGossip, encodeTxGossip } from './wire/tx-gossip.ts';
