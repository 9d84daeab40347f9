/**
 * The `metrics` section of `user_config.yaml` (this node's own; the reference pushes OTLP from its
 * `tracing.metrics` settings instead): where the Prometheus endpoint listens.
 */
import { ConfigError, listenAddress, mapping, only } from '@logos-ts/shared/config-fields';

export interface MetricsSection {
  /** `host:port` of the `/metrics` listener; null: no listener. */
  readonly listen_address: string | null;
  /**
   * Whether the address was configured: then a taken address stops the node. The default address,
   * taken (by another node on the machine), leaves the node without metrics and says so.
   */
  readonly configured: boolean;
}

/** Loopback only by default: the figures tell an outsider what the node holds and whom it talks to. */
const DEFAULT_LISTEN = '127.0.0.1:9400';
// inferred: a pull endpoint of this node's own; F pushes OTLP (docs/design/fidelity.md "Metrics")
export const DEFAULT_METRICS: MetricsSection = { listen_address: DEFAULT_LISTEN, configured: false };

/** Parses the `metrics` section (absent: the default listener; `listen_address: null`: none). */
export function parseMetricsSection(raw: unknown): MetricsSection {
  const m = mapping(raw, 'metrics');
  only(m, ['listen_address'], 'metrics');
  if (m.listen_address === null) return { listen_address: null, configured: true };
  if (m.listen_address === undefined) return DEFAULT_METRICS;
  if (m.listen_address !== undefined && typeof m.listen_address !== 'string')
    throw new ConfigError('metrics.listen_address: expected host:port or null');
  return {
    listen_address: listenAddress(m.listen_address, DEFAULT_LISTEN, 'metrics.listen_address'),
    configured: true,
  };
}
