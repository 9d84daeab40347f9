/**
 * The mempool's section of `user_config.yaml` (`mempool`), a section of this node only (the reference
 * has no bound on its pool): how many transactions and how many encoded bytes the pool holds at most,
 * and how many threads verify proofs on admission. The TTL is the deployment's (`mempool.tx_ttl`).
 */
import { availableParallelism } from 'node:os';
import { ConfigError, int, mapping, only } from '@logos-ts/shared/config-fields';

export interface MempoolSection {
  /** Pending transactions held at most. */
  readonly max_pending_txs: number;
  /** Encoded bytes of pending transactions held at most. */
  readonly max_pending_bytes: number;
  /** Pending transactions that do not apply on the view, held at most (within `max_pending_txs`). */
  readonly max_unapplied_txs: number;
  /** Proof-verification worker threads; null: one per available core. */
  readonly verifier_threads: number | null;
}

export const DEFAULT_MEMPOOL: MempoolSection = {
  max_pending_txs: 100_000,
  max_pending_bytes: 256 * 1024 * 1024,
  max_unapplied_txs: 1024,
  verifier_threads: null,
};

export function parseMempoolSection(raw: unknown): MempoolSection {
  const m = mapping(raw, 'mempool');
  only(m, ['max_pending_txs', 'max_pending_bytes', 'max_unapplied_txs', 'verifier_threads'], 'mempool');
  const threads =
    m.verifier_threads === undefined || m.verifier_threads === null
      ? null
      : int(m.verifier_threads, 1, 'mempool.verifier_threads', 1);
  if (threads !== null && threads > 256) throw new ConfigError('mempool.verifier_threads: at most 256');
  return {
    max_pending_txs: int(m.max_pending_txs, DEFAULT_MEMPOOL.max_pending_txs, 'mempool.max_pending_txs', 1),
    max_pending_bytes: int(
      m.max_pending_bytes,
      DEFAULT_MEMPOOL.max_pending_bytes,
      'mempool.max_pending_bytes',
      1,
    ),
    max_unapplied_txs: int(
      m.max_unapplied_txs,
      DEFAULT_MEMPOOL.max_unapplied_txs,
      'mempool.max_unapplied_txs',
      1,
    ),
    verifier_threads: threads,
  };
}

/** The verifier pool's size for a section: its setting, else the available cores. */
export function verifierThreads(s: MempoolSection): number {
  return s.verifier_threads ?? availableParallelism();
}

/** What the service takes: the user section's bounds and the deployment's TTL. */
export interface MempoolConfig {
  readonly maxPendingTxs: number;
  readonly maxPendingBytes: number;
  /** Pending transactions that do not apply on the view, held at most. */
  readonly maxUnappliedTxs: number;
  /** ms; null: no expiry. */
  readonly txTtlMs: number | null;
}

export function mempoolConfig(section: MempoolSection, txTtlMs: number | null): MempoolConfig {
  return {
    maxPendingTxs: section.max_pending_txs,
    maxPendingBytes: section.max_pending_bytes,
    maxUnappliedTxs: section.max_unapplied_txs,
    txTtlMs,
  };
}
