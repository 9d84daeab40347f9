/**
 * The API's section of `user_config.yaml` (`api.backend`): its type, the reference defaults and its
 * parser. The node parses the file and passes the section in; the API reads no other configuration.
 */
import { ConfigError, int, listenAddress, mapping, only, seconds } from '@logos-ts/shared/config-fields';
import { type ApiAuthConfig, parseAuth } from './auth.ts';

/** The API server's options: the `api.backend` section. */
export interface ApiBackendConfig {
  /** `host:port` to listen on. */
  readonly listen_address: string;
  /** Browser origins allowed; empty: any origin may read, none may call a state-changing endpoint. */
  readonly cors_origins: readonly string[];
  /**
   * Host names (or `host:port`) the API answers for besides the listen address, `localhost`,
   * `127.0.0.1` and `[::1]` on its port: the names it is reached by through a proxy or from other
   * machines. Any other `Host` header is refused (DNS rebinding).
   */
  readonly allowed_hosts: readonly string[];
  /** Seconds. */
  readonly timeout: number;
  readonly max_body_size: number;
  readonly max_concurrent_requests: number;
  /** Authentication of requests (this node's own); null: none, as the reference. */
  readonly auth: ApiAuthConfig | null;
}

export interface ApiServerOptions {
  readonly backend: ApiBackendConfig;
  /**
   * `--insecure-api-binding`: serve on an address other machines can reach without authentication
   * (refused otherwise).
   */
  readonly insecureBinding?: boolean;
  /**
   * Told of each request answered: its method, endpoint (the route template, `unmatched` when no
   * route matched), status and duration (the node's metrics).
   */
  readonly onAnswered?: (method: string, endpoint: string, status: number, seconds: number) => void;
}

/** The reference node's defaults of `api.backend`. */
export const DEFAULT_API_BACKEND: ApiBackendConfig = {
  listen_address: '127.0.0.1:8080',
  cors_origins: [],
  allowed_hosts: [],
  timeout: 30,
  max_body_size: 10_485_760,
  max_concurrent_requests: 500,
  auth: null,
};

/** Parses the `api` section of `user_config.yaml` (missing keys take the defaults). */
export function parseApiSection(raw: unknown): { readonly backend: ApiBackendConfig } {
  const D = DEFAULT_API_BACKEND;
  const api = mapping(raw, 'api');
  only(api, ['backend'], 'api');
  const ab = mapping(api.backend, 'api.backend');
  only(
    ab,
    [
      'listen_address',
      'cors_origins',
      'allowed_hosts',
      'timeout',
      'max_body_size',
      'max_concurrent_requests',
      'auth',
    ],
    'api.backend',
  );
  const cors = ab.cors_origins === undefined ? [] : ab.cors_origins;
  if (!Array.isArray(cors) || cors.some((c) => typeof c !== 'string'))
    throw new ConfigError('api.backend.cors_origins: expected a list of strings');
  const hosts = ab.allowed_hosts === undefined ? [] : ab.allowed_hosts;
  if (
    !Array.isArray(hosts) ||
    hosts.some((h) => typeof h !== 'string' || !/^([A-Za-z0-9.-]+|\[[0-9a-fA-F:.]+\])(:\d{1,5})?$/.test(h))
  )
    throw new ConfigError(
      'api.backend.allowed_hosts: expected a list of host names or host:port ([v6] in brackets)',
    );
  return {
    backend: {
      listen_address: listenAddress(ab.listen_address, D.listen_address, 'api.backend.listen_address'),
      cors_origins: cors as string[],
      allowed_hosts: hosts as string[],
      timeout: seconds(ab.timeout, D.timeout, 'api.backend.timeout'),
      max_body_size: int(ab.max_body_size, D.max_body_size, 'api.backend.max_body_size', 1),
      max_concurrent_requests: int(
        ab.max_concurrent_requests,
        D.max_concurrent_requests,
        'api.backend.max_concurrent_requests',
        1,
      ),
      auth: parseAuth(ab.auth),
    },
  };
}
