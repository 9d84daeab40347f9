/**
 * What a service counts and times for the node's metrics, without knowing how they are exported: a
 * service takes a `Meter` among its dependencies (absent: `NO_METER`, which does nothing) and calls it
 * where something happens. The names are the exported metrics' own (src/metrics/catalog.ts says where
 * each comes from); values read from a service's state at scrape time (heights, counts of peers) are
 * not counted here but read by the metrics service.
 */

/** Counters: each call adds `n` (default 1). */
export type CounterName =
  | 'consensus_apply_block_failed_total'
  | 'consensus_proposals_created_total'
  | 'consensus_proposals_received_total'
  | 'consensus_proposals_ignored_total'
  | 'orphan_blocks_received_total'
  | 'orphan_blocks_enqueued_total'
  | 'orphan_blocks_removed_total'
  | 'chainsync_requests_total'
  | 'mempool_transactions_removed_total'
  | 'wallet_requests_total'
  | 'kms_sign_requests_total'
  | 'kms_sign_success_total'
  | 'kms_sign_failures_total'
  | 'blend_messages_sent_total'
  | 'blend_messages_received_total'
  | 'sdp_declarations_total'
  | 'sdp_activity_posts_total'
  | 'network_dial_failures_total'
  | 'storage_request_failed_total'
  | 'logos_proofs_dropped_total'
  | 'logos_peer_penalties_total'
  | 'logos_peer_bans_total'
  | 'logos_ibd_blocks_applied_total';

/** Histograms, in seconds. */
export type HistogramName =
  | 'consensus_apply_block_seconds'
  | 'chainsync_download_blocks_seconds'
  | 'storage_request_duration_seconds'
  | 'logos_proof_seconds';

/** Label values of one observation (a few fixed names each; the catalog bounds their values). */
export type MeterLabels = Readonly<Record<string, string>>;

export interface Meter {
  count(name: CounterName, n?: number, labels?: MeterLabels): void;
  observe(name: HistogramName, seconds: number, labels?: MeterLabels): void;
}

/** The meter of a node without metrics: every call does nothing. */
export const NO_METER: Meter = {
  count() {},
  observe() {},
};

/** Seconds since `t0` (a `performance.now()` reading). */
export const secondsSince = (t0: number): number => (performance.now() - t0) / 1000;
