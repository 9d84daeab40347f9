/**
 * The API server's options: the `api.backend` section of the node's configuration, as the node
 * passes it in (the node parses the file; the API does not read the node's configuration itself).
 */
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
}

export interface ApiServerOptions {
  readonly backend: ApiBackendConfig;
}
