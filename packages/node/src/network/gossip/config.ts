/**
 * The gossip service's settings: its two gossipsub topics, named by the deployment
 * (`cryptarchia.gossipsub_protocol` for proposals, `mempool.pubsub_topic` for transactions), and the
 * bounds of its work queues. It has no section of its own in user_config.yaml.
 */

export interface GossipConfig {
  /** Block proposals (`cryptarchia.gossipsub_protocol`). */
  readonly blockTopic: string;
  /** Transactions (`mempool.pubsub_topic`). */
  readonly txTopic: string;
  /** Proposals waiting to be processed (one at a time); beyond it the oldest waiting one is dropped. */
  readonly maxPendingProposals: number;
  /** Received transactions being admitted at once; more are dropped. */
  readonly maxPendingTxs: number;
  /** Bytes of the received transactions being admitted at once; more are dropped. */
  readonly maxPendingTxBytes: number;
  /** Applying a block from a future slot is tried again this many times (F `FUTURE_BLOCK_MAX_RETRIES`). */
  readonly futureBlockRetries: number;
  /** Delay between those tries, ms (F `FUTURE_BLOCK_RETRY_DELAY`). */
  readonly futureBlockRetryDelayMs: number;
  /** The deployment's slot duration, ms (the proposal budgets refill per slot). */
  readonly slotMs: number;
}

export const DEFAULT_GOSSIP_LIMITS = {
  // inferred: F processes proposals one at a time from an unbounded stream; 256 waiting is the bound here (docs/design/fidelity.md)
  maxPendingProposals: 256,
  // inferred: F admits gossiped transactions without a bound; 1024 and 64 MiB at once here (docs/design/fidelity.md)
  maxPendingTxs: 1024,
  maxPendingTxBytes: 64 * 1024 * 1024,
  futureBlockRetries: 3,
  futureBlockRetryDelayMs: 500,
} as const;

/** The settings for the topics and slot duration of a deployment (1 s if not given), with the default bounds. */
export function gossipConfig(d: { blockTopic: string; txTopic: string; slotMs?: number }): GossipConfig {
  return { ...DEFAULT_GOSSIP_LIMITS, slotMs: 1000, ...d };
}
