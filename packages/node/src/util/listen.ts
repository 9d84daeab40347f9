/** What the node's listeners (the API, the metrics endpoint) share: their address and its failures. */

/** `host:port` (`[v6]:port`) split into the host without brackets and the port. */
export function splitHostPort(s: string): [string, number] {
  const i = s.lastIndexOf(':');
  const host = s.slice(0, i).replace(/^\[|\]$/g, '');
  return [host, Number(s.slice(i + 1))];
}

/** Why a listen address cannot be bound, in words. */
export function listenFailure(e: NodeJS.ErrnoException): string {
  switch (e.code) {
    case 'EADDRINUSE':
      return 'the address is already in use';
    case 'EADDRNOTAVAIL':
      return 'the address is not one of this machine';
    case 'EACCES':
      return 'permission denied';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'the host name does not resolve';
    default:
      return e.message;
  }
}
