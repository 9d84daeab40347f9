/**
 * The Waku node of the `delivery_module` (operator.md §4, §6.3), on this project's libp2p 3 stack:
 * TCP on `tcpPort` with noise, yamux, identify and ping, a secp256k1 identity, Waku Relay (gossipsub on
 * `/vac/waku/relay/2.0.0`, unsigned messages, message id = sha256 of the data as nwaku and js-waku
 * compute it) subscribed to `/waku/2/rs/<cluster>/<shard>` for every shard when `relay` is on, Waku
 * Metadata (cluster and shards; peers of another cluster are disconnected), and discv5 on
 * `discv5UdpPort` with a Waku ENR (`@chainsafe/discv5`). Entry nodes (`enr:` records or multiaddrs)
 * seed discovery and dials; discovered records with the relay bit are dialled. Dials and lookups run
 * in the background with bounds, so starting never waits on an unreachable peer.
 *
 * Relayed messages are WakuMessage protobufs of at most `maxMessageSize` bytes; a malformed or oversized
 * one is rejected (not forwarded) and its sender is disconnected.
 */
import type { EventEmitter } from 'node:events';
import { Discv5 } from '@chainsafe/discv5';
import { type ENR, SignableENR } from '@chainsafe/enr';
import { noise } from '@chainsafe/libp2p-noise';
import { yamux } from '@chainsafe/libp2p-yamux';
import { type GossipSub, gossipsub, StrictNoSign, TopicValidatorResult } from '@libp2p/gossipsub';
import { identify } from '@libp2p/identify';
import type { Connection, PeerId, Stream } from '@libp2p/interface';
import { peerIdFromString } from '@libp2p/peer-id';
import { ping } from '@libp2p/ping';
import { tcp } from '@libp2p/tcp';
import { ConfigError } from '@logos-ts/shared/config-fields';
import { multiaddr } from '@multiformats/multiaddr';
import { sha256 } from '@noble/hashes/sha2.js';
import { createLibp2p, type Libp2p } from 'libp2p';
import type { Logger } from 'pino';
import type { DeliveryConfig } from './config.ts';
import { clusterOf, createLocalEnr, decodeEnr, hasRelay, tcpDialAddress } from './enr.ts';
import { DeliveryError } from './errors.ts';
import { decodeWakuMessage, encodeWakuMessage, messageHash, type WakuMessage } from './message.ts';
import { METADATA_PROTOCOL, type Membership, requestMetadata, serveMetadata } from './metadata.ts';
import type { NodeKey } from './node-key.ts';

export const RELAY_PROTOCOL = '/vac/waku/relay/2.0.0';
/** A dial that has not connected by then is given up. */
export const DIAL_TIMEOUT_MS = 10_000;
/** inferred: random discv5 lookups every 2 s for the first 5, then every 30 s */
const LOOKUP_FAST_MS = 2_000;
const LOOKUP_FAST_COUNT = 5;
const LOOKUP_SLOW_MS = 30_000;
const NEIGHBOUR_ASKS = 8;
/**
 * inferred: one lookup is given 10 s at most (discv5's default is 60 s). Also the time a finished lookup's
 * timer outlives it: @chainsafe/discv5 11 clears it only when a lookup is stopped, not when it ends by
 * itself, so a stopped node's process may wait that long before it can exit.
 */
const LOOKUP_TIMEOUT_MS = 10_000;
const FAR_DISTANCES = Array.from({ length: 16 }, (_, i) => 256 - i);

export const pubsubTopic = (cluster: number, shard: number): string => `/waku/2/rs/${cluster}/${shard}`;

export interface RelayNodeHooks {
  /** A valid relayed message (not our own). */
  onMessage(topic: string, message: WakuMessage, hash: Uint8Array): void;
  onDropped(reason: string): void;
  onDiscovered(): void;
  /** inferred: `Connected` with at least one peer, else `Disconnected` (emitted on a change) */
  onConnectionState(status: 'Connected' | 'Disconnected'): void;
}

type Services = { pubsub: GossipSub; identify: unknown; ping: unknown };

/**
 * The UDP bind address for discv5, as a multiaddr of the version discv5 itself uses (it reads its
 * `toOptions()` and compares its bytes): made by the ENR library, which shares that version.
 */
function udpBindAddr(secret: Uint8Array, host: string, port: number): never {
  const enr = SignableENR.createV4(secret);
  enr.ip = host;
  enr.udp = port;
  return enr.getLocationMultiaddr('udp') as never;
}

/** The shards the node relays: all of the cluster's when relay is on, none otherwise. */
export function relayShards(cfg: DeliveryConfig): number[] {
  return cfg.relay ? Array.from({ length: cfg.numShardsInNetwork }, (_, i) => i) : [];
}

/** The announced IPv4: `nat: extip:`, else the listen address when it is a concrete one. */
export function announcedIp(cfg: DeliveryConfig): string | null {
  return cfg.extIp ?? (cfg.listenAddress !== '0.0.0.0' ? cfg.listenAddress : null);
}

/** The node's ENR for its configuration and TCP port. */
export function localEnr(cfg: DeliveryConfig, secret: Uint8Array, tcpPort: number): SignableENR {
  return createLocalEnr({
    secret,
    ip: announcedIp(cfg),
    tcpPort,
    udpPort: cfg.discv5UdpPort,
    relay: cfg.relay,
    extMultiaddrs: cfg.extMultiaddrs,
    clusterId: cfg.clusterId,
    shards: relayShards(cfg),
  });
}

export class WakuRelayNode {
  private discv5: Discv5 | null = null;
  private lookupTimer: NodeJS.Timeout | null = null;
  private lookups = 0;
  private readonly dialing = new Set<string>();
  private readonly topics = new Set<string>();
  private stopped = false;
  private enrText = '';

  private constructor(
    private readonly cfg: DeliveryConfig,
    readonly node: Libp2p<Services>,
    private readonly key: NodeKey,
    private readonly log: Logger,
    private readonly hooks: RelayNodeHooks,
  ) {}

  /** Builds and starts the node; throws when a port cannot be bound (nothing is left running). */
  static async start(
    cfg: DeliveryConfig,
    key: NodeKey,
    log: Logger,
    hooks: RelayNodeHooks,
  ): Promise<WakuRelayNode> {
    const announce = [
      ...(cfg.extIp !== null ? [`/ip4/${cfg.extIp}/tcp/${cfg.tcpPort}`] : []),
      ...cfg.extMultiaddrs,
    ];
    const libp2p = await createLibp2p({
      start: false,
      privateKey: key.privateKey,
      addresses: {
        listen: [`/ip4/${cfg.listenAddress}/tcp/${cfg.tcpPort}`],
        ...(announce.length > 0 ? { announce } : {}),
      },
      transports: [tcp()],
      connectionEncrypters: [noise()],
      streamMuxers: [yamux()],
      connectionManager: { maxConnections: cfg.maxConnections },
      services: {
        identify: identify(),
        ping: ping(),
        pubsub: gossipsub({
          protocols: [RELAY_PROTOCOL],
          globalSignaturePolicy: StrictNoSign,
          msgIdFn: (m) => sha256(m.data),
          fallbackToFloodsub: false,
          allowPublishToZeroTopicPeers: true,
          ignoreDuplicatePublishError: true,
          // the gossipsub frame around a message of the largest size
          maxInboundDataLength: cfg.maxMessageSize + 64 * 1024,
        }),
      },
    });
    const n = new WakuRelayNode(cfg, libp2p as unknown as Libp2p<Services>, key, log, hooks);
    try {
      await n.startAll();
    } catch (e) {
      await n.stop().catch(() => {});
      throw e;
    }
    return n;
  }

  private get pubsub(): GossipSub {
    return this.node.services.pubsub;
  }

  private async startAll(): Promise<void> {
    await this.node.start();
    await this.serveMetadata();
    let state: 'Connected' | 'Disconnected' = 'Disconnected';
    const track = () => {
      const now = this.node.getPeers().length > 0 ? 'Connected' : 'Disconnected';
      if (now === state || this.stopped) return;
      state = now;
      this.hooks.onConnectionState(now);
    };
    this.node.addEventListener('peer:connect', track);
    this.node.addEventListener('peer:disconnect', track);
    this.pubsub.addEventListener('message', (evt) => {
      const { topic, data } = evt.detail;
      if (!this.topics.has(topic)) return;
      try {
        const m = decodeWakuMessage(data, this.cfg.maxMessageSize);
        this.hooks.onMessage(topic, m, messageHash(topic, m));
      } catch {
        // already refused by the validator; nothing reaches here undecodable
      }
    });
    if (this.cfg.relay)
      for (let shard = 0; shard < this.cfg.numShardsInNetwork; shard++)
        this.subscribeTopic(pubsubTopic(this.cfg.clusterId, shard));
    const enr = localEnr(this.cfg, this.key.secret, this.boundTcpPort());
    this.enrText = enr.encodeTxt();
    if (this.cfg.discv5Discovery) await this.startDiscv5(enr, enr.ip === undefined);
    for (const entry of this.cfg.entryNodes) this.useEntryNode(entry);
  }

  /** Our cluster and shards (the shards only when relay is on). */
  private membership(): Membership {
    return { clusterId: this.cfg.clusterId, shards: relayShards(this.cfg) };
  }

  /** Waku Metadata: answered to every peer, asked of every peer that serves it; other clusters are dropped. */
  private async serveMetadata(): Promise<void> {
    const own = this.membership();
    const drop = (peer: PeerId, why: string) => {
      this.log.debug({ peer: peer.toString(), why }, 'peer of another cluster disconnected');
      void this.node.hangUp(peer).catch(() => {});
    };
    await this.node.handle(METADATA_PROTOCOL, (stream: Stream, connection: Connection) => {
      serveMetadata(stream, own)
        .then((otherCluster) => {
          if (otherCluster) drop(connection.remotePeer, 'metadata request of another cluster');
        })
        .catch((e: Error) => {
          stream.abort(e);
          this.log.debug({ peer: connection.remotePeer.toString(), err: e.message }, 'bad metadata request');
        });
    });
    this.node.addEventListener('peer:identify', (evt) => {
      const { connection, protocols } = evt.detail;
      if (!protocols.includes(METADATA_PROTOCOL) || this.stopped) return;
      requestMetadata(connection, own)
        .then((m) => {
          if (m.clusterId !== own.clusterId) drop(connection.remotePeer, `cluster ${m.clusterId}`);
        })
        .catch((e: Error) =>
          this.log.debug(
            { peer: connection.remotePeer.toString(), err: e.message },
            'metadata request failed',
          ),
        );
    });
  }

  private async startDiscv5(enr: SignableENR, learnIp: boolean): Promise<void> {
    if (this.cfg.discv5UdpPort === 0)
      throw new ConfigError('discv5UdpPort must be set (not 0) when discv5Discovery is on');
    const d = Discv5.create({
      enr,
      privateKey: this.key.privateKey as never,
      bindAddrs: { ip4: udpBindAddr(this.key.secret, this.cfg.listenAddress, this.cfg.discv5UdpPort) },
      config: { enrUpdate: learnIp, lookupTimeout: LOOKUP_TIMEOUT_MS },
    });
    // Discv5's typed emitter methods come from a types package that is not installed: its plain emitter.
    const events = d as unknown as EventEmitter;
    events.on('discovered', (found: ENR) => this.consider(found));
    events.on('enrAdded', (found: ENR) => this.consider(found));
    events.on('multiaddrUpdated', () => {
      this.enrText = d.enr.encodeTxt();
    });
    await d.start();
    this.discv5 = d;
    this.scheduleLookup(0);
  }

  private scheduleLookup(delay: number): void {
    if (this.stopped || this.discv5 === null) return;
    this.lookupTimer = setTimeout(() => {
      const d = this.discv5;
      if (d === null || this.stopped) return;
      this.lookups++;
      const asks = [
        d.findRandomNode(),
        // inferred: in a small network a random lookup seldom asks for the distances its few nodes are
        // at, so the nearest known nodes are also asked for the 16 farthest distances (most nodes are
        // there; a NODES answer holds at most 16 records)
        ...d
          .kadValues()
          .slice(0, NEIGHBOUR_ASKS)
          .map((enr) => d.sendFindNode(enr, FAR_DISTANCES)),
      ];
      Promise.allSettled(asks)
        .then((results) => {
          for (const r of results) {
            if (r.status === 'fulfilled') for (const e of r.value) this.consider(e);
            else this.log.debug({ err: (r.reason as Error)?.message }, 'discv5 lookup failed');
          }
        })
        .catch((e: unknown) => this.log.debug({ err: (e as Error)?.message }, 'discv5 lookup failed'))
        .finally(() =>
          this.scheduleLookup(this.lookups < LOOKUP_FAST_COUNT ? LOOKUP_FAST_MS : LOOKUP_SLOW_MS),
        );
    }, delay);
    this.lookupTimer.unref();
  }

  /** An entry node: an `enr:` record goes to discv5 (and is dialled), a multiaddr is dialled. */
  private useEntryNode(entry: string): void {
    if (entry.startsWith('enr:')) {
      let enr: ENR;
      try {
        enr = decodeEnr(entry);
      } catch (e) {
        this.log.warn({ err: (e as Error).message }, 'entry node: bad ENR');
        return;
      }
      try {
        this.discv5?.addEnr(enr);
      } catch (e) {
        this.log.debug({ err: (e as Error).message }, 'entry node not added to discv5');
      }
      const addr = tcpDialAddress(enr);
      if (addr !== undefined && hasRelay(enr)) this.dial(addr);
      return;
    }
    this.dial(entry);
  }

  /** A record found by discv5: dialled when it announces relay and a TCP address. */
  private consider(enr: ENR): void {
    // a record comes from any peer and is only signature-checked: reading a malformed field (a 3-byte
    // `ip`) throws, here possibly inside discv5's socket handler, where a throw would end the process
    try {
      if (!hasRelay(enr)) return;
      // a relay node of another cluster shares no topic with us
      const cluster = clusterOf(enr);
      if (cluster !== undefined && cluster !== this.cfg.clusterId) return;
      const addr = tcpDialAddress(enr);
      if (addr === undefined) return;
      this.hooks.onDiscovered();
      this.dial(addr);
    } catch (e) {
      this.log.debug({ err: (e as Error).message }, 'discovered record ignored');
    }
  }

  private dial(addr: string): void {
    if (this.stopped) return;
    let ma: ReturnType<typeof multiaddr>;
    let peer: PeerId;
    try {
      ma = multiaddr(addr);
      const id = ma.getComponents().find((c) => c.name === 'p2p')?.value;
      if (id === undefined) throw new DeliveryError('DELIVERY_BAD_ADDRESS', 'no /p2p/');
      peer = peerIdFromString(id);
    } catch (e) {
      this.log.debug({ addr, err: (e as Error).message }, 'not a dialable address');
      return;
    }
    const id = peer.toString();
    if (peer.equals(this.node.peerId) || this.dialing.has(id) || this.node.getConnections(peer).length > 0)
      return;
    if (this.node.getConnections().length >= this.cfg.maxConnections) return;
    this.dialing.add(id);
    this.node
      .dial(ma, { signal: AbortSignal.timeout(DIAL_TIMEOUT_MS) })
      .then(() => this.log.debug({ peer: id }, 'connected'))
      .catch((e: Error) => this.log.debug({ peer: id, err: e.message }, 'dial failed'))
      .finally(() => this.dialing.delete(id));
  }

  /** Joins a relay pubsub topic; its messages are validated (WakuMessage, size) before they are forwarded. */
  subscribeTopic(topic: string): void {
    if (this.topics.has(topic)) return;
    this.topics.add(topic);
    this.pubsub.topicValidators.set(topic, (peer, msg) => {
      try {
        decodeWakuMessage(msg.data, this.cfg.maxMessageSize);
        return TopicValidatorResult.Accept;
      } catch (e) {
        this.hooks.onDropped('invalid');
        this.log.debug(
          { peer: peer.toString(), err: (e as Error).message },
          'invalid relay message; peer dropped',
        );
        // inferred: a peer relaying garbage is disconnected (besides gossipsub's score penalty)
        void this.node.hangUp(peer).catch(() => {});
        return TopicValidatorResult.Reject;
      }
    });
    this.pubsub.subscribe(topic);
  }

  /** Publishes a message on a pubsub topic; the number of peers it was sent to. */
  async publish(topic: string, m: WakuMessage): Promise<number> {
    const r = await this.pubsub.publish(topic, encodeWakuMessage(m));
    return r.recipients.length;
  }

  get peerId(): string {
    return this.node.peerId.toString();
  }

  get enr(): string {
    return this.enrText;
  }

  boundTcpPort(): number {
    for (const a of this.node.getMultiaddrs()) {
      const c = a.getComponents().find((x) => x.name === 'tcp');
      if (c?.value !== undefined) return Number(c.value);
    }
    return this.cfg.tcpPort;
  }

  /** The node's addresses with `/p2p/<id>` (the announced ones when `nat: extip:` or `extMultiaddrs` is set). */
  multiaddrs(): string[] {
    return this.node.getMultiaddrs().map((a) => a.toString());
  }

  connectedPeers(): number {
    return this.node.getPeers().length;
  }

  dialProtocol(
    addrs: ReturnType<typeof multiaddr>[],
    protocol: string,
    opts: { signal: AbortSignal },
  ): Promise<Stream> {
    return this.node.dialProtocol(addrs, protocol, opts);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.lookupTimer !== null) clearTimeout(this.lookupTimer);
    const d = this.discv5;
    this.discv5 = null;
    if (d !== null)
      await d.stop().catch((e: Error) => this.log.debug({ err: e.message }, 'discv5 stop failed'));
    await this.node.stop();
  }
}
