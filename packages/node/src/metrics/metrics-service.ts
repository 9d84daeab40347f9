/**
 * The metrics service: a Prometheus registry (prom-client) of the metrics of catalog.ts, served as
 * text at `GET /metrics` on its own listener (`metrics.listen_address`), never on the API's port.
 * The services count into it through the `Meter` it hands out; gauges read the node's state when
 * scraped; the chain's and the mempool's events and the API's answers are counted as they come.
 * Without a listener the meter does nothing and nothing is kept.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConfigError } from '@logos-ts/shared/config-fields';
import type { Logger } from 'pino';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { listenFailure, splitHostPort } from '../util/listen.ts';
import { type CounterName, type HistogramName, type Meter, NO_METER } from '../util/meter.ts';
import {
  COUNTERS,
  EVENT_COUNTERS,
  GAUGES,
  type GaugeName,
  HISTOGRAMS,
  HTTP_DURATION,
  type MetricDef,
} from './catalog.ts';
import type { MetricsSection } from './config.ts';
import type { IMetrics, MetricsEvents, MetricsSources } from './interface.ts';

/** The bootstrap phases, each a fixed label value of `logos_bootstrap_phase`. */
const PHASES = ['AwaitingGenesisTime', 'InitialBlockDownload', 'ProlongedBootstrapPeriod', 'Following'];
/** HTTP methods as labels; any other is `other` (the label set stays bounded). */
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS']);

export interface MetricsDeps {
  readonly logger: Logger;
}

export class MetricsService implements IMetrics {
  readonly registry = new Registry();
  readonly meter: Meter;
  private readonly counters = new Map<string, Counter>();
  private readonly histograms = new Map<string, Histogram>();
  private readonly gauges = new Map<GaugeName, Gauge>();
  private sources: MetricsSources | undefined;
  private server: Server | undefined;
  private address: string | undefined;
  /** Each kept counter's value at the previous scrape (the exported counter adds the difference). */
  private readonly keptSeen = new Map<string, number>();

  private constructor(
    private readonly enabled: boolean,
    private readonly logger: Logger,
  ) {
    if (!enabled) {
      this.meter = NO_METER;
      return;
    }
    for (const [name, def] of [...Object.entries(COUNTERS), ...Object.entries(EVENT_COUNTERS)])
      this.counters.set(name, this.counter(name, def));
    for (const [name, def] of Object.entries(HISTOGRAMS))
      this.histograms.set(name, this.histogram(name, def));
    this.histograms.set(
      'http_request_duration_seconds',
      this.histogram('http_request_duration_seconds', HTTP_DURATION),
    );
    for (const [name, def] of Object.entries(GAUGES) as [GaugeName, MetricDef][])
      this.gauges.set(
        name,
        new Gauge({ name, help: def.help, labelNames: def.labels ?? [], registers: [this.registry] }),
      );
    const counters = this.counters;
    this.meter = {
      count(name: CounterName, n = 1, labels?: Readonly<Record<string, string>>) {
        const c = counters.get(name)!;
        if (labels) c.inc(labels, n);
        else c.inc(n);
      },
      observe: (name: HistogramName, seconds: number, labels?: Readonly<Record<string, string>>) => {
        const h = this.histograms.get(name)!;
        if (labels) h.observe(labels, seconds);
        else h.observe(seconds);
      },
    };
  }

  /**
   * The metrics of a node: bound to `metrics.listen_address` when it is set (an address that cannot be
   * bound is a `ConfigError` naming the key, so the node stops before it writes anything), or off.
   */
  static async init(config: MetricsSection, deps: MetricsDeps): Promise<MetricsService> {
    const address = config.listen_address;
    if (address === null) return new MetricsService(false, deps.logger);
    const svc = new MetricsService(true, deps.logger);
    try {
      await svc.listen(address);
    } catch (e) {
      if (config.configured || !(e instanceof ConfigError)) throw e;
      deps.logger.warn(
        { err: e.message },
        'metrics not served: the default address is taken (set metrics.listen_address, or null to say none)',
      );
      return new MetricsService(false, deps.logger);
    }
    return svc;
  }

  get listening(): string | undefined {
    return this.address;
  }

  watch(sources: MetricsSources, events: MetricsEvents): void {
    if (!this.enabled) return;
    this.sources = sources;
    const imported = this.counters.get('consensus_blocks_imported_total')!;
    const txs = this.counters.get('consensus_block_transactions_total')!;
    events.onBlock((n) => {
      imported.inc();
      txs.inc(n);
    });
    const added = this.counters.get('mempool_transactions_added_total')!;
    events.onTxAdded(() => added.inc());
  }

  // As F's API middleware: every request counted; those not answered 200 as failed, with their status;
  // the duration of those answered 200 (nodes/api-common/src/metrics.rs).
  // inferred: counted when answered, `unmatched` for a path no route matches (docs/design/fidelity.md "Metrics")
  httpAnswered(method: string, endpoint: string, status: number, seconds: number): void {
    if (!this.enabled) return;
    const m = METHODS.has(method) ? method : 'other';
    this.counters.get('http_requests_total')!.inc({ method: m, endpoint });
    if (status !== 200)
      this.counters.get('http_requests_failed_total')!.inc({ method: m, endpoint, status: String(status) });
    else
      this.histograms
        .get('http_request_duration_seconds')!
        .observe({ method: m, endpoint, status: '200', status_class: '2xx' }, seconds);
  }

  /** The text a scrape gets (Prometheus exposition format 0.0.4). */
  async scrape(): Promise<string> {
    // The gauges and the kept counters first, so that a series seen for the first time is in this scrape.
    this.read();
    return this.registry.metrics();
  }

  async close(): Promise<void> {
    const server = this.server;
    if (server === undefined) return;
    this.server = undefined;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }

  // ---------- inside ----------

  private counter(name: string, def: MetricDef): Counter {
    return new Counter({ name, help: def.help, labelNames: def.labels ?? [], registers: [this.registry] });
  }

  private histogram(name: string, def: MetricDef & { readonly buckets: readonly number[] }): Histogram {
    return new Histogram({
      name,
      help: def.help,
      labelNames: def.labels ?? [],
      buckets: [...def.buckets],
      registers: [this.registry],
    });
  }

  /** Sets every gauge from the node's state, and the counters the services keep themselves. */
  private read(): void {
    const s = this.sources;
    if (s === undefined) return;
    const set = (name: GaugeName, v: number | bigint) => this.gauges.get(name)!.set(Number(v));
    const tipSlot = s.tipSlot();
    set('consensus_tip_height', s.tipHeight());
    set('consensus_finalized_height', s.libHeight());
    set('consensus_current_slot', tipSlot);
    set('consensus_current_epoch', s.epochOf(tipSlot));
    const slot = s.currentSlot();
    set('time_current_slot', slot);
    set('time_current_epoch', s.epochOf(slot));
    set('consensus_forks_count', s.forks());
    set('consensus_peers_connected', s.peersConnected());
    set('consensus_connections', s.connections());
    set('orphan_blocks_pending', s.orphansPending());
    set('mempool_transactions_pending', s.mempoolPending());
    set('blend_peers_connected', s.blendPeersConnected());
    set('logos_consensus_online', s.online() ? 1 : 0);
    set('logos_prover_queue_depth', s.proverQueue());
    const scores = s.peerScores();
    set('logos_peers_banned', scores.banned);
    set('logos_peers_penalized', scores.penalized);
    const phase = s.phase();
    const phases = this.gauges.get('logos_bootstrap_phase')!;
    for (const p of PHASES) phases.set({ phase: p }, p === phase ? 1 : 0);
    const ibd = s.ibd();
    set('logos_ibd_target_height', ibd?.targetHeight ?? 0);
    set('logos_ibd_remaining_blocks', ibd ? Math.max(0, ibd.targetHeight - s.tipHeight()) : 0);
    set('logos_ibd_blocks_per_second', ibd?.rate ?? 0);
    // A kept counter adds what it grew by since the previous scrape (it never goes down).
    for (const k of s.kept()) {
      const key = k.labels ? `${k.name}${JSON.stringify(k.labels)}` : k.name;
      const grew = k.value - (this.keptSeen.get(key) ?? 0);
      if (grew <= 0) continue;
      this.keptSeen.set(key, k.value);
      const c = this.counters.get(k.name)!;
      if (k.labels) c.inc(k.labels, grew);
      else c.inc(grew);
    }
  }

  private async listen(address: string): Promise<void> {
    const [host, port] = splitHostPort(address);
    const server = createServer((req, res) => {
      const path = (req.url ?? '').split('?')[0];
      if (path !== '/metrics') {
        res
          .writeHead(404, { 'content-type': 'text/plain; charset=utf-8' })
          .end('not found: the metrics are at /metrics\n');
        return;
      }
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        res
          .writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' })
          .end('only GET\n');
        return;
      }
      this.scrape().then(
        (text) => {
          res.writeHead(200, { 'content-type': this.registry.contentType });
          res.end(req.method === 'HEAD' ? undefined : text);
        },
        (e: Error) => {
          this.logger.warn({ err: e.message }, 'a metrics scrape failed');
          res
            .writeHead(500, { 'content-type': 'text/plain; charset=utf-8' })
            .end('the metrics could not be read\n');
        },
      );
    });
    server.keepAliveTimeout = 5_000;
    server.requestTimeout = 10_000;
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          server.off('error', reject);
          resolve();
        });
      });
    } catch (e) {
      throw new ConfigError(
        `metrics.listen_address: cannot listen on ${address}: ${listenFailure(e as NodeJS.ErrnoException)}`,
      );
    }
    server.on('error', (e) => this.logger.warn({ err: e.message }, 'the metrics listener failed'));
    this.server = server;
    // The process's own figures (CPU, memory, event-loop delay, heap), once there is a listener.
    collectDefaultMetrics({ register: this.registry });
    const a = server.address() as AddressInfo;
    this.address = a.family === 'IPv6' ? `[${a.address}]:${a.port}` : `${a.address}:${a.port}`;
    this.logger.info({ address: this.address }, 'metrics served at /metrics');
  }
}
