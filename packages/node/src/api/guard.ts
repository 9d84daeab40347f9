/**
 * Who may talk to the API: the `Host` a request names and the browser `Origin` it comes from.
 *
 * - `Host` must be the listen address, `localhost`, `127.0.0.1` or `[::1]` on the API's port, or a
 *   name of `allowed_hosts`: a web page that rebinds its own DNS name to 127.0.0.1 (DNS rebinding)
 *   names itself in `Host` and is refused (421).
 * - A state-changing route (`routeMutates`) refuses a request carrying a browser `Origin`, and its
 *   CORS preflight, unless `cors_origins` lists that origin or the origin is the API's own (a page it
 *   serves, the Swagger UI). Reads stay open to any origin, as in the reference.
 *
 * This is a deliberate difference from the reference node, which checks neither.
 */
import type { ApiBackendConfig } from './config.ts';
import { Rejection } from './errors.ts';

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];

/** `host` or `host:port` of a Host header or an allowed_hosts entry, lower case (IPv6 in brackets). */
function splitHost(value: string): { name: string; port: string | undefined } {
  const v = value.trim().toLowerCase();
  if (v.startsWith('[')) {
    const end = v.indexOf(']');
    if (end < 0) return { name: v, port: undefined };
    const rest = v.slice(end + 1);
    return { name: v.slice(0, end + 1), port: rest.startsWith(':') ? rest.slice(1) : undefined };
  }
  const i = v.lastIndexOf(':');
  return i < 0 ? { name: v, port: undefined } : { name: v.slice(0, i), port: v.slice(i + 1) };
}

export class RequestGuard {
  /** `name:port` forms accepted (built once the port is known). */
  private readonly exact = new Set<string>();
  /** Names accepted on any port (allowed_hosts entries without a port). */
  private readonly anyPort = new Set<string>();

  constructor(private readonly backend: Pick<ApiBackendConfig, 'cors_origins' | 'allowed_hosts'>) {
    for (const entry of backend.allowed_hosts) {
      const { name, port } = splitHost(entry);
      if (port === undefined) this.anyPort.add(name);
      else this.exact.add(`${name}:${port}`);
    }
  }

  /** Sets the address the API listens on: its host (IPv6 in brackets) and its real port. */
  listening(host: string, port: number): void {
    const name = splitHost(host.includes(':') && !host.startsWith('[') ? `[${host}]` : host).name;
    for (const n of [name, ...LOOPBACK_NAMES]) this.exact.add(`${n}:${port}`);
  }

  /** Throws a 421 unless `host` (a Host header) is one the API answers for. A missing Host (HTTP/1.0) passes. */
  checkHost(host: string | undefined): void {
    if (host === undefined) return;
    const { name, port } = splitHost(host);
    const effectivePort = port ?? '80';
    if (this.anyPort.has(name)) return;
    if (this.exact.has(`${name}:${effectivePort}`)) return;
    throw new Rejection(
      421,
      'Misdirected request: this node does not answer for this Host (see api.backend.allowed_hosts)',
    );
  }

  /**
   * Throws a 403 unless a request with this `Origin` may call a state-changing route: no Origin (not
   * a browser, or not cross-origin), an origin of `cors_origins`, or the API's own origin.
   */
  checkOrigin(origin: string | undefined, host: string | undefined): void {
    if (origin === undefined) return;
    if (this.backend.cors_origins.includes(origin)) return;
    if (host !== undefined && origin.toLowerCase() === `http://${host.toLowerCase()}`) return;
    throw new Rejection(
      403,
      'Forbidden: this origin may not call state-changing endpoints (see api.backend.cors_origins)',
    );
  }
}
