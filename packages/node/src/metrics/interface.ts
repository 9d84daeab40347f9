/**
 * What the metrics service reads of the node at each scrape, and what it gives the services: a
 * `Meter` (src/util/meter.ts) that counts into its registry, and the hook of the API's answers.
 */
import type { IbdProgress } from '../sync/index.ts';
import type { CounterName, Meter, MeterLabels } from '../util/meter.ts';

/** A counter a service keeps itself: its value since the node started. */
export interface KeptCount {
  readonly name: CounterName;
  readonly value: number;
  readonly labels?: MeterLabels;
}

/** The node's state the gauges read (each a cheap read of the services' memory). */
export interface MetricsSources {
  readonly tipHeight: () => number;
  readonly tipSlot: () => bigint;
  readonly libHeight: () => number;
  readonly online: () => boolean;
  readonly currentSlot: () => bigint;
  readonly epochOf: (slot: bigint) => number;
  /** Fork tips other than the tip. */
  readonly forks: () => number;
  readonly peersConnected: () => number;
  readonly connections: () => number;
  readonly peerScores: () => { readonly banned: number; readonly penalized: number };
  readonly orphansPending: () => number;
  readonly mempoolPending: () => number;
  readonly blendPeersConnected: () => number;
  readonly proverQueue: () => number;
  /** Counters the services keep (proposals made and received, orphans, dropped proofs, IBD blocks). */
  readonly kept: () => readonly KeptCount[];
  readonly phase: () => string;
  /** Null outside initial block download. */
  readonly ibd: () => Pick<IbdProgress, 'targetHeight' | 'rate'> | null;
}

/** Events the metrics service counts: the chain's imported blocks and the mempool's admissions. */
export interface MetricsEvents {
  onBlock(listener: (txs: number) => void): void;
  onTxAdded(listener: () => void): void;
}

export interface IMetrics {
  /** Counts and times for the services (does nothing when the node has no metrics listener). */
  readonly meter: Meter;
  /** `host:port` the listener is bound to; undefined when off. */
  readonly listening: string | undefined;
  /** An API request was answered: its method, route template (or `unmatched`), status and duration. */
  httpAnswered(method: string, endpoint: string, status: number, seconds: number): void;
  /** Starts reading the node: its state at each scrape, its events as they come. */
  watch(sources: MetricsSources, events: MetricsEvents): void;
}
