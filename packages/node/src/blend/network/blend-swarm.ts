/**
 * The Blend swarm: Blend's own libp2p network beside the node's main one (F `blend/network/src/core/**`,
 * `services/blend/src/core/backends/libp2p/swarm.rs`, `services/blend/src/edge/backends/libp2p/**`).
 *
 * Core with core (F `with_core`): a connection with a member of the current membership is a core
 * connection; each side opens one outbound stream to send on and reads the peer's inbound stream
 * (`core-link.ts`). The connection is negotiated when its first stream opens; at most `core_peering_degree.end` are kept, one
 * per peer (`connection-choice.ts`). Members are dialled until `core_peering_degree.start` peers are
 * healthy (`core-dialer.ts`). With a connection monitor, each core connection's messages are counted per
 * observation window (`connection-monitor.ts`): above the range the peer is spammy, below it unhealthy
 * (reported, and another member dialled) until it is in range again.
 *
 * A message from a core peer: its id (the caller's `messageId`; undecodable: spam), the same id twice
 * from that peer: spam, an id already processed: ignored; then its signature and proof (the caller's
 * `verify`; invalid: spam). A verified message is marked processed, relayed to every other non-spammy
 * core peer (never back to its sender, never twice) and emitted. A spammy peer is disconnected and,
 * once its connection closed, blocked for good (never dialled, its connections refused).
 *
 * Edge nodes (F `with_edge`): an inbound connection from a non-member is an edge connection (at most
 * `max_edge_node_incoming_connections`), which delivers one message within `edge_node_connection_timeout`
 * and is then closed. Its verified message is relayed to all core peers and emitted; an invalid one is
 * dropped without blocking anyone (`edge-receiver.ts`). Sending as an edge node: `edge-sender.ts`.
 *
 * Epochs (F `old_epoch.rs`): `updateMembership` moves the negotiated core connections and their message
 * cache to the old epoch, which still receives, verifies (against the old epoch), relays among its own
 * peers and emits, until `finishTransition` closes them; a peer misbehaving there is disconnected, not
 * blocked. Edge connections are closed at once.
 */
import { EventEmitter } from 'node:events';
import type { Connection, Stream } from '@libp2p/interface';
import type { Multiaddr } from '@multiformats/multiaddr';
import type { Libp2p } from 'libp2p';
import type { Logger } from 'pino';
import { closeConnection } from './close-connection.ts';
import { chooseConnection, type RemoteRole } from './connection-choice.ts';
import { ConnectionMonitor, type ExpectedMessageRange } from './connection-monitor.ts';
import { CoreDialer } from './core-dialer.ts';
import { CoreLink } from './core-link.ts';
import { EdgeReceiver } from './edge-receiver.ts';
import { EdgeSender } from './edge-sender.ts';
import { BlendNetworkError } from './errors.ts';
import { encodeBlendFrame, MAX_BLEND_MESSAGE_BYTES } from './framing.ts';
import { createBlendHost } from './libp2p-host.ts';
import { MessageCache } from './message-cache.ts';
import type {
  BlendMember,
  BlendSwarmEvents,
  BlendSwarmOptions,
  CorePeerInfo,
  SpamReason,
  VerifyOutcome,
} from './types.ts';

const DEFAULT_REDIAL_BASE_MS = 1_000;
/** F `FULL_MEMBERSHIP_RETRY_DELAY`. */
const DEFAULT_FULL_MEMBERSHIP_RETRY_MS = 60_000;
/** How long a core dial or the opening of a stream may take. */
// inferred: F bounds a dial by QUIC's handshake timeout only
const DIAL_TIMEOUT_MS = 10_000;

type PeerState =
  | { readonly kind: 'healthy' | 'unhealthy' }
  | { readonly kind: 'spammy'; readonly reason: SpamReason };
const HEALTHY: PeerState = { kind: 'healthy' };
const UNHEALTHY: PeerState = { kind: 'unhealthy' };

/** What a connection is to the swarm, decided when it opens. */
type ConnectionKind = 'core' | 'edge' | 'edge_out' | 'none';

interface NegotiatedPeer {
  link: CoreLink;
  state: PeerState;
}

interface OldEpoch {
  readonly epoch: number;
  readonly peers: Map<string, CoreLink>;
  readonly cache: MessageCache;
}

/** The message's epoch context: the current epoch's peers and cache, or the old epoch's. */
interface EpochTargets {
  readonly cache: MessageCache;
  readonly links: CoreLink[];
}

/** Listeners of the swarm's events, attached before it listens (no event of a first connection is missed). */
export type BlendSwarmListeners = {
  readonly [E in keyof BlendSwarmEvents]?: (...args: BlendSwarmEvents[E]) => void;
};

export interface BlendSwarmDeps {
  readonly log: Logger;
  /** Aborting closes the swarm (as `close` does). */
  readonly signal: AbortSignal;
  readonly listeners?: BlendSwarmListeners;
}

export class BlendSwarm extends EventEmitter<BlendSwarmEvents> {
  private readonly localPeer: string;
  private membership: readonly BlendMember[];
  private members: Set<string>;
  private epoch: number;
  private expected: ExpectedMessageRange | null;

  private readonly kinds = new Map<string, ConnectionKind>();
  private readonly links = new Map<string, CoreLink>();
  private readonly waiting = new Map<string, CoreLink>();
  private negotiated = new Map<string, NegotiatedPeer>();
  private cache = new MessageCache();
  private old: OldEpoch | null = null;
  private readonly edgeReceiver: EdgeReceiver;

  private readonly coreDialing = new Map<string, number>();
  private readonly edgeDialing = new Map<string, number>();
  private checkTimer: NodeJS.Timeout | null = null;
  private readonly dialer: CoreDialer;

  private readonly edgeSender: EdgeSender;
  private readonly stopping = new AbortController();
  private running = false;
  private stopped = false;

  private constructor(
    private readonly opts: BlendSwarmOptions,
    private readonly host: Libp2p,
    private readonly log: Logger,
    /** Blocked peers, shared with the connection gater. */
    private readonly blocked: Set<string>,
  ) {
    super();
    this.localPeer = host.peerId.toString();
    this.membership = opts.membership;
    this.members = new Set(opts.membership.map((m) => m.peerId));
    this.epoch = opts.epoch;
    this.expected = opts.connectionMonitor?.expected ?? null;
    this.edgeSender = new EdgeSender({
      host,
      protocolName: opts.protocolName,
      maxDialAttemptsPerPeer: opts.edgeMaxDialAttemptsPerPeer,
      retryBaseMs: opts.redialBaseMs ?? DEFAULT_REDIAL_BASE_MS,
      log,
      signal: this.stopping.signal,
      dialing: (peer, on) => count(this.edgeDialing, peer, on),
      opened: (conn) => {
        if (!this.kinds.has(conn.id)) this.kinds.set(conn.id, 'edge_out');
      },
    });
    this.edgeReceiver = new EdgeReceiver({
      log,
      maxReceiving: opts.maxEdgeNodeIncomingConnections,
      connectionTimeoutMs: opts.edgeNodeConnectionTimeoutMs,
      messageBytes: opts.messageBytes,
      messageId: (frame) => opts.validator.messageId(frame),
      verify: (frame, from, epoch) => this.verify(frame, from, epoch),
      epoch: () => this.epoch,
      verified: (frame, id, from, epoch) => this.onVerified(frame, id, from, epoch, true),
    });
    this.dialer = new CoreDialer(
      {
        localPeer: this.localPeer,
        membership: () => this.membership,
        isMember: (p) => this.isMember(p),
        networkLargeEnough: () => this.networkLargeEnough(),
        healthyPeers: () => this.healthyPeers(),
        negotiatedPeers: () => this.negotiated.size,
        isNegotiated: (p) => this.negotiated.has(p),
        isBlocked: (p) => this.blocked.has(p),
        dial: (p, addresses) => this.dialCore(p, addresses),
      },
      {
        peeringDegree: opts.corePeeringDegree,
        maxDialAttemptsPerPeer: opts.maxDialAttemptsPerPeer,
        redialBaseMs: opts.redialBaseMs ?? DEFAULT_REDIAL_BASE_MS,
        fullMembershipRetryMs: opts.fullMembershipRetryMs ?? DEFAULT_FULL_MEMBERSHIP_RETRY_MS,
      },
      log,
    );
  }

  /**
   * A swarm listening on its listening address and peering with the membership it is given; its
   * listeners are attached first. A taken address is `BLEND_NETWORK_LISTEN_FAILED`.
   */
  static async init(opts: BlendSwarmOptions, deps: BlendSwarmDeps): Promise<BlendSwarm> {
    checkOptions(opts);
    const blocked = new Set<string>();
    const host = await createBlendHost({
      signingKeySeed: opts.signingKeySeed,
      listenAddress: opts.listenAddress,
      // inferred: F sets no connection limit; js-libp2p needs one (edge connections, two epochs of core peers, sends)
      maxConnections: opts.maxEdgeNodeIncomingConnections + 4 * opts.corePeeringDegree.end + 64,
      isBlocked: (p) => blocked.has(p),
    });
    const swarm = new BlendSwarm(opts, host, deps.log, blocked);
    for (const [event, listener] of Object.entries(deps.listeners ?? {}))
      swarm.on(event as keyof BlendSwarmEvents, listener as (...args: unknown[]) => void);
    deps.signal.addEventListener('abort', () => void swarm.close(), { once: true });
    await swarm.listen();
    return swarm;
  }

  get peerId(): string {
    return this.localPeer;
  }

  /** Listens on the listening address and starts peering. */
  private async listen(): Promise<void> {
    if (this.stopped) throw new BlendNetworkError('BLEND_NETWORK_NOT_STARTED', 'the Blend swarm is stopped');
    // Served from the first connection on.
    this.host.addEventListener('connection:open', (evt) => this.kindOf(evt.detail));
    this.host.addEventListener('connection:close', (evt) => this.onConnectionClose(evt.detail));
    await this.host.handle(this.opts.protocolName, (stream, conn) => this.onStream(stream, conn), {
      maxInboundStreams: 4,
      maxOutboundStreams: 4,
    });
    this.running = true;
    try {
      await this.host.start();
    } catch (e) {
      this.running = false;
      this.stopped = true;
      await Promise.resolve(this.host.stop()).catch(() => {});
      throw new BlendNetworkError(
        'BLEND_NETWORK_LISTEN_FAILED',
        `blend.core.backend.listening_address: cannot listen on ${this.opts.listenAddress.toString()}: ${(e as Error).message}`,
        { address: this.opts.listenAddress.toString() },
      );
    }
    const every = this.opts.peeringDegreeCheckIntervalMs;
    if (every !== null && every > 0) {
      this.checkTimer = setInterval(() => this.dialer.check(), every);
      this.checkTimer.unref();
    }
    this.log.info(
      { peer_id: this.localPeer, listen: this.listenAddresses().map(String) },
      'blend swarm listening',
    );
    this.dialer.check();
  }

  /** Stops listening and closes every connection. Safe to call more than once. */
  async close(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.running = false;
    this.stopping.abort();
    this.dialer.stop();
    if (this.checkTimer !== null) clearInterval(this.checkTimer);
    for (const link of this.links.values()) link.stopMonitor();
    this.edgeReceiver.stop();
    await Promise.resolve(this.host.stop()).catch(() => {});
  }

  listenAddresses(): Multiaddr[] {
    return this.host.getMultiaddrs();
  }

  /** The negotiated core peers of the current epoch and whether each is healthy (F `NetworkInfo`). */
  corePeers(): CorePeerInfo[] {
    return [...this.negotiated].map(([peerId, p]) => ({ peerId, healthy: p.state.kind === 'healthy' }));
  }

  /** The old epoch's core peers during a transition, else null. */
  oldEpochPeers(): string[] | null {
    return this.old === null ? null : [...this.old.peers.keys()];
  }

  blockedPeers(): string[] {
    return [...this.blocked];
  }

  // ---- publishing

  /**
   * Sends a message of this node to every non-spammy core peer of `epoch` (default: the current one);
   * the number of peers it went to: 0 when it was already sent (or relayed), when there is no peer, or
   * when `epoch` is neither the current nor the old one.
   */
  publish(message: Uint8Array, opts: { readonly epoch?: number } = {}): number {
    const id = this.opts.validator.messageId(message);
    if (id === null)
      throw new BlendNetworkError(
        'BLEND_NETWORK_UNIDENTIFIED_MESSAGE',
        'the message to publish does not decode',
      );
    const epoch = opts.epoch ?? this.epoch;
    const targets = this.targetsOf(epoch, null);
    if (targets === null) {
      this.log.debug({ epoch, current: this.epoch }, 'blend publish for an epoch no longer served');
      return 0;
    }
    return this.forward(targets, message, id);
  }

  /** Sends a message as an edge node: a fresh connection to each of `peers` (F: `replication_factor` members). */
  async sendAsEdge(message: Uint8Array, peers: readonly BlendMember[]): Promise<number> {
    if (!this.running)
      throw new BlendNetworkError('BLEND_NETWORK_NOT_STARTED', 'the Blend swarm is not running');
    return this.edgeSender.send(message, peers);
  }

  // ---- epochs

  /**
   * A new epoch's membership. With `transition`, the current core connections become the old epoch's
   * until `finishTransition`; without, they are closed at once. `expected` replaces the message range of
   * the connection monitor for the windows that follow.
   */
  updateMembership(
    members: readonly BlendMember[],
    opts: { readonly epoch: number; readonly transition: boolean; readonly expected?: ExpectedMessageRange },
  ): void {
    for (const link of this.waiting.values()) link.drop('epoch changed before negotiation');
    this.waiting.clear();
    const previous = this.epoch;
    this.membership = members;
    this.members = new Set(members.map((m) => m.peerId));
    this.epoch = opts.epoch;
    // inferred: F keeps the range computed at start (its TODO: an epoch stream); here the caller may renew it
    if (opts.expected !== undefined) this.expected = opts.expected;
    this.stopOldEpoch();
    this.old = {
      epoch: previous,
      peers: new Map([...this.negotiated].map(([peer, p]) => [peer, p.link])),
      cache: this.cache,
    };
    this.negotiated = new Map();
    this.cache = new MessageCache();
    // F: edge connections are closed without waiting, so edge nodes retry with the new membership.
    this.edgeReceiver.dropAll('epoch changed');
    this.dialer.reset();
    this.log.debug(
      { epoch: this.epoch, members: members.length, old_peers: this.old.peers.size },
      'blend membership updated',
    );
    // inferred: F always keeps a transition; without one (e.g. a mode change) the old connections close now
    if (!opts.transition) this.stopOldEpoch();
    if (this.running) this.dialer.check();
  }

  /** Ends the epoch transition: the old epoch's connections are closed (their queued frames sent first). */
  finishTransition(): void {
    this.stopOldEpoch();
  }

  private stopOldEpoch(): void {
    const old = this.old;
    if (old === null) return;
    this.old = null;
    for (const link of old.peers.values()) link.drop('epoch transition over', true);
  }

  // ---- connections

  private isMember(peer: string): boolean {
    return this.members.has(peer);
  }

  private networkLargeEnough(): boolean {
    return this.membership.length >= this.opts.minimumNetworkSize;
  }

  /** What a connection is, decided once (when it opens, or when its first stream or dial completes). */
  private kindOf(conn: Connection): ConnectionKind {
    const known = this.kinds.get(conn.id);
    if (known !== undefined) return known;
    const peer = conn.remotePeer.toString();
    let kind: ConnectionKind = 'none';
    if (this.blocked.has(peer) || !this.running) kind = 'none';
    else if (conn.direction === 'outbound') {
      if (this.edgeDialing.has(peer) && !this.coreDialing.has(peer)) kind = 'edge_out';
      else if (this.coreDialing.has(peer) && this.acceptsCore(peer, 'listener')) kind = 'core';
    } else if (this.acceptsCore(peer, 'dialer')) kind = 'core';
    else if (this.acceptsEdge(peer)) kind = 'edge';
    this.kinds.set(conn.id, kind);
    if (kind === 'core') this.openCoreLink(conn, peer, conn.direction === 'outbound' ? 'listener' : 'dialer');
    else if (kind === 'edge') this.edgeReceiver.open(conn, peer);
    else if (kind === 'none') {
      this.log.debug({ peer, direction: conn.direction }, 'blend connection not upgraded');
      closeConnection(conn, 'not upgraded');
    }
    return kind;
  }

  /** F `handle_established_{inbound,outbound}_connection` of `with_core`. */
  private acceptsCore(peer: string, role: RemoteRole): boolean {
    if (this.negotiated.size >= this.opts.corePeeringDegree.end) return false;
    if (this.hasConnection(peer, role)) return false;
    return this.networkLargeEnough() && this.isMember(peer);
  }

  /** A negotiated or pending connection with `peer` in which the remote has `role`. */
  private hasConnection(peer: string, role: RemoteRole): boolean {
    const n = this.negotiated.get(peer);
    if (n !== undefined && n.link.role === role) return true;
    for (const link of this.waiting.values()) if (link.peer === peer && link.role === role) return true;
    return false;
  }

  /** F `handle_established_inbound_connection` of `with_edge`. */
  private acceptsEdge(peer: string): boolean {
    if (this.edgeReceiver.full) return false;
    return this.networkLargeEnough() && !this.isMember(peer);
  }

  private onConnectionClose(conn: Connection): void {
    const kind = this.kinds.get(conn.id);
    this.kinds.delete(conn.id);
    if (kind === 'edge') {
      this.edgeReceiver.closed(conn.id);
      return;
    }
    if (kind !== 'core') return;
    const link = this.links.get(conn.id);
    if (link === undefined) return;
    this.links.delete(conn.id);
    link.dropped = true;
    link.stopMonitor();
    const peer = link.peer;
    if (this.old !== null && this.old.peers.get(peer) === link) {
      this.old.peers.delete(peer);
      this.old.cache.removePeer(peer);
      return;
    }
    if (this.waiting.delete(conn.id)) {
      this.upgradeFailed(peer, link.role, 'connection_failure');
      return;
    }
    const n = this.negotiated.get(peer);
    if (n === undefined || n.link !== link) return; // a replaced or refused connection
    this.negotiated.delete(peer);
    this.cache.removePeer(peer);
    this.log.debug({ peer, state: n.state.kind }, 'blend core peer disconnected');
    this.emit('peer-disconnected', peer);
    if (n.state.kind === 'spammy') this.block(peer, n.state.reason);
    this.dialer.check(new Set([peer]));
  }

  private block(peer: string, reason: SpamReason): void {
    if (this.blocked.has(peer)) return;
    this.blocked.add(peer);
    this.log.info({ peer, reason }, 'blend peer blocked');
    for (const conn of this.host.getConnections()) {
      if (conn.remotePeer.toString() === peer) closeConnection(conn, 'blocked');
    }
    this.emit('peer-blocked', peer, reason);
  }

  // ---- core links

  private openCoreLink(conn: Connection, peer: string, role: RemoteRole): void {
    const link = new CoreLink(conn, peer, role, this.log);
    this.links.set(conn.id, link);
    this.waiting.set(conn.id, link);
    const mon = this.opts.connectionMonitor;
    if (mon !== null && this.expected !== null)
      link.watch(new ConnectionMonitor(this.expected), mon.windowMs, () => this.endWindow(link));
    link.openOutbound(this.opts.protocolName, DIAL_TIMEOUT_MS, () => this.notifyNegotiated(link));
  }

  private onStream(stream: Stream, conn: Connection): void {
    const kind = this.kindOf(conn);
    if (kind === 'edge') {
      this.edgeReceiver.onStream(stream, conn);
      return;
    }
    const link = kind === 'core' ? this.links.get(conn.id) : undefined;
    if (link === undefined || link.dropped) {
      stream.abort(new Error('no Blend stream expected on this connection'));
      return;
    }
    // F: a new inbound stream replaces the previous one.
    link.inbound?.abort(new Error('replaced'));
    link.inbound = stream;
    this.notifyNegotiated(link);
    void link.read(
      stream,
      this.opts.messageBytes,
      (frame) => this.onCoreMessage(link, frame),
      () => this.spammy(link, 'undeserializable_message'),
    );
  }

  /** F `handle_negotiated_connection`: the link's first stream opened. */
  private notifyNegotiated(link: CoreLink): void {
    if (link.negotiatedNotified) return;
    link.negotiatedNotified = true;
    if (!this.waiting.delete(link.conn.id)) return; // stale: an epoch change dropped it meanwhile
    const existing = this.negotiated.get(link.peer);
    if (existing === undefined) {
      if (this.negotiated.size >= this.opts.corePeeringDegree.end) {
        link.drop('maximum peering degree reached');
        this.upgradeFailed(link.peer, link.role, 'maximum_peering_degree');
        return;
      }
      this.negotiated.set(link.peer, { link, state: HEALTHY });
      this.upgradeSucceeded(link.peer, link.role);
      return;
    }
    const choice = chooseConnection(existing.link.role, link.role, this.localPeer, link.peer);
    if (choice === 'replace_existing') {
      const replaced = existing.link;
      existing.link = link;
      replaced.drop('replaced by a connection in the other direction', true);
      this.upgradeSucceeded(link.peer, link.role);
    } else {
      link.drop(choice === 'duplicate' ? 'duplicate connection' : 'reverse direction preferred');
      this.upgradeFailed(link.peer, link.role, choice);
    }
  }

  private upgradeSucceeded(peer: string, role: RemoteRole): void {
    this.log.debug(
      { peer, direction: role === 'listener' ? 'outbound' : 'inbound' },
      'blend core peer negotiated',
    );
    if (role === 'listener') this.dialer.succeeded(peer);
    this.emit('peer-connected', peer);
  }

  /** F `OutboundConnectionUpgradeFailed` in the swarm: a closed connection is a failed dial, others move on. */
  private upgradeFailed(peer: string, role: RemoteRole, reason: string): void {
    this.log.debug({ peer, reason }, 'blend core connection not upgraded');
    if (role !== 'listener') return;
    if (reason === 'connection_failure') this.dialer.failed(peer);
    else this.dialer.refused(peer);
  }

  private spammy(link: CoreLink, reason: SpamReason): void {
    const n = this.negotiated.get(link.peer);
    if (n !== undefined && n.link === link) n.state = { kind: 'spammy', reason };
    this.log.debug({ peer: link.peer, reason }, 'blend core peer spammy');
    link.drop(reason);
  }

  private endWindow(link: CoreLink): void {
    const monitor = link.monitor;
    if (monitor === null || link.dropped) return;
    const outcome = monitor.endWindow(this.expected ?? undefined);
    // inferred: F 0.3.1 computes these outcomes but takes no action on them (its handler's TODO); here a
    // spammy peer is blocked and an unhealthy one replaced, when the caller asks for monitoring
    const n = this.negotiated.get(link.peer);
    const current = n !== undefined && n.link === link;
    if (outcome === 'spammy') {
      this.spammy(link, 'too_many_messages');
      return;
    }
    if (!current || n.state.kind === 'spammy') return;
    if (outcome === 'unhealthy' && n.state.kind !== 'unhealthy') {
      n.state = UNHEALTHY;
      this.log.debug({ peer: link.peer }, 'blend core peer unhealthy');
      this.emit('peer-unhealthy', link.peer);
      this.dialer.check(new Set([link.peer]));
    } else if (outcome === 'healthy' && n.state.kind === 'unhealthy') {
      n.state = HEALTHY;
      this.log.debug({ peer: link.peer }, 'blend core peer healthy again');
      this.emit('peer-healthy', link.peer);
    }
  }

  // ---- messages

  private onCoreMessage(link: CoreLink, frame: Uint8Array): void {
    const old = this.old;
    const inOld = old !== null && old.peers.get(link.peer) === link;
    const cache = inOld ? old.cache : this.cache;
    const epoch = inOld ? old.epoch : this.epoch;
    const id = this.opts.validator.messageId(frame);
    const refuse = (reason: SpamReason) => {
      this.log.debug({ peer: link.peer, reason, old_epoch: inOld }, 'blend message refused');
      // F: a peer of the old epoch is disconnected, never marked spammy.
      if (inOld) link.drop(reason);
      else this.spammy(link, reason);
    };
    if (id === null) {
      refuse('undeserializable_message');
      return;
    }
    if (!cache.markSeenFrom(id, link.peer)) {
      refuse('duplicate_message');
      return;
    }
    if (cache.isProcessed(id)) return;
    void this.verify(frame, link.peer, epoch).then((outcome) => {
      if (outcome !== 'valid') {
        if (!link.dropped) refuse(outcome);
        return;
      }
      this.onVerified(frame, id, link.peer, epoch, false);
    });
  }

  private async verify(frame: Uint8Array, from: string, epoch: number): Promise<VerifyOutcome> {
    try {
      return await this.opts.validator.verify(frame, { from, epoch });
    } catch (e) {
      // F: a verification that fails to complete counts as a failed proof.
      this.log.debug({ peer: from, err: (e as Error).message }, 'blend message verification failed');
      return 'invalid_proof_of_quota';
    }
  }

  /**
   * A verified message: processed in its epoch's cache, relayed (a core peer's to every other core peer
   * of that epoch, an edge node's to all of them) and emitted, once.
   */
  private onVerified(frame: Uint8Array, id: string, from: string, epoch: number, fromEdge: boolean): void {
    if (this.stopped) return;
    const targets = this.targetsOf(epoch, fromEdge ? null : from);
    if (targets === null) {
      this.log.debug({ peer: from, epoch }, 'blend message of an epoch no longer served');
      return;
    }
    // inferred: F emits every copy whose verification completes (an edge node's without consulting the
    // cache); one emission per id and epoch here
    const fresh = targets.cache.markProcessed(id);
    const sent = this.forward(targets, frame, id);
    this.log.debug(
      { id, from, epoch, from_edge: fromEdge, relayed_to: sent, fresh },
      'blend message received',
    );
    if (fresh) this.emit('message', frame, from, { fromEdge, epoch });
  }

  /** The peers a message of `epoch` goes to (without `except`), or null for an epoch not served. */
  private targetsOf(epoch: number, except: string | null): EpochTargets | null {
    if (epoch === this.epoch) {
      const links = [...this.negotiated]
        .filter(([peer, n]) => peer !== except && n.state.kind !== 'spammy')
        .map(([, n]) => n.link);
      return { cache: this.cache, links };
    }
    const old = this.old;
    if (old === null || old.epoch !== epoch) return null;
    return { cache: old.cache, links: [...old.peers].filter(([peer]) => peer !== except).map(([, l]) => l) };
  }

  /** F `forward_validated_message_and_update_cache`: never twice, and marked only when sent to someone. */
  private forward(targets: EpochTargets, frame: Uint8Array, id: string): number {
    if (targets.cache.isForwarded(id)) return 0;
    const links = targets.links.filter((l) => !l.dropped);
    if (links.length === 0) return 0;
    const encoded = encodeBlendFrame(frame);
    for (const link of links) link.send(encoded);
    targets.cache.markForwarded(id);
    return links.length;
  }

  // ---- dialling core peers (the choice of whom: `core-dialer.ts`)

  private healthyPeers(): number {
    let n = 0;
    for (const p of this.negotiated.values()) if (p.state.kind === 'healthy') n++;
    return n;
  }

  /** Opens a new connection to a member; true when it is taken as a core connection. */
  private async dialCore(peer: string, addresses: Multiaddr[]): Promise<boolean> {
    count(this.coreDialing, peer, true);
    try {
      const conn = await this.host.dial(addresses, {
        force: true,
        signal: AbortSignal.timeout(DIAL_TIMEOUT_MS),
      });
      return this.kindOf(conn) === 'core';
    } finally {
      count(this.coreDialing, peer, false);
    }
  }
}

function count(m: Map<string, number>, key: string, on: boolean): void {
  const n = (m.get(key) ?? 0) + (on ? 1 : -1);
  if (n <= 0) m.delete(key);
  else m.set(key, n);
}

/** The settings the swarm cannot work with are refused before anything is built. */
function checkOptions(opts: BlendSwarmOptions): void {
  const bad = (what: string) => {
    throw new BlendNetworkError('BLEND_NETWORK_BAD_SETTINGS', `blend network settings: ${what}`, { what });
  };
  if (
    !Number.isInteger(opts.messageBytes) ||
    opts.messageBytes < 1 ||
    opts.messageBytes > MAX_BLEND_MESSAGE_BYTES
  )
    bad(`message size ${opts.messageBytes} does not fit a u16 frame`);
  if (opts.signingKeySeed.length !== 32) bad('the signing key seed is not 32 bytes');
  const { start, end } = opts.corePeeringDegree;
  if (!(Number.isInteger(start) && Number.isInteger(end) && start >= 0 && start <= end))
    bad(`core peering degree ${start}..${end}`);
  if (!(opts.maxDialAttemptsPerPeer >= 1 && opts.edgeMaxDialAttemptsPerPeer >= 1))
    bad('dial attempts below 1');
  if (opts.connectionMonitor !== null && !(opts.connectionMonitor.windowMs > 0))
    bad('observation window length');
}
