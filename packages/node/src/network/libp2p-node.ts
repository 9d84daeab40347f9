/**
 * The libp2p node behind the network service, built as the reference's swarm is
 * (F `libp2p/src/swarm.rs`, `libp2p/src/behaviour/*`): QUIC v1 only (TLS 1.3 and native streams, no
 * TCP), an Ed25519 identity, gossipsub with Blake2b-256 message ids, unsigned messages and no peer
 * scoring, Kademlia on the deployment's protocol name, identify, and an AutoNAT v2 server and client.
 *
 * Two js-libp2p behaviours are adjusted to speak with the reference:
 * - gossipsub: the reference publishes with `MessageAuthenticity::Author` (`from` and `seqno` set, no
 *   signature) and validates nothing (`ValidationMode::None`). js gossipsub knows only `StrictSign`
 *   (wants a signature) and `StrictNoSign` (refuses `from`/`seqno`). This node publishes with
 *   `StrictNoSign` and, on receipt, validates an unsigned message as if its `from` and `seqno` were
 *   absent (`acceptUnsignedAuthor`, installed over the instance's `validateReceivedMessage`); the
 *   message kept and forwarded is the original one, unchanged.
 * - identify: both run the standard `/ipfs/id/1.0.0` and `/ipfs/id/push/1.0.0`; the deployment's
 *   identify name is the message's `protocolVersion` (F `libp2p/src/config/identify.rs`:
 *   `identify::Config::new(protocol_name, key)`, whose first argument is the protocol version). js
 *   identify builds its version from its protocol prefix (`ipfs/0.1.0`); the version it sends is set to
 *   the deployment's name before the node starts.
 */
import { isIP } from 'node:net';
import { quic } from '@chainsafe/libp2p-quic';
import { autoNATv2 } from '@libp2p/autonat-v2';
import { generateKeyPair, generateKeyPairFromSeed } from '@libp2p/crypto/keys';
import { type GossipSub, type GossipsubOpts, gossipsub, StrictNoSign } from '@libp2p/gossipsub';
import { identify, identifyPush } from '@libp2p/identify';
import {
  type AbortOptions,
  type ConnectionGater,
  type PeerId,
  type PrivateKey,
  serviceCapabilities,
} from '@libp2p/interface';
import { kadDHT, passthroughMapper } from '@libp2p/kad-dht';
import { createLibp2p, type Libp2p } from 'libp2p';
import { blake2b256 } from '../crypto/blake2b.ts';
import type { NetworkNames } from '../ledger/deployment-types.ts';
import type { GossipsubSettings } from './config.ts';

/** F `DATA_LIMIT`: gossipsub's max_transmit_size, 16 MiB. */
export const GOSSIP_MAX_TRANSMIT_BYTES = 16 * 1024 * 1024;
/** F `IDLE_CONN_TIMEOUT`: a connection without streams is closed after 5 minutes. */
export const IDLE_CONNECTION_MS = 5 * 60_000;

export interface ProtocolNames {
  readonly kademlia: string;
  /** The deployment's identify name: sent as identify's `protocolVersion` (not a stream protocol). */
  readonly identify: string;
}

/** The deployment's protocol names the main network speaks (F `network.{kademlia,identify}_protocol_name`). */
export function deploymentProtocols(
  names: Pick<NetworkNames, 'kademlia_protocol_name' | 'identify_protocol_name'>,
): ProtocolNames {
  return { kademlia: names.kademlia_protocol_name, identify: names.identify_protocol_name };
}

/** The identify stream protocols (rust-libp2p identify `PROTOCOL_NAME`, `PUSH_PROTOCOL_NAME`). */
export const IDENTIFY_PROTOCOL = '/ipfs/id/1.0.0';
export const IDENTIFY_PUSH_PROTOCOL = '/ipfs/id/push/1.0.0';

export interface Libp2pNodeOptions {
  readonly host: string;
  readonly port: number;
  readonly gossipsub: GossipsubSettings;
  readonly protocols: ProtocolNames;
  readonly gater: ConnectionGater;
}

export type Services = {
  pubsub: GossipSub;
  identify: unknown;
  identifyPush: unknown;
  autoNAT: unknown;
  dht: unknown;
  ping: unknown;
};
export type LogosLibp2p = Libp2p<Services>;

/** The fields of a gossipsub RPC message the inbound validation reads. */
export interface RpcMessage {
  from?: Uint8Array | null;
  seqno?: Uint8Array | null;
  signature?: Uint8Array | null;
  key?: Uint8Array | null;
  topic: string;
  data?: Uint8Array | null;
}

/**
 * What `StrictNoSign` validation should see of an inbound message: a message without signature nor
 * key but with `from`/`seqno` (the reference's `Author` messages) is validated without them. A signed
 * message is left as it is (and refused, as `StrictNoSign` refuses signatures).
 */
// inferred: F validates nothing; this accepts its unsigned Author messages and still refuses signed ones (docs/design/fidelity.md)
export function acceptUnsignedAuthor<M extends RpcMessage>(m: M): M {
  if (m.signature != null || m.key != null) return m;
  if (m.from == null && m.seqno == null) return m;
  return { ...m, from: undefined, seqno: undefined };
}

/** F `message_id_fn`: Blake2b-256 of the data, so identical payloads dedupe whoever sends them. */
export function gossipMessageId(msg: { data: Uint8Array }): Uint8Array {
  return blake2b256(msg.data);
}

type GossipFactory = ReturnType<typeof gossipsub>;

function relaxedGossipsub(init: Parameters<typeof gossipsub>[0]): GossipFactory {
  const make = gossipsub(init);
  return (components) => {
    const gs = make(components);
    const inner = gs as unknown as {
      validateReceivedMessage(src: PeerId, rpc: RpcMessage): Promise<unknown>;
    };
    const validate = inner.validateReceivedMessage.bind(gs);
    inner.validateReceivedMessage = (src, rpc) => validate(src, acceptUnsignedAuthor(rpc));
    return gs;
  };
}

/** js identify (or identify push) sending `protocolVersion` as its identify protocol version. */
function withProtocolVersion<F extends (components: never) => unknown>(make: F, protocolVersion: string): F {
  return ((components: never) => {
    const svc = make(components);
    // js identify keeps what it sends of itself in `host`; it is read when the service starts.
    (svc as unknown as { host: { protocolVersion: string } }).host.protocolVersion = protocolVersion;
    return svc;
  }) as F;
}

/**
 * The liveness check Kademlia runs before it adds a peer to its routing table (js kad-dht asks a
 * `ping` service). The reference runs no ping protocol, so a ping would fail against it; a peer counts
 * as alive when a connection to it is open or can be opened.
 */
// inferred: a peer is alive when a connection to it opens; F runs no ping (docs/design/fidelity.md)
function connectionLiveness(): (components: {
  connectionManager: { openConnection(peer: PeerId, options?: AbortOptions): Promise<unknown> };
}) => { ping(peer: PeerId, options?: AbortOptions): Promise<number> } {
  return (components) => ({
    // Declares the capability Kademlia requires.
    [serviceCapabilities]: ['@libp2p/ping'],
    async ping(peer, options) {
      const start = Date.now();
      await components.connectionManager.openConnection(peer, options);
      return Date.now() - start;
    },
  });
}

/**
 * F `libp2p/src/behaviour/mod.rs` builds gossipsub without `with_peer_score`: no peer is scored, so none
 * is graylisted, kept out of gossip or of publishing. js gossipsub always scores; with every weight at 0
 * each score stays 0, and thresholds of -Infinity are never crossed. Its defaults would otherwise count
 * more than 10 peers behind one IP address against each of them (IP colocation) until they are
 * graylisted, and penalise behaviour (broken IWANT promises, GRAFTs during a backoff).
 */
export const GOSSIP_NO_SCORING = {
  scoreParams: {
    topics: {},
    appSpecificWeight: 0,
    IPColocationFactorWeight: 0,
    behaviourPenaltyWeight: 0,
  },
  scoreThresholds: {
    gossipThreshold: Number.NEGATIVE_INFINITY,
    publishThreshold: Number.NEGATIVE_INFINITY,
    graylistThreshold: Number.NEGATIVE_INFINITY,
    // rust-libp2p without scoring takes peer exchange from any peer (a score of 0 is at this threshold).
    acceptPXThreshold: 0,
  },
} as const satisfies Pick<GossipsubOpts, 'scoreParams' | 'scoreThresholds'>;

/** The gossipsub options of this node: the configured parameters, F's fixed ones, no scoring. */
export function gossipsubOptions(g: GossipsubSettings): Partial<GossipsubOpts> {
  return {
    globalSignaturePolicy: StrictNoSign,
    msgIdFn: gossipMessageId,
    D: g.mesh_n,
    Dlo: g.mesh_n_low,
    Dhi: g.mesh_n_high,
    Dout: g.mesh_outbound_min,
    Dlazy: g.gossip_lazy,
    gossipFactor: g.gossip_factor,
    heartbeatInterval: g.heartbeat_interval_ms,
    fanoutTTL: g.fanout_ttl_ms,
    mcacheLength: g.history_length,
    mcacheGossip: g.history_gossip,
    seenTTL: g.duplicate_cache_time_ms,
    doPX: g.do_px,
    prunePeers: g.prune_peers,
    pruneBackoff: g.prune_backoff_ms,
    unsubcribeBackoff: g.unsubscribe_backoff_ms,
    floodPublish: g.flood_publish,
    graftFloodThreshold: g.graft_flood_threshold_ms,
    opportunisticGraftTicks: g.opportunistic_graft_ticks,
    opportunisticGraftPeers: g.opportunistic_graft_peers,
    gossipsubIWantFollowupMs: g.iwant_followup_time_ms,
    maxInboundDataLength: GOSSIP_MAX_TRANSMIT_BYTES,
    // F: a duplicate publish is ignored; no peers is the service's to retry.
    ignoreDuplicatePublishError: true,
    // A received message is forwarded once the node has judged it (`reportMessageValidationResult`).
    // inferred: F forwards before judging (docs/design/fidelity.md "Gossip forwarded once judged")
    asyncValidation: true,
    fallbackToFloodsub: false,
    ...GOSSIP_NO_SCORING,
  };
}

/** The node's identity: from the configured secret, or a fresh random one. */
export async function nodeIdentity(nodeKey: Uint8Array | null): Promise<PrivateKey> {
  return nodeKey === null ? generateKeyPair('Ed25519') : generateKeyPairFromSeed('Ed25519', nodeKey);
}

export async function createLibp2pNode(
  opts: Libp2pNodeOptions,
  privateKey: PrivateKey,
): Promise<LogosLibp2p> {
  const ip = isIP(opts.host) === 6 ? 'ip6' : 'ip4';
  const node = await createLibp2p({
    // Started by the caller, so that a listen failure is told apart from a configuration one.
    start: false,
    privateKey,
    addresses: { listen: [`/${ip}/${opts.host}/udp/${opts.port}/quic-v1`] },
    // js libp2p-quic's defaults are rust-libp2p QUIC's: handshake 5 s, idle 10 s, keep-alive 5 s (the
    // 5-minute rule for connections without streams is the service's).
    transports: [quic()],
    connectionGater: opts.gater,
    services: {
      ping: connectionLiveness(),
      identify: withProtocolVersion(identify({ runOnConnectionOpen: true }), opts.protocols.identify),
      identifyPush: withProtocolVersion(identifyPush(), opts.protocols.identify),
      // F `libp2p/src/behaviour/mod.rs` runs an AutoNAT v2 server always and, in its default NAT mode
      // (`Traversal`), a client confirming the observed addresses identify reports; js runs both.
      autoNAT: autoNATv2(),
      dht: kadDHT({
        protocol: opts.protocols.kademlia,
        clientMode: false,
        // Loopback and private addresses are kept (local networks and tests).
        peerInfoMapper: passthroughMapper,
      }),
      pubsub: relaxedGossipsub(gossipsubOptions(opts.gossipsub)),
    },
  });
  return node as unknown as LogosLibp2p;
}
