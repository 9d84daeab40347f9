/**
 * What the rest of the node sees of the peer-to-peer network: `INetwork`. Gossip (block proposals,
 * transactions), chain sync and the API depend on this interface, not on libp2p: the libp2p node is an
 * adapter behind it, and tests use an in-memory one.
 *
 * Peers are named by their peer id string (`12D3KooW…`). Request/response protocols use the
 * reference's framing (F `libp2p/packing.rs`): every message is a u32 little-endian length followed by
 * that many bytes; a length above the caller's limit is refused before anything is allocated.
 */
import type { EventEmitter } from 'node:events';

/** `GET /network/info`. */
export interface NetworkInfo {
  readonly listen_addresses: readonly string[];
  readonly peer_id: string;
  readonly connected_peers: readonly string[];
  readonly discovered_peers: readonly string[];
  readonly n_peers: number;
  readonly n_connections: number;
  readonly n_discovered_peers: number;
  readonly n_pending_connections: number;
}

export interface RequestOptions {
  /** Largest response frame accepted (checked before allocation). */
  readonly maxFrameBytes: number;
  /** Each response frame must arrive within this time (F `peer_response_timeout`). */
  readonly frameTimeoutMs: number;
  readonly signal?: AbortSignal;
}

export interface HandleOptions {
  /** Largest request frame accepted (checked before allocation). */
  readonly maxRequestBytes: number;
  /**
   * Streams served at once (pending and in progress), of which one peer may have a quarter (at least
   * 2); more are closed without an answer.
   */
  readonly maxInbound: number;
}

/** Serves one request: the response frames, in order; the stream is closed after the last. */
export type RequestHandler = (request: Uint8Array, peer: string) => AsyncIterable<Uint8Array>;

/**
 * `major`: invalid data a peer sent itself (10); `minor`: undecodable or oversized data it sent itself
 * (1); `relayed`: bad gossip the peer forwarded, which it may not have written (1, and never past the
 * relay cap: relayed offences alone never ban a peer).
 */
export type Offence = 'minor' | 'major' | 'relayed';

export interface NetworkEvents {
  'peer:connect': [string];
  'peer:disconnect': [string];
}

/**
 * What a handler makes of a received gossip message: `accept` (forwarded to other peers), `ignore`
 * (not forwarded: it could not be judged, or is of no use), `reject` (not forwarded: invalid).
 */
export type GossipVerdict = 'accept' | 'ignore' | 'reject';

/**
 * A gossip handler: its verdict, or `undefined` when the message is not of its kind (two kinds on one
 * topic). The message is forwarded once every handler of the topic has answered: any `reject` rejects,
 * else any `ignore` ignores, else any `accept` accepts; no verdict at all ignores it.
 * inferred: F forwards every message before judging it (gossipsub `ValidationMode::None`, no
 * `validate_messages`) (docs/design/fidelity.md "Gossip forwarded once judged")
 */
export type GossipHandler = (data: Uint8Array, from: string) => Promise<GossipVerdict | undefined>;

export interface INetwork extends Pick<EventEmitter<NetworkEvents>, 'on' | 'once' | 'off'> {
  readonly peerId: string;

  /** Publishes on a gossipsub topic; also delivered to this node's own subscribers (as F does). */
  publish(topic: string, data: Uint8Array): Promise<void>;
  /**
   * Receives the messages of a topic; `from` is the peer that delivered it first (the own peer id for own
   * messages). A received message is forwarded to other peers only once its handlers have judged it
   * (`GossipHandler`).
   */
  subscribe(topic: string, handler: GossipHandler): void;

  /**
   * Opens a stream of `protocol` to `peer`, writes one framed request, and yields the framed response
   * messages until the peer closes the stream. Throws on a frame above the limit, a timeout or a reset.
   */
  request(
    peer: string,
    protocol: string,
    request: Uint8Array,
    opts: RequestOptions,
  ): AsyncIterable<Uint8Array>;
  /** Serves `protocol`: one request per stream, answered by the handler's frames. */
  handle(protocol: string, handler: RequestHandler, opts: HandleOptions): void;

  /** Peers with an open connection. */
  connectedPeers(): string[];
  /** Peers known from discovery (Kademlia, identify), connected or not. */
  discoveredPeers(): string[];
  /** Records misbehaviour; repeated offences disconnect the peer (beyond the reference: it has no scoring). */
  penalize(peer: string, offence: Offence, reason: string): void;
  /** Dials a multiaddr; resolves with the peer id once connected. */
  dial(addr: string): Promise<string>;
  info(): NetworkInfo;
  /** Peers banned now and peers with offences not yet decayed (absent: the network keeps no scores). */
  peerScores?(): { readonly banned: number; readonly penalized: number };
}
