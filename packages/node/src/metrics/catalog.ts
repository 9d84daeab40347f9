/**
 * Every metric the node exports: name, help text, labels and where the name comes from.
 *
 * The reference node (F) pushes its metrics over OTLP (`tracing.metrics`); its testing framework's
 * Grafana dashboards read them by name from a Prometheus fed by an OTLP collector, where a counter gets
 * `_total` and a histogram in seconds `_seconds`. The names marked `reference` are those names, so that
 * the dashboards read this node's `/metrics` unchanged; `logos_*` are this node's own, for what the
 * reference does not report. Label values are fixed sets (a circuit, an offence, an HTTP method, a
 * route of the route table, a status code), never a peer id, a block id or a client's path.
 *
 * Sources of the reference names (labels and their values as there):
 * - the dashboards: logos-blockchain/logos-blockchain-testing (master 70c4061), the Grafana dashboards
 *   of its monitoring stack (consensus, overview, api, mempool, kms-wallet, blend, sdp, storage,
 *   issues-diagnostics);
 * - where F records them (3esmit/logos-blockchain 9316763): `services/chain/chain-service/src/
 *   metrics.rs` (consensus_tip_height, _finalized_height, _current_slot and _epoch: the tip's,
 *   _blocks_imported_total, _block_transactions_total, _forks_count), `services/chain/chain-network/
 *   src/metrics.rs` (consensus_apply_block_seconds and _failed_total, consensus_proposals_received
 *   and _ignored_total, orphan_blocks_*, chainsync_requests_total), `services/chain/chain-leader/src/
 *   metrics.rs` (consensus_proposals_created_total), `services/network/src/metrics.rs`
 *   (consensus_peers_connected, consensus_connections, network_dial_failures_total),
 *   `services/tx-service/src/metrics.rs` (mempool_*), `nodes/api-common/src/metrics.rs` (http_*),
 *   `services/key-management-system/src/metrics.rs` (kms_sign_*), `services/blend/src/metrics.rs`
 *   (blend_messages_*), `services/sdp/src/metrics.rs` (sdp_*), `services/time/src/metrics.rs`
 *   (time_current_*), `services/storage/src/metrics.rs` (storage_*);
 * - read by the dashboards, no longer recorded by F: chainsync_download_blocks_seconds (removed in F
 *   04f7704), blend_peers_connected (renamed blend_core_peers_negotiated in F 217f936),
 *   wallet_requests_total{kind} (the reference's older wallet service). This node records them with
 *   the meaning the dashboards give them.
 * F sets no help texts nor buckets (OpenTelemetry's defaults, 0 to 10,000, coarse for seconds); the
 * help texts and buckets here are this node's (docs/design/fidelity.md, "Metrics").
 * inferred: the names F no longer records keep the meaning the dashboards give them (docs/design/fidelity.md)
 */
import type { CounterName, HistogramName } from '../util/meter.ts';

export interface MetricDef {
  readonly help: string;
  readonly labels?: readonly string[];
  /** `reference`: a name of the reference's dashboards; `own`: this node's. */
  readonly origin: 'reference' | 'own';
}

export interface HistogramDef extends MetricDef {
  readonly buckets: readonly number[];
}

/** Seconds: from a millisecond to a minute. */
const SECONDS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
/** Seconds of a proof: from 10 ms to 5 minutes. */
const PROOF_SECONDS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300];

export const COUNTERS: Readonly<Record<CounterName, MetricDef>> = {
  consensus_apply_block_failed_total: {
    help: 'Blocks the chain refused, by reason (parent_missing: parent unknown; other: invalid or not stored)',
    labels: ['reason'],
    origin: 'reference',
  },
  consensus_proposals_created_total: {
    help: 'Blocks this node proposed as leader',
    labels: ['origin'],
    origin: 'reference',
  },
  consensus_proposals_received_total: {
    help: 'Block proposals received from the network',
    labels: ['origin'],
    origin: 'reference',
  },
  consensus_proposals_ignored_total: {
    help: 'Received proposals ignored, by reason (older_than_lib, already_processed)',
    labels: ['reason', 'origin'],
    origin: 'reference',
  },
  orphan_blocks_received_total: {
    help: 'Proposals whose parent is unknown, handed to the orphan downloader',
    origin: 'reference',
  },
  orphan_blocks_enqueued_total: { help: 'Orphans the downloader queued', origin: 'reference' },
  orphan_blocks_removed_total: {
    help: 'Orphans the downloader is done with (downloaded, failed, replaced or rejected)',
    origin: 'reference',
  },
  chainsync_requests_total: {
    help: 'Tip requests made to peers, by result (ok, err)',
    labels: ['kind', 'result'],
    origin: 'reference',
  },
  mempool_transactions_removed_total: {
    help: 'Transactions that left the mempool (included in a block, expired or evicted)',
    origin: 'reference',
  },
  wallet_requests_total: {
    help: 'Wallet requests, by kind (get_balance, fund_and_sign_tx, get_leader_aged_notes)',
    labels: ['kind'],
    origin: 'reference',
  },
  kms_sign_requests_total: {
    help: 'Signatures asked of the key store, by strategy (single: Ed25519; multi: a ZK signature)',
    labels: ['strategy'],
    origin: 'reference',
  },
  kms_sign_success_total: {
    help: 'Signatures the key store made, by strategy',
    labels: ['strategy'],
    origin: 'reference',
  },
  kms_sign_failures_total: {
    help: 'Signatures the key store failed, by strategy',
    labels: ['strategy'],
    origin: 'reference',
  },
  blend_messages_sent_total: {
    help: 'Blend messages handed to peers, by action (publish: own; forward: relayed)',
    labels: ['action'],
    origin: 'reference',
  },
  blend_messages_received_total: { help: 'Blend messages received from peers', origin: 'reference' },
  sdp_declarations_total: { help: 'SDP declarations this node submitted', origin: 'reference' },
  sdp_activity_posts_total: { help: 'SDP activity messages this node submitted', origin: 'reference' },
  network_dial_failures_total: { help: 'Outbound dials that failed', origin: 'reference' },
  storage_request_failed_total: { help: 'Storage commits of blocks that failed', origin: 'reference' },
  logos_proofs_dropped_total: {
    help: 'Proof requests dropped because nobody needed them any more (waiting, under way, or made too late)',
    origin: 'own',
  },
  logos_peer_penalties_total: {
    help: 'Offences recorded against peers, by weight (minor, major, relayed)',
    labels: ['offence'],
    origin: 'own',
  },
  logos_peer_bans_total: { help: 'Peers banned (disconnected and refused for a while)', origin: 'own' },
  logos_ibd_blocks_applied_total: { help: 'Blocks applied by initial block download', origin: 'own' },
};

export const HISTOGRAMS: Readonly<Record<HistogramName, HistogramDef>> = {
  consensus_apply_block_seconds: {
    help: 'Time from a block reaching the chain to its commit (checks, proofs, fork choice, storage), for blocks applied',
    buckets: SECONDS,
    origin: 'reference',
  },
  chainsync_download_blocks_seconds: {
    help: 'Time of one chain sync block download from a peer (request to its last block)',
    buckets: SECONDS,
    origin: 'reference',
  },
  storage_request_duration_seconds: {
    help: 'Time of a successful storage commit of a block',
    buckets: SECONDS,
    origin: 'reference',
  },
  logos_proof_seconds: {
    help: 'Proving time of a proof, by circuit',
    labels: ['circuit'],
    buckets: PROOF_SECONDS,
    origin: 'own',
  },
};

/** Values read from the node's state at each scrape. */
export type GaugeName =
  | 'consensus_tip_height'
  | 'consensus_finalized_height'
  | 'consensus_current_slot'
  | 'consensus_current_epoch'
  | 'consensus_forks_count'
  | 'consensus_peers_connected'
  | 'consensus_connections'
  | 'orphan_blocks_pending'
  | 'mempool_transactions_pending'
  | 'blend_peers_connected'
  | 'time_current_slot'
  | 'time_current_epoch'
  | 'logos_bootstrap_phase'
  | 'logos_consensus_online'
  | 'logos_prover_queue_depth'
  | 'logos_peers_banned'
  | 'logos_peers_penalized'
  | 'logos_ibd_target_height'
  | 'logos_ibd_remaining_blocks'
  | 'logos_ibd_blocks_per_second';

export const GAUGES: Readonly<Record<GaugeName, MetricDef>> = {
  consensus_tip_height: { help: 'Height of the tip', origin: 'reference' },
  consensus_finalized_height: { help: 'Height of the latest immutable block (LIB)', origin: 'reference' },
  consensus_current_slot: { help: 'The slot of the tip', origin: 'reference' },
  consensus_current_epoch: { help: 'The epoch of the tip', origin: 'reference' },
  consensus_forks_count: {
    help: 'Branches of the block tree above the LIB (fork tips)',
    origin: 'reference',
  },
  consensus_peers_connected: { help: 'Peers with an open connection', origin: 'reference' },
  consensus_connections: { help: 'Open connections to peers', origin: 'reference' },
  orphan_blocks_pending: { help: 'Orphan downloads waiting', origin: 'reference' },
  mempool_transactions_pending: { help: 'Transactions in the mempool', origin: 'reference' },
  blend_peers_connected: {
    help: 'Blend core peers of the current epoch that are healthy',
    origin: 'reference',
  },
  time_current_slot: { help: 'The current slot of the slot clock', origin: 'reference' },
  time_current_epoch: { help: 'The epoch of the current slot', origin: 'reference' },
  logos_bootstrap_phase: {
    help: 'The bootstrap phase: 1 for the current one, 0 for the others',
    labels: ['phase'],
    origin: 'own',
  },
  logos_consensus_online: { help: '1 when consensus is Online, 0 while Bootstrapping', origin: 'own' },
  logos_prover_queue_depth: { help: 'Proof requests waiting for a free prover', origin: 'own' },
  logos_peers_banned: { help: 'Peers banned now', origin: 'own' },
  logos_peers_penalized: { help: 'Peers with offences not yet decayed', origin: 'own' },
  logos_ibd_target_height: {
    help: 'The highest tip height peers announced during initial block download (0 outside it)',
    origin: 'own',
  },
  logos_ibd_remaining_blocks: {
    help: 'Blocks initial block download still has to apply (0 outside it)',
    origin: 'own',
  },
  logos_ibd_blocks_per_second: {
    help: 'Blocks per second initial block download applied since it started (0 outside it)',
    origin: 'own',
  },
};

/** Counters the metrics service counts from the chain's and the mempool's events and the API's requests. */
export const EVENT_COUNTERS = {
  consensus_blocks_imported_total: { help: 'Blocks the chain accepted and stored', origin: 'reference' },
  consensus_block_transactions_total: {
    help: 'Transactions in the blocks the chain accepted',
    origin: 'reference',
  },
  mempool_transactions_added_total: { help: 'Transactions admitted to the mempool', origin: 'reference' },
  http_requests_total: {
    help: 'API requests, by method and endpoint (the route template; unmatched for any other path)',
    labels: ['method', 'endpoint'],
    origin: 'reference',
  },
  http_requests_failed_total: {
    help: 'API requests answered with another status than 200, by method, endpoint and status',
    labels: ['method', 'endpoint', 'status'],
    origin: 'reference',
  },
} as const satisfies Record<string, MetricDef>;

export const HTTP_DURATION: HistogramDef = {
  help: 'Time to answer an API request with 200, by method and endpoint (status 200, status_class 2xx)',
  labels: ['method', 'endpoint', 'status', 'status_class'],
  buckets: SECONDS,
  origin: 'reference',
};
