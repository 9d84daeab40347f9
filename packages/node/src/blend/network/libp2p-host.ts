/**
 * The libp2p node under the Blend swarm (F `services/blend/src/core/backends/libp2p/swarm.rs`
 * `SwarmBuilder`): QUIC v1 only, the identity of the node's Blend Ed25519 signing key (so its peer id
 * is the SDP provider id), no gossipsub, Kademlia nor identify: the Blend protocol is the only one
 * served. Blocked peers are refused both ways by the connection gater.
 */
import { quic } from '@chainsafe/libp2p-quic';
import { generateKeyPairFromSeed } from '@libp2p/crypto/keys';
import type { PeerId } from '@libp2p/interface';
import type { Multiaddr } from '@multiformats/multiaddr';
import { createLibp2p, type Libp2p } from 'libp2p';

export interface BlendHostOptions {
  /** The 32-byte Ed25519 seed of the node's Blend signing key. */
  readonly signingKeySeed: Uint8Array;
  readonly listenAddress: Multiaddr;
  /** Upper bound of open connections (core peers of two epochs, edge connections, sends as edge). */
  readonly maxConnections: number;
  readonly isBlocked: (peer: string) => boolean;
}

export async function createBlendHost(opts: BlendHostOptions): Promise<Libp2p> {
  const privateKey = await generateKeyPairFromSeed('Ed25519', opts.signingKeySeed);
  const blocked = (p: PeerId) => opts.isBlocked(p.toString());
  return createLibp2p({
    start: false,
    privateKey,
    addresses: { listen: [opts.listenAddress.toString()] },
    transports: [quic()],
    connectionGater: {
      denyDialPeer: blocked,
      denyInboundEncryptedConnection: blocked,
      denyOutboundEncryptedConnection: blocked,
    },
    connectionManager: {
      maxConnections: opts.maxConnections,
      // Edge nodes open one connection per message, many from one address (a NAT): the swarm bounds
      // them itself (`max_edge_node_incoming_connections`).
      inboundConnectionThreshold: opts.maxConnections,
      reconnectRetries: 0,
    },
  });
}
