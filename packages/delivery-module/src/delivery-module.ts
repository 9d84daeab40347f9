/**
 * The `delivery_module` calls (operator.md §4.2; the reference module's `delivery_module_plugin.h`):
 * `createNode` once, `start`/`stop` (events `nodeStarted`/`nodeStopped`), the messaging calls
 * (`send`, `subscribe`, `unsubscribe`; refused on the kernel entry layer with the reference's texts),
 * the reliable-channel calls (refused: this node has no channel manager), `storeQuery`, the node info
 * (`getAvailableNodeInfoIDs` in its 0.2.x string form, `getNodeInfo`), `getAvailableConfigs` and
 * `collectOpenMetricsText`. Events carry their parameters as one object, timestamps in nanoseconds.
 */
import { randomUUID } from 'node:crypto';
import { peerIdFromPrivateKey } from '@libp2p/peer-id';
import { ConfigError } from '@logos-ts/shared/config-fields';
import type { Json } from '@logos-ts/shared/json';
import { fail, type ModuleContext, ok, type StdLogosResult } from '@logos-ts/shared/module-api';
import { contentTopicToPubsubTopic, ensureValidContentTopic } from '@waku/utils';
import { type DeliveryConfig, parseDeliveryConfig } from './config.ts';
import { availableConfigs } from './config-options.ts';
import { StoreQueryError } from './errors.ts';
import { encodeWakuMessage, messageHash, nowNs, payloadBytes, to0xHex, type WakuMessage } from './message.ts';
import { MetricsRegistry } from './metrics.ts';
import { loadNodeKey, type NodeKey } from './node-key.ts';
import { announcedIp, localEnr, WakuRelayNode } from './relay-node.ts';
import { parsePeerAddrs, parseStoreQuery, storeQuery } from './store-client.ts';

/** Our `Version` node info (nwaku answers its `git_version`). */
export const NODE_VERSION = 'v0.2.1-ts';
/** The 0.2.x answer of `getAvailableNodeInfoIDs`: Nim's `$` of the id list. */
export const NODE_INFO_IDS = '@[Version, Metrics, MyMultiaddresses, MyENR, MyPeerId]';
const INFO_IDS = ['Version', 'Metrics', 'MyMultiaddresses', 'MyENR', 'MyPeerId', 'MyBoundPorts'] as const;

export const NOT_INITIALIZED = 'Context not initialized';
const NO_MESSAGING = 'node has no messaging client (kernel-only node)';
const NO_CHANNELS = 'node has no reliable channel manager (kernel-only node)';

/** Nim's `parseEnum`: the first character exact, the rest case- and underscore-insensitive. */
function infoId(id: string): (typeof INFO_IDS)[number] | undefined {
  const norm = (s: string) => s[0] + s.slice(1).replace(/_/g, '').toLowerCase();
  return id === '' ? undefined : INFO_IDS.find((x) => norm(x) === norm(id));
}

const text = (v: Json | undefined): string =>
  typeof v === 'string' ? v : v === undefined || v === null ? '' : String(v);

export class DeliveryModule {
  private cfg: DeliveryConfig | null = null;
  private creating = false;
  private key: NodeKey | null = null;
  private node: WakuRelayNode | null = null;
  private starting: Promise<StdLogosResult> | null = null;
  /** Content topics of `subscribe`. */
  private readonly contentTopics = new Set<string>();
  private readonly metrics = new MetricsRegistry();
  private readonly countReceived: (labels?: Record<string, string>) => void;
  private readonly countPublished: (labels?: Record<string, string>) => void;
  private readonly countDropped: (labels?: Record<string, string>) => void;
  private readonly countDiscovered: () => void;

  constructor(private readonly ctx: ModuleContext) {
    this.metrics.info('waku_version', 'The version of the node', { version: NODE_VERSION });
    this.metrics.gauge('libp2p_peers', 'Number of connected peers', () => this.node?.connectedPeers() ?? 0);
    this.countReceived = this.metrics.counter(
      'waku_relay_messages_received_total',
      'Valid relay messages received',
    );
    this.countPublished = this.metrics.counter(
      'waku_relay_messages_published_total',
      'Messages published by this node',
    );
    this.countDropped = this.metrics.counter('waku_relay_messages_dropped_total', 'Relay messages refused');
    const discovered = this.metrics.counter(
      'waku_discv5_discovered_peers_total',
      'Relay peers found by discv5',
    );
    this.countDiscovered = () => discovered();
  }

  private emit(event: string, payload: Record<string, Json>): void {
    this.ctx.emit(event, payload);
  }

  /** Parses the configuration and loads (or creates) the node key: the node's identity exists from here. */
  async createNode(cfgArg: Json | undefined): Promise<StdLogosResult> {
    if (this.cfg !== null || this.creating) return fail('Context already initialized');
    this.creating = true;
    try {
      const cfg = parseDeliveryConfig(cfgArg);
      this.key = await loadNodeKey(cfg.nodekey, this.ctx.dataDir);
      this.cfg = cfg;
    } catch (e) {
      if (e instanceof ConfigError) return fail(e.message);
      return fail(`Failed to create Delivery context: ${(e as Error).message}`);
    } finally {
      this.creating = false;
    }
    this.ctx.logger.level = this.cfg.logLevel;
    // The configuration may hold the node key: only its shape is logged.
    this.ctx.logger.info(
      {
        entryLayer: this.cfg.entryLayer,
        preset: this.cfg.preset,
        clusterId: this.cfg.clusterId,
        relay: this.cfg.relay,
        peerId: this.peerId(),
      },
      'delivery node created',
    );
    return ok(null);
  }

  private peerId(): string {
    return this.key === null ? '' : peerIdFromPrivateKey(this.key.privateKey).toString();
  }

  async start(): Promise<StdLogosResult> {
    const cfg = this.cfg;
    if (cfg === null) return fail(NOT_INITIALIZED);
    if (this.node !== null) return fail('failed to start: node already started');
    if (this.starting !== null) return fail('failed to start: node is starting');
    this.starting = (async () => {
      try {
        this.node = await WakuRelayNode.start(cfg, this.key!, this.ctx.logger, {
          onMessage: (topic, m, hash) => this.received(topic, m, hash),
          onDropped: (reason) => this.countDropped({ reason }),
          onDiscovered: () => this.countDiscovered(),
          onConnectionState: (connectionStatus) =>
            this.emit('connectionStateChanged', { connectionStatus, timestamp: nowNs() }),
        });
      } catch (e) {
        const message = `failed to start: ${(e as Error).message}`;
        this.emit('nodeStarted', { success: false, message, timestamp: nowNs() });
        return fail(message);
      } finally {
        this.starting = null;
      }
      this.ctx.logger.info(
        { peerId: this.node.peerId, addrs: this.node.multiaddrs() },
        'delivery node started',
      );
      if (cfg.entryNodes.length === 0)
        // inferred: the presets' fleet entry nodes are not built in (their records are not published here)
        this.ctx.logger.warn('no entryNodes configured: the node finds peers only when others dial it');
      this.emit('nodeStarted', { success: true, message: '', timestamp: nowNs() });
      return ok(null);
    })();
    return this.starting;
  }

  async stop(): Promise<StdLogosResult> {
    if (this.cfg === null) return fail(NOT_INITIALIZED);
    await this.starting;
    const node = this.node;
    this.node = null;
    try {
      await node?.stop();
    } catch (e) {
      const message = `failed to stop: ${(e as Error).message}`;
      this.emit('nodeStopped', { success: false, message, timestamp: nowNs() });
      return fail(message);
    }
    this.emit('nodeStopped', { success: true, message: '', timestamp: nowNs() });
    return ok(null);
  }

  /** The messaging client exists on the messaging and channels layers; its calls need a started node. */
  private messaging(
    op: string,
    topicArg: Json | undefined,
  ): { node: WakuRelayNode; topic: string } | StdLogosResult {
    const cfg = this.cfg;
    if (cfg === null) return fail(NOT_INITIALIZED);
    if (cfg.entryLayer === 'kernel') return fail(`${op} failed: ${NO_MESSAGING}`);
    const topic = text(topicArg);
    try {
      ensureValidContentTopic(topic);
    } catch (e) {
      return fail(`${op} failed: ${(e as Error).message}`);
    }
    if (this.node === null) return fail(`${op} failed: node is not started`);
    return { node: this.node, topic };
  }

  private shardTopic(contentTopic: string): string {
    const cfg = this.cfg!;
    return contentTopicToPubsubTopic(contentTopic, cfg.clusterId, cfg.numShardsInNetwork);
  }

  send(contentTopic: Json | undefined, payload: Json | undefined): StdLogosResult {
    const m = this.messaging('Send', contentTopic);
    if (!('node' in m)) return m;
    let bytes: Uint8Array;
    try {
      bytes = payloadBytes(payload);
    } catch (e) {
      return fail(`Send failed: ${(e as Error).message}`);
    }
    const message: WakuMessage = {
      payload: bytes,
      contentTopic: m.topic,
      version: 0,
      timestamp: nowNs(),
      ephemeral: false,
    };
    const topic = this.shardTopic(m.topic);
    if (encodeWakuMessage(message).length > this.cfg!.maxMessageSize)
      return fail(`Send failed: message exceeds ${this.cfg!.maxMessageSize} bytes`);
    const requestId = randomUUID();
    const hash = to0xHex(messageHash(topic, message));
    m.node
      .publish(topic, message)
      .then((peers) => {
        this.countPublished();
        if (peers === 0) {
          // inferred: with no relay peer on the shard the send fails (the reference retries in its send service)
          this.emit('messageError', {
            requestId,
            messageHash: hash,
            error: 'no peers to relay the message to',
            timestamp: nowNs(),
          });
          return;
        }
        this.emit('messagePropagated', { requestId, messageHash: hash, timestamp: nowNs() });
        this.emit('messageSent', { requestId, messageHash: hash, timestamp: nowNs() });
      })
      .catch((e: Error) =>
        this.emit('messageError', { requestId, messageHash: hash, error: e.message, timestamp: nowNs() }),
      );
    return ok(requestId);
  }

  subscribe(contentTopic: Json | undefined): StdLogosResult {
    const m = this.messaging('Subscribe', contentTopic);
    if (!('node' in m)) return m;
    this.contentTopics.add(m.topic);
    m.node.subscribeTopic(this.shardTopic(m.topic));
    return ok(null);
  }

  unsubscribe(contentTopic: Json | undefined): StdLogosResult {
    const m = this.messaging('Unsubscribe', contentTopic);
    if (!('node' in m)) return m;
    if (!this.contentTopics.delete(m.topic)) return fail(`Unsubscribe failed: not subscribed to ${m.topic}`);
    return ok(null);
  }

  private received(topic: string, m: WakuMessage, hash: Uint8Array): void {
    this.countReceived();
    if (!this.contentTopics.has(m.contentTopic)) return;
    this.emit('messageReceived', {
      messageHash: to0xHex(hash),
      contentTopic: m.contentTopic,
      // inferred: the raw payload bytes travel as base64 in the event's JSON
      payload: Buffer.from(m.payload).toString('base64'),
      pubsubTopic: topic,
      timestamp: m.timestamp ?? 0n,
    });
  }

  /** `channelCreate`/`channelExists`/`channelSend`/`channelClose`: no reliable channel manager here. */
  channel(op: string): StdLogosResult {
    const cfg = this.cfg;
    if (cfg === null) return fail(NOT_INITIALIZED);
    if (cfg.entryLayer === 'channels')
      return fail(`${op} failed: reliable channels (SDS) are not supported by this node; use send/subscribe`);
    return fail(`${op} failed: ${NO_CHANNELS}`);
  }

  async storeQuery(
    query: Json | undefined,
    peerAddr: Json | undefined,
    timeoutMs: Json | undefined,
  ): Promise<StdLogosResult> {
    if (this.cfg === null) return fail(NOT_INITIALIZED);
    const timeout = typeof timeoutMs === 'string' && /^\d+$/.test(timeoutMs) ? Number(timeoutMs) : timeoutMs;
    if (typeof timeout !== 'number' || !Number.isInteger(timeout) || timeout <= 0 || timeout > 600_000)
      return fail('timeoutMs must be an integer from 1 to 600000');
    try {
      const request = parseStoreQuery(query);
      const addrs = parsePeerAddrs(peerAddr);
      if (this.node === null) return fail('StoreRequest failed store query: node is not started');
      return ok(await storeQuery(this.node, request, addrs, timeout));
    } catch (e) {
      if (e instanceof StoreQueryError) return fail(e.message);
      throw e;
    }
  }

  getAvailableNodeInfoIDs(): StdLogosResult {
    if (this.cfg === null) return fail(NOT_INITIALIZED);
    return ok(NODE_INFO_IDS);
  }

  getNodeInfo(idArg: Json | undefined): StdLogosResult {
    if (this.cfg === null) return fail(NOT_INITIALIZED);
    const raw = text(idArg);
    const id = infoId(raw);
    if (id === undefined) return fail(`Invalid node info id: ${raw}`);
    const node = this.node;
    switch (id) {
      case 'Version':
        return ok(NODE_VERSION);
      case 'Metrics':
        return ok(this.metrics.render());
      case 'MyMultiaddresses':
        return ok(node === null ? this.configuredAddrs().join(',') : node.multiaddrs().join(','));
      case 'MyENR':
        return ok(node?.enr ?? localEnr(this.cfg, this.key!.secret, this.cfg.tcpPort).encodeTxt());
      case 'MyPeerId':
        return ok(this.peerId());
      case 'MyBoundPorts':
        return ok(
          JSON.stringify(
            node === null
              ? {}
              : {
                  tcp: node.boundTcpPort(),
                  ...(this.cfg.discv5Discovery ? { discv5Udp: this.cfg.discv5UdpPort } : {}),
                },
          ),
        );
    }
  }

  /**
   * The addresses a created node will announce, before it runs: `nat: extip:` (else the listen address)
   * on `tcpPort`, and `extMultiaddrs`, each with `/p2p/<id>`.
   */
  // inferred: nwaku's listenAddresses are known from its configuration before start
  private configuredAddrs(): string[] {
    const cfg = this.cfg!;
    const p2p = `/p2p/${this.peerId()}`;
    return [
      `/ip4/${announcedIp(cfg) ?? cfg.listenAddress}/tcp/${cfg.tcpPort}${p2p}`,
      ...cfg.extMultiaddrs.map((a) => a + p2p),
    ];
  }

  getAvailableConfigs(): StdLogosResult {
    if (this.cfg === null) return fail(NOT_INITIALIZED);
    return ok(availableConfigs());
  }

  /** The metrics text; empty before `createNode` (the reference's rule, so a scrape never fails). */
  collectOpenMetricsText(): string {
    return this.cfg === null ? '' : this.metrics.render();
  }

  async close(): Promise<void> {
    await this.starting;
    const node = this.node;
    this.node = null;
    await node?.stop();
  }
}
