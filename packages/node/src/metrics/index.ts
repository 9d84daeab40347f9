/**
 * The metrics service: the only way into `metrics/` from outside. A listen address that cannot be bound
 * is a `ConfigError` naming `metrics.listen_address`, as the API's is.
 */
export { COUNTERS, EVENT_COUNTERS, GAUGES, HISTOGRAMS } from './catalog.ts';
export { DEFAULT_METRICS, type MetricsSection, parseMetricsSection } from './config.ts';
export type { IMetrics, KeptCount, MetricsEvents, MetricsSources } from './interface.ts';
export { type MetricsDeps, MetricsService } from './metrics-service.ts';
