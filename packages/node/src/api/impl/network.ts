/** Handlers of the network namespace (routes/network.ts): the libp2p node's state, dialling a peer. */
import { DialFailed } from '../../network/index.ts';
import { ApiError } from '../errors.ts';
import type { networkRoutes } from '../routes/network.ts';
import type { ApiContext, Handlers } from '../types.ts';
import { json } from './reply.ts';

export const networkHandlers: Handlers<typeof networkRoutes, Pick<ApiContext, 'network'>> = {
  networkInfo(ctx) {
    const i = ctx.network.info();
    // F's field order (Libp2pInfo).
    return json({
      listen_addresses: i.listen_addresses,
      peer_id: i.peer_id,
      connected_peers: i.connected_peers,
      n_peers: i.n_peers,
      n_connections: i.n_connections,
      n_pending_connections: i.n_pending_connections,
      discovered_peers: i.discovered_peers,
      n_discovered_peers: i.n_discovered_peers,
    });
  },
  async networkDialPeer(ctx, { body }) {
    try {
      return json(await ctx.network.dial(body.addr));
    } catch (e) {
      // F: a dial error answers 500 with its text (json_response).
      if (e instanceof DialFailed) throw new ApiError(500, e.message);
      throw e;
    }
  },
};
