/**
 * DNS multiaddrs resolved before a dial, as the reference's swarm does (F `libp2p/src/swarm.rs` builds
 * it `.with_dns()`: rust-libp2p's DNS transport). An address starting with `/dns4/<name>` dials the
 * name's IPv4 addresses, `/dns6/<name>` its IPv6 ones and `/dns/<name>` both; the rest of the address
 * (`/udp/<port>/quic-v1/p2p/<id>`) is kept. js-libp2p's QUIC transport dials IP addresses only.
 *
 * The lookup is the system's (`getaddrinfo`: the hosts file, then the configured servers), bounded in
 * time; a name that does not resolve, or not in time, fails the dial with `DnsLookupFailed`.
 */
import { lookup as systemLookup } from 'node:dns/promises';
import { type Component, type Multiaddr, multiaddr } from '@multiformats/multiaddr';
import { within } from '../util/abort.ts';
import { NetworkError } from './errors.ts';

// inferred: rust-libp2p's resolver has its own timeouts (hickory: 5 s a query); one bound of 5 s here (docs/design/fidelity.md)
export const DNS_LOOKUP_TIMEOUT_MS = 5_000;

/** The address family each DNS protocol asks for (0: both). */
const FAMILY: Readonly<Record<string, 0 | 4 | 6>> = { dns: 0, dns4: 4, dns6: 6 };
const CODE_IP4 = 4;
const CODE_IP6 = 41;

export type Lookup = (
  host: string,
  opts: { all: true; family: 0 | 4 | 6 },
) => Promise<readonly { address: string; family: number }[]>;

const systemLookupAll: Lookup = (host, opts) => systemLookup(host, opts);

/** A DNS name of a multiaddr that gave no address (unknown, no answer in time, or none of that family). */
export class DnsLookupFailed extends NetworkError {
  constructor(
    readonly host: string,
    reason: string,
  ) {
    super('NETWORK_DNS_FAILED', `DNS lookup of ${host} failed: ${reason}`, { host });
  }
}

/**
 * The IP addresses to dial for `addr`: `addr` itself when it does not start with a DNS name, else one
 * address per IP the name resolves to (in the resolver's order). Throws `DnsLookupFailed`.
 */
export async function resolveDnsMultiaddr(
  addr: Multiaddr,
  opts: { timeoutMs?: number; lookup?: Lookup } = {},
): Promise<Multiaddr[]> {
  const [first, ...rest] = addr.getComponents();
  if (first === undefined || !(first.name in FAMILY) || first.value === undefined) return [addr];
  const host = first.value;
  const family = FAMILY[first.name] ?? 0;
  const ms = opts.timeoutMs ?? DNS_LOOKUP_TIMEOUT_MS;
  let answers: readonly { address: string; family: number }[];
  try {
    answers = await within((opts.lookup ?? systemLookupAll)(host, { all: true, family }), ms, 'lookup');
  } catch (e) {
    const err = e as Error & { code?: string };
    const reason = err?.name === 'TimeoutError' ? `no answer within ${ms} ms` : (err?.code ?? err?.message);
    throw new DnsLookupFailed(host, String(reason));
  }
  const ips = answers.filter((a) => family === 0 || a.family === family);
  if (ips.length === 0) throw new DnsLookupFailed(host, `no ${family === 0 ? 'IP' : `IPv${family}`} address`);
  return ips.map((a) => {
    const ip: Component =
      a.family === 6
        ? { code: CODE_IP6, name: 'ip6', value: a.address }
        : { code: CODE_IP4, name: 'ip4', value: a.address };
    return multiaddr([ip, ...rest]);
  });
}
