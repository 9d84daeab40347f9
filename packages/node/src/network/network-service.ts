/**
 * The network service: `INetwork` over the libp2p node (libp2p-node.ts). It listens on QUIC, dials
 * the initial peers (3 retries, backoff 5^n s, as F `services/network/src/backends/libp2p/swarm/mod.rs`;
 * `/dns*` names resolved first, dns.ts),
 * publishes and receives gossip (own messages delivered to own subscribers once published, a publish
 * without subscribed peers retried 3 times, F `swarm/gossipsub.rs`), serves and makes framed
 * request/response streams (framing.ts), closes connections idle for 5 minutes, and keeps a score per
 * peer (scoring.ts, beyond the reference) that bans repeat offenders through a connection gater; the
 * gater also holds back redials to a peer that drops this node's connections at once (redial.ts).
 */

import { EventEmitter } from 'node:events';
import { TopicValidatorResult } from '@libp2p/gossipsub';
import type { Connection, PeerId, Stream } from '@libp2p/interface';
import { peerIdFromString } from '@libp2p/peer-id';
import { multiaddr } from '@multiformats/multiaddr';
import type { Logger } from 'pino';
import { deadline, within } from '../util/abort.ts';
import { type Meter, NO_METER } from '../util/meter.ts';
import type { NetworkSection } from './config.ts';
import { withDeadline } from './deadline.ts';
import { DiscoveredPeers } from './discovered-peers.ts';
import { DnsLookupFailed, resolveDnsMultiaddr } from './dns.ts';
import { DialFailed, FrameTimeout, FrameTooLarge, NetworkError, StreamTruncated } from './errors.ts';
import { encodeFrame, FrameReader } from './framing.ts';
import type {
  GossipHandler,
  GossipVerdict,
  HandleOptions,
  INetwork,
  NetworkEvents,
  NetworkInfo,
  Offence,
  RequestHandler,
  RequestOptions,
} from './interface.ts';
import {
  createLibp2pNode,
  IDLE_CONNECTION_MS,
  type LogosLibp2p,
  nodeIdentity,
  type ProtocolNames,
} from './libp2p-node.ts';
import { DEFAULT_REDIAL, RedialBackoff, type RedialSettings } from './redial.ts';
import { DEFAULT_SCORING, PeerScores, type ScoringSettings } from './scoring.ts';
import { jointVerdict } from './verdict.ts';

/** F `MAX_RETRY` and `BACKOFF`: a failed dial or a publish without peers is retried 3 times, after 5^n s. */
export const MAX_RETRY = 3;
const BACKOFF_BASE_S = 5;
/** How long a dial attempt may take: rust-libp2p QUIC's handshake timeout, 5 s. */
const DIAL_TIMEOUT_MS = 5_000;
/**
 * The most a dial asked for (`dial_peer`, initial peers) may take in all, then it fails as timed out.
 * inferred: F's dial ends with its transport's timeout (docs/design/fidelity.md)
 */
export const DIAL_DEADLINE_MS = 10_000;
// inferred: F reads the request with no timeout of its own; a served stream must deliver it within this (docs/design/fidelity.md)
const REQUEST_TIMEOUT_MS = 5_000;
/** The gossipsub router's method for `asyncValidation` (its class has it; its exported interface not). */
interface AsyncValidation {
  reportMessageValidationResult(
    msgId: string,
    propagationSource: string,
    acceptance: TopicValidatorResult,
  ): void;
}
/** The gossipsub verdict of each of ours. */
const VERDICTS: Record<GossipVerdict, TopicValidatorResult> = {
  accept: TopicValidatorResult.Accept,
  ignore: TopicValidatorResult.Ignore,
  reject: TopicValidatorResult.Reject,
};
/** How often idle connections are looked for. */
const IDLE_SWEEP_MS = 30_000;
// inferred: F dials its initial peers at start only (3 retries); this node redials a lost one (docs/design/fidelity.md)
/** How often initial peers that are not connected are dialled again. */
export const INITIAL_PEER_REDIAL_MS = 15_000;

export interface NetworkServiceConfig {
  readonly network: NetworkSection;
  /** The deployment's protocol names. */
  readonly protocols: ProtocolNames;
  readonly scoring?: ScoringSettings;
  /** The hold on redialling a peer that drops this node's connections at once. */
  readonly redial?: RedialSettings;
  /** Scales the retry backoffs (tests); 1 by default. */
  readonly backoffScale?: number;
}

export interface NetworkServiceDeps {
  readonly logger: Logger;
  readonly signal: AbortSignal;
  /** Counts dial failures, penalties and bans (absent: not counted). */
  readonly meter?: Meter;
}

/**
 * The inbound streams of one protocol one peer may have served at once: a quarter of the slots, at
 * least 2 (3 of F's default 10).
 * inferred: F counts only the total (docs/design/fidelity.md "Reading a served request")
 */
export function inboundPerPeer(maxInbound: number): number {
  return Math.max(2, Math.ceil(maxInbound / 4));
}

/** rust-libp2p's `DialError::Transport` text for one address (F answers `dial_peer` failures with it). */
function dialErrorText(addr: string, e: unknown): string {
  const err = e as Error & { name?: string };
  const msg = err?.message ?? String(e);
  let reason: string;
  if (err?.name === 'TimeoutError' || err?.name === 'AbortError' || /timed? ?out/i.test(msg))
    reason = ': : Handshake with the remote timed out.';
  else if (err?.name === 'NoValidAddressesError' || /no valid addresses|unsupported|not supported/i.test(msg))
    reason = `: Multiaddr is not supported: ${addr}`;
  else reason = `: : ${msg}`;
  // inferred: rust-libp2p 0.56 `DialError` Display with `print_error_chain` (docs/design/fidelity.md)
  return `Failed to negotiate transport protocol(s): [(${addr}${reason})]`;
}

export class NetworkService extends EventEmitter<NetworkEvents> implements INetwork {
  private readonly handlers = new Map<string, Set<GossipHandler>>();
  private readonly discovered = new DiscoveredPeers();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly idleSince = new Map<string, number>();
  /** Initial peer addresses being dialled. */
  private readonly dialling = new Set<string>();
  private closed = false;

  private constructor(
    private readonly node: LogosLibp2p,
    private readonly scores: PeerScores,
    private readonly redial: RedialBackoff,
    private readonly log: Logger,
    private readonly backoffScale: number,
    private readonly meter: Meter,
  ) {
    super();
  }

  get peerId(): string {
    return this.node.peerId.toString();
  }

  static async init(config: NetworkServiceConfig, deps: NetworkServiceDeps): Promise<NetworkService> {
    const swarm = config.network.backend.swarm;
    const log = deps.logger;
    const scores = new PeerScores(config.scoring ?? DEFAULT_SCORING);
    const banned = (p: PeerId) => scores.isBanned(p.toString(), Date.now());
    const redial = new RedialBackoff(config.redial ?? DEFAULT_REDIAL);
    const key = await nodeIdentity(swarm.node_key);
    const node = await createLibp2pNode(
      {
        host: swarm.host,
        port: swarm.port,
        gossipsub: swarm.gossipsub,
        protocols: config.protocols,
        gater: {
          denyDialPeer: (p) => banned(p) || redial.held(p.toString(), Date.now()),
          denyInboundEncryptedConnection: banned,
          denyOutboundEncryptedConnection: banned,
        },
      },
      key,
    );
    try {
      await node.start();
    } catch (e) {
      await Promise.resolve(node.stop()).catch(() => {});
      throw new NetworkError(
        'NETWORK_LISTEN_FAILED',
        `network.backend.swarm: cannot listen on udp ${swarm.host}:${swarm.port}: ${(e as Error).message}`,
      );
    }
    const svc = new NetworkService(
      node,
      scores,
      redial,
      log,
      config.backoffScale ?? 1,
      deps.meter ?? NO_METER,
    );
    svc.wire();
    log.info(
      {
        peer_id: svc.peerId,
        listen: node.getMultiaddrs().map(String),
        identity: swarm.node_key === null ? 'random (no network.backend.swarm.node_key)' : 'node_key',
      },
      'network listening',
    );
    for (const addr of config.network.backend.initial_peers) svc.dialWithRetries(addr, 0);
    const sweep = setInterval(() => svc.closeIdleConnections(Date.now()), IDLE_SWEEP_MS);
    sweep.unref();
    svc.timers.add(sweep);
    const rejoin = setInterval(
      () => svc.redialInitialPeers(config.network.backend.initial_peers),
      INITIAL_PEER_REDIAL_MS * svc.backoffScale,
    );
    rejoin.unref();
    svc.timers.add(rejoin);
    deps.signal.addEventListener('abort', () => void svc.close(), { once: true });
    return svc;
  }

  private wire(): void {
    const node = this.node;
    node.addEventListener('peer:connect', (evt) => {
      const p = evt.detail.toString();
      this.discovered.seen(p);
      this.log.debug({ peer: p }, 'peer connected');
      this.emit('peer:connect', p);
    });
    node.addEventListener('peer:disconnect', (evt) => {
      const p = evt.detail.toString();
      this.log.debug({ peer: p }, 'peer disconnected');
      this.emit('peer:disconnect', p);
    });
    node.addEventListener('connection:close', (evt) => {
      const c = evt.detail;
      if (c.direction !== 'outbound' || this.closed) return;
      const p = c.remotePeer.toString();
      const now = Date.now();
      const lived = now - c.timeline.open;
      const hold = this.redial.closed(p, lived, now);
      if (hold > 0)
        this.log.debug(
          { peer: p, lived_ms: lived, redial_in_ms: hold },
          'peer closed our connection at once',
        );
    });
    node.addEventListener('peer:discovery', (evt) => {
      const p = evt.detail.id.toString();
      if (p !== this.peerId) this.discovered.seen(p);
    });
    node.services.pubsub.addEventListener('gossipsub:message', (evt) => {
      const { propagationSource, msgId, msg } = evt.detail;
      const from = propagationSource.toString();
      void this.deliver(msg.topic, msg.data, from).then((v) => {
        if (this.closed) return;
        // Forwarded by gossipsub only now, once judged (asyncValidation).
        (node.services.pubsub as unknown as AsyncValidation).reportMessageValidationResult(
          msgId,
          from,
          VERDICTS[v],
        );
      });
    });
  }

  /** Hands a message to the topic's handlers; their joint verdict. */
  private async deliver(topic: string, data: Uint8Array, from: string): Promise<GossipVerdict> {
    const verdicts: Promise<GossipVerdict | undefined>[] = [];
    for (const h of this.handlers.get(topic) ?? []) {
      verdicts.push(
        Promise.resolve()
          .then(() => h(data, from))
          .catch((e: Error): GossipVerdict => {
            this.log.warn({ topic, err: e.message }, 'gossip handler failed');
            return 'ignore';
          }),
      );
    }
    return jointVerdict(await Promise.all(verdicts));
  }

  private later(ms: number, f: () => void): void {
    if (this.closed) return;
    const t = setTimeout(() => {
      this.timers.delete(t);
      if (!this.closed) f();
    }, ms * this.backoffScale);
    this.timers.add(t);
  }

  // ---- gossip

  subscribe(topic: string, handler: GossipHandler): void {
    let set = this.handlers.get(topic);
    if (set === undefined) {
      set = new Set();
      this.handlers.set(topic, set);
      this.node.services.pubsub.subscribe(topic);
    }
    set.add(handler);
  }

  async publish(topic: string, data: Uint8Array): Promise<void> {
    await this.publishAttempt(topic, data, 0);
  }

  private async publishAttempt(topic: string, data: Uint8Array, retry: number): Promise<void> {
    if (this.closed) return;
    try {
      await this.node.services.pubsub.publish(topic, data);
    } catch (e) {
      const msg = (e as Error).message;
      if (msg.includes('Duplicate')) return; // F: a duplicate publish is ignored
      if (msg.includes('NoPeersSubscribedToTopic') && retry < MAX_RETRY) {
        this.later(BACKOFF_BASE_S ** retry * 1000, () => void this.publishAttempt(topic, data, retry + 1));
        return;
      }
      this.log.debug({ topic, err: msg }, 'gossip publish failed');
      return;
    }
    // F: libp2p does not deliver own messages; the node feeds them to its own subscribers.
    void this.deliver(topic, data, this.peerId);
  }

  // ---- request/response streams

  async *request(
    peer: string,
    protocol: string,
    request: Uint8Array,
    opts: RequestOptions,
  ): AsyncIterable<Uint8Array> {
    // The dial has its own bound; then each frame has the frame timeout (FrameReader), however long
    // the whole answer takes. The caller's signal, if any, ends the exchange at any point.
    const dial = deadline(DIAL_TIMEOUT_MS, opts.signal);
    let stream: Stream;
    try {
      stream = await this.node.dialProtocol(peerIdFromString(peer), protocol, { signal: dial.signal });
    } catch (e) {
      dial.clear();
      throw e;
    }
    const onAbort = () => stream.abort(new Error('request aborted'));
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    const reader = new FrameReader(stream, opts.maxFrameBytes, opts.frameTimeoutMs);
    let ok = false;
    try {
      if (!stream.send(encodeFrame(request))) await stream.onDrain({ signal: dial.signal });
      await stream.close({ signal: dial.signal });
      dial.clear();
      for (;;) {
        opts.signal?.throwIfAborted();
        const frame = await reader.next();
        if (frame === undefined) break;
        yield frame;
      }
      ok = true;
    } finally {
      dial.clear();
      opts.signal?.removeEventListener('abort', onAbort);
      if (!ok) stream.abort(new Error('request abandoned'));
      reader.close();
    }
  }

  handle(protocol: string, handler: RequestHandler, opts: HandleOptions): void {
    let active = 0;
    /** Streams served at once per peer, and the most one peer may have. */
    const ofPeer = new Map<string, number>();
    const perPeer = inboundPerPeer(opts.maxInbound);
    void this.node
      .handle(
        protocol,
        async (stream: Stream, connection: Connection) => {
          const peer = connection.remotePeer.toString();
          const mine = ofPeer.get(peer) ?? 0;
          if (active >= opts.maxInbound || mine >= perPeer) {
            // F: streams beyond max_inbound_requests are closed without an answer; here also those of
            // a peer beyond its share, so that one peer's slow streams cannot take every slot.
            stream.abort(new Error('too many inbound requests'));
            return;
          }
          active++;
          ofPeer.set(peer, mine + 1);
          try {
            await this.serve(stream, peer, handler, opts);
          } finally {
            active--;
            const left = (ofPeer.get(peer) ?? 1) - 1;
            if (left > 0) ofPeer.set(peer, left);
            else ofPeer.delete(peer);
          }
        },
        // The global limit is counted above; libp2p's own per-connection limit only bounds a burst.
        { maxInboundStreams: Math.max(32, opts.maxInbound * 2) },
      )
      .catch((e: Error) => this.log.error({ protocol, err: e.message }, 'cannot serve protocol'));
  }

  private async serve(stream: Stream, peer: string, handler: RequestHandler, opts: HandleOptions) {
    const reader = new FrameReader(stream, opts.maxRequestBytes, REQUEST_TIMEOUT_MS);
    let request: Uint8Array | undefined;
    try {
      request = await reader.next();
      if (request === undefined) {
        // A stream closed before a byte of a request: a request its sender gave up (a lost race of
        // chain-sync requests, a stop); it cost nothing to serve, so it is no offence.
        // inferred: F reads the request and drops the stream on a read error, never penalising
        this.log.debug({ peer }, 'request stream closed before a request');
        stream.abort(new StreamTruncated('length prefix'));
        return;
      }
    } catch (e) {
      stream.abort(e as Error);
      if (e instanceof FrameTooLarge || e instanceof StreamTruncated)
        this.penalize(peer, 'minor', `bad request frame: ${(e as Error).message}`);
      else if (!(e instanceof FrameTimeout))
        this.log.debug({ peer, err: (e as Error).message }, 'request read failed');
      return;
    }
    try {
      for await (const frame of handler(request, peer)) {
        if (!stream.send(encodeFrame(frame))) await stream.onDrain({ signal: AbortSignal.timeout(30_000) });
      }
      await stream.close({ signal: AbortSignal.timeout(30_000) });
    } catch (e) {
      stream.abort(e as Error);
      this.log.debug({ peer, err: (e as Error).message }, 'response stream failed');
    }
  }

  // ---- peers

  connectedPeers(): string[] {
    return this.node.getPeers().map(String);
  }

  // inferred: peers seen connected, dialled or discovered, not F's Kademlia routing table (docs/design/fidelity.md)
  discoveredPeers(): string[] {
    return this.discovered.list();
  }

  /** Peers banned now and peers with offences not yet decayed. */
  peerScores(): { readonly banned: number; readonly penalized: number } {
    return this.scores.counts(Date.now());
  }

  penalize(peer: string, offence: Offence, reason: string): void {
    const now = Date.now();
    const { score, banned } = this.scores.penalize(peer, offence, now);
    this.meter.count('logos_peer_penalties_total', 1, { offence });
    if (banned) this.meter.count('logos_peer_bans_total');
    const rounded = Math.round(score * 100) / 100;
    this.log.info({ peer, offence, reason, score: rounded }, 'peer penalized');
    if (!banned) return;
    // The ban line says why on its own: the offence that reached the threshold, and the score.
    this.log.info(
      { peer, reason, score: rounded, banned_for_s: Math.round(this.scores.banMs / 1000) },
      'peer banned: disconnected, and refused for a while',
    );
    this.discovered.delete(peer);
    try {
      void this.node.hangUp(peerIdFromString(peer)).catch(() => {});
    } catch {
      // not a peer id: nothing to hang up
    }
  }

  // inferred: one attempt answered at once; F retries the API's dial too (docs/design/fidelity.md)
  async dial(addr: string): Promise<string> {
    if (this.closed) throw new NetworkError('NETWORK_NOT_STARTED', 'the network service is stopped');
    try {
      // F's swarm has a DNS transport: a `/dns*` name is resolved (bounded in time), its IPs dialled.
      // The whole dial (a DNS lookup, the dial queue, the handshake) within DIAL_DEADLINE_MS: libp2p's
      // signal bounds the handshake, not every wait before it.
      const conn = await withDeadline(
        (async () => {
          const targets = await resolveDnsMultiaddr(multiaddr(addr));
          return this.node.dial(targets.length === 1 ? targets[0]! : targets, {
            signal: AbortSignal.timeout(DIAL_TIMEOUT_MS),
          });
        })(),
        DIAL_DEADLINE_MS,
      );
      const p = conn.remotePeer.toString();
      this.discovered.seen(p);
      return p;
    } catch (e) {
      this.meter.count('network_dial_failures_total');
      const peer = /\/p2p\/([^/]+)$/.exec(addr)?.[1];
      if (peer !== undefined) this.discovered.unreachable(peer);
      if (e instanceof DnsLookupFailed)
        this.log.warn({ addr, host: e.host, err: e.message }, 'DNS lookup failed: address not dialled');
      throw new DialFailed(dialErrorText(addr, e));
    }
  }

  /**
   * Dials again, once, each initial peer (with a `/p2p/` part) that is neither connected, nor banned,
   * nor being dialled: a node that lost its peers (an outage, a partition) rejoins them once they
   * answer again, and a node started before its peers finds them after the start-up retries.
   */
  redialInitialPeers(addrs: readonly string[]): void {
    if (this.closed) return;
    for (const addr of addrs) {
      const peer = /\/p2p\/([^/]+)$/.exec(addr)?.[1];
      if (peer === undefined || this.dialling.has(addr)) continue;
      let connected: boolean;
      try {
        connected = this.node.getConnections(peerIdFromString(peer)).length > 0;
      } catch {
        continue; // not a peer id
      }
      if (connected || this.scores.isBanned(peer, Date.now())) continue;
      this.dialling.add(addr);
      this.dial(addr)
        .then(
          (p) => this.log.info({ peer: p, addr }, 'reconnected to initial peer'),
          (e: Error) => this.log.debug({ addr, err: e.message }, 'initial peer still unreachable'),
        )
        .finally(() => this.dialling.delete(addr));
    }
  }

  /** Dials an initial peer; a failure is retried up to 3 times after 5, 25 and 125 s (F). */
  private dialWithRetries(addr: string, retry: number): void {
    this.dialling.add(addr);
    this.dial(addr).then(
      (peer) => {
        this.dialling.delete(addr);
        this.log.info({ peer, addr }, 'connected to initial peer');
      },
      (e: Error) => {
        this.dialling.delete(addr);
        const next = retry + 1;
        const retryInS = next <= MAX_RETRY ? BACKOFF_BASE_S ** next : undefined;
        this.log.info({ addr, err: e.message, retry_in_s: retryInS ?? null }, 'dial failed');
        if (retryInS !== undefined) this.later(retryInS * 1000, () => this.dialWithRetries(addr, next));
      },
    );
  }

  /** F `IDLE_CONN_TIMEOUT`: closes connections that had no stream for 5 minutes. */
  closeIdleConnections(now: number): void {
    const seen = new Set<string>();
    for (const conn of this.node.getConnections()) {
      seen.add(conn.id);
      if (conn.streams.length > 0) {
        this.idleSince.delete(conn.id);
        continue;
      }
      const since = this.idleSince.get(conn.id) ?? now;
      this.idleSince.set(conn.id, since);
      if (now - since >= IDLE_CONNECTION_MS) {
        this.log.debug({ peer: conn.remotePeer.toString() }, 'closing idle connection');
        void conn.close().catch(() => {});
      }
    }
    for (const id of this.idleSince.keys()) if (!seen.has(id)) this.idleSince.delete(id);
  }

  info(): NetworkInfo {
    const connected = this.connectedPeers();
    const discovered = this.discoveredPeers();
    return {
      listen_addresses: this.node.getMultiaddrs().map((m) => m.decapsulateCode(421).toString()),
      peer_id: this.peerId,
      connected_peers: connected,
      discovered_peers: discovered,
      n_peers: connected.length,
      n_connections: this.node.getConnections().length,
      n_discovered_peers: discovered.length,
      n_pending_connections: this.node.getDialQueue().length,
    };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    // Connections are closed with a bounded wait: one to a peer that vanished would otherwise hold the
    // stop until QUIC's idle timeout.
    await Promise.all(
      this.node
        .getConnections()
        .map((c) =>
          within(c.close(), 1000, 'closing a connection').catch(() => c.abort(new Error('network stopping'))),
        ),
    );
    await within(Promise.resolve(this.node.stop()), 5000, 'stopping libp2p').catch((e: Error) =>
      this.log.warn({ err: e.message }, 'libp2p did not stop in time; going on'),
    );
  }
}
