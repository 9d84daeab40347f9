/** Route definitions of the network namespace: the libp2p node's state, dialling a peer. */

import { multiaddr as parseMultiaddr } from '@multiformats/multiaddr';
import { array, object, type Schema, SchemaError, string, uint } from '../json-schema.ts';
import { def, type RouteDef } from '../route-def.ts';

/** F `Libp2pInfo` (services/network/src/backends/libp2p/command.rs), fields in its order. */
export const NetworkInfo = object({
  listen_addresses: array(string),
  peer_id: string,
  connected_peers: array(string),
  n_peers: uint('uint32'),
  n_connections: uint('uint32'),
  n_pending_connections: uint('uint32'),
  discovered_peers: array(string),
  n_discovered_peers: uint('uint32'),
});

/** A multiaddr in its text form, parsed as the reference's serde does (`Multiaddr::from_str`). */
const multiaddrText: Schema<string> = {
  jsonSchema: {
    type: 'string',
    description: 'a multiaddr, e.g. /ip4/1.2.3.4/udp/3000/quic-v1/p2p/12D3KooW…',
  },
  decode(v, path = '') {
    if (typeof v !== 'string') throw new SchemaError(path, 'a multiaddr string', v);
    try {
      return parseMultiaddr(v).toString();
    } catch {
      throw new SchemaError(path, 'a multiaddr', v);
    }
  },
};

export const DialPeerRequest = object({ addr: multiaddrText });

export const networkRoutes = {
  networkInfo: def({
    method: 'GET',
    path: '/network/info',
    tag: 'Network',
    summary: 'The peer-to-peer node: listen addresses, peer id, connected and discovered peers',
    response: { json: NetworkInfo },
    errors: [500],
  }),
  networkDialPeer: def({
    method: 'POST',
    path: '/network/dial_peer',
    tag: 'Network',
    summary: 'Dials a multiaddr; answers the peer id once connected',
    body: DialPeerRequest,
    response: { json: string },
    errors: [500],
  }),
} as const satisfies Record<string, RouteDef>;
