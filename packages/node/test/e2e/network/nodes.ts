/** Network services for the network tests: loopback QUIC on an ephemeral port, the test protocol names. */
import type { Logger } from 'pino';
import pino from 'pino';
import { DEFAULT_NETWORK, NetworkService } from '../../../src/network/index.ts';
import type { LogosLibp2p, ProtocolNames } from '../../../src/network/libp2p-node.ts';

export const TEST_PROTOCOLS = {
  kademlia: '/logos-blockchain-test/kad/1.0.0',
  identify: '/logos-blockchain-test/identify/1.0.0',
};

/** A network service on 127.0.0.1 (any free port) dialling `initialPeers`, on the test names by default. */
export function startLoopbackNetwork(
  initialPeers: string[] = [],
  logger: Logger = pino({ level: 'silent' }),
  protocols: ProtocolNames = TEST_PROTOCOLS,
): Promise<NetworkService> {
  const d = DEFAULT_NETWORK.backend;
  return NetworkService.init(
    {
      network: {
        backend: { swarm: { ...d.swarm, host: '127.0.0.1', port: 0 }, initial_peers: initialPeers },
      },
      protocols,
    },
    { logger, signal: new AbortController().signal },
  );
}

/** The libp2p node behind a service (its peer store, gossipsub, protocols). */
export function libp2pOf(n: NetworkService): LogosLibp2p {
  return (n as unknown as { node: LogosLibp2p }).node;
}
