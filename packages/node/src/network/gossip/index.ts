/**
 * The gossip entry point, the only import path into `network/gossip/` from outside: the service that
 * carries block proposals and transactions over gossipsub, its settings, its interfaces (the leader's
 * `BlockPublisher`, chain sync's `OrphanSink`).
 */
export { DEFAULT_GOSSIP_LIMITS, type GossipConfig, gossipConfig } from './config.ts';
export { type GossipDeps, GossipService } from './gossip-service.ts';
export type { BlockPublisher, GossipCounters, IGossip, OrphanSink, ProposalRelay } from './interface.ts';
export { applyWithFutureBlockRetry } from './retry.ts';
