/**
 * An in-memory peer-to-peer network for tests: a `FakeNetworkBus` joins any number of `FakeNetwork`
 * nodes, each an `INetwork`. Gossip is flooded along connections as gossipsub forwards it (each node
 * forwards a message once, deduplicated by its content as F's `message_id_fn` does, and only once its
 * handlers accepted it, as the node's gossipsub does; `from` is the forwarding peer; the publisher's own
 * subscribers receive it too). Requests run the target's handler
 * with the same limits a real stream has (request and frame sizes, per-frame timeout, inbound cap).
 * Delivery is asynchronous; `settled()` waits until no gossip is in flight. Penalties are recorded,
 * not enforced, for tests to read.
 */
import { createHash } from 'node:crypto';
import { EventEmitter } from 'node:events';
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
} from '../../src/network/interface.ts';
import { jointVerdict } from '../../src/network/verdict.ts';

export interface Penalty {
  readonly peer: string;
  readonly offence: Offence;
  readonly reason: string;
}

export interface BusOptions {
  /** Delay of each gossip hop and each request frame, ms (default 0: next turn of the event loop). */
  readonly latencyMs?: number;
}

/** Decides whether a gossip message crosses one hop (`from` → `to`); return false to drop it. */
export type GossipFilter = (from: string, to: string, topic: string, data: Uint8Array) => boolean;

const messageId = (data: Uint8Array) => createHash('sha256').update(data).digest('hex');

export class FakeNetworkBus {
  readonly nodes = new Map<string, FakeNetwork>();
  /** Drops gossip hops it answers false for (e.g. keep a transaction from one node). */
  filter: GossipFilter | undefined;
  readonly latencyMs: number;
  private counter = 0;
  /** Deliveries scheduled by `later` that have not run yet, and who waits for there to be none. */
  private pending = 0;
  private readonly idle: (() => void)[] = [];

  constructor(opts: BusOptions = {}) {
    this.latencyMs = opts.latencyMs ?? 0;
  }

  /** A new node on the bus, not connected to anyone. */
  node(peerId?: string): FakeNetwork {
    const id = peerId ?? `fake-peer-${++this.counter}`;
    if (this.nodes.has(id)) throw new Error(`peer ${id} already on the bus`);
    const n = new FakeNetwork(this, id);
    this.nodes.set(id, n);
    return n;
  }

  /** `count` nodes, all connected to each other. */
  mesh(count: number): FakeNetwork[] {
    const nodes = Array.from({ length: count }, () => this.node());
    for (let i = 0; i < nodes.length; i++)
      for (let j = i + 1; j < nodes.length; j++) this.connect(nodes[i]!, nodes[j]!);
    return nodes;
  }

  connect(a: FakeNetwork, b: FakeNetwork): void {
    if (a === b || a.peers.has(b.peerId)) return;
    a.peers.add(b.peerId);
    b.peers.add(a.peerId);
    a.emit('peer:connect', b.peerId);
    b.emit('peer:connect', a.peerId);
  }

  disconnect(a: FakeNetwork, b: FakeNetwork): void {
    if (!a.peers.delete(b.peerId)) return;
    b.peers.delete(a.peerId);
    a.emit('peer:disconnect', b.peerId);
    b.emit('peer:disconnect', a.peerId);
  }

  /** Runs `fn` after the bus latency (at least the next turn of the event loop). */
  later(fn: () => void): void {
    this.pending++;
    const run = () => {
      try {
        fn();
      } finally {
        // Deliveries `fn` scheduled were counted before this one is taken off.
        if (--this.pending === 0) for (const resolve of this.idle.splice(0)) resolve();
      }
    };
    if (this.latencyMs > 0) setTimeout(run, this.latencyMs);
    else setImmediate(run);
  }

  /** Counts `p` as gossip in flight until it settles (a message being judged before it is forwarded). */
  track(p: Promise<unknown>): void {
    this.pending++;
    void p.finally(() => {
      if (--this.pending === 0) for (const resolve of this.idle.splice(0)) resolve();
    });
  }

  /**
   * Resolves once the bus is quiet: every gossip hop and local delivery scheduled so far has run,
   * and those they scheduled in turn. Request frames are not counted.
   */
  settled(): Promise<void> {
    if (this.pending === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  /** Every penalty recorded by any node, with the node that recorded it. */
  penalties(): (Penalty & { by: string })[] {
    return [...this.nodes.values()].flatMap((n) => n.penalties.map((p) => ({ ...p, by: n.peerId })));
  }

  close(): void {
    for (const n of this.nodes.values()) n.removeAllListeners();
    this.nodes.clear();
  }
}

export class FakeNetwork extends EventEmitter<NetworkEvents> implements INetwork {
  readonly peers = new Set<string>();
  readonly penalties: Penalty[] = [];
  /** Every message published by this node: topic and bytes. */
  readonly published: { topic: string; data: Uint8Array }[] = [];
  private readonly subscribers = new Map<string, GossipHandler[]>();
  private readonly handlers = new Map<
    string,
    { handler: RequestHandler; opts: HandleOptions; active: number }
  >();
  private readonly seen = new Set<string>();

  constructor(
    private readonly bus: FakeNetworkBus,
    readonly peerId: string,
  ) {
    super();
  }

  async publish(topic: string, data: Uint8Array): Promise<void> {
    const copy = data.slice();
    this.published.push({ topic, data: copy });
    const id = `${topic}\n${messageId(copy)}`;
    if (this.seen.has(id)) return; // gossipsub refuses a duplicate publish
    this.seen.add(id);
    // F feeds the node's own message back to its local subscribers.
    this.bus.later(() => void this.deliverLocal(topic, copy, this.peerId));
    this.forward(topic, copy, undefined);
  }

  subscribe(topic: string, handler: GossipHandler): void {
    const list = this.subscribers.get(topic) ?? [];
    list.push(handler);
    this.subscribers.set(topic, list);
  }

  /** Test helper: this node receives `data` on `topic` as if `from` had forwarded it (not forwarded on). */
  inject(topic: string, data: Uint8Array, from: string): void {
    void this.deliverLocal(topic, data.slice(), from);
  }

  /** A hop of a message from `from`: deduplicated, delivered to subscribers, forwarded to other peers. */
  receive(topic: string, data: Uint8Array, from: string): void {
    const id = `${topic}\n${messageId(data)}`;
    if (this.seen.has(id)) return;
    this.seen.add(id);
    this.bus.track(
      this.deliverLocal(topic, data, from).then((v) => {
        if (v === 'accept') this.forward(topic, data, from);
      }),
    );
  }

  /** Hands the message to the subscribers; their joint verdict. */
  private async deliverLocal(topic: string, data: Uint8Array, from: string): Promise<GossipVerdict> {
    const verdicts = (this.subscribers.get(topic) ?? []).map((h) =>
      h(data.slice(), from).catch((): GossipVerdict => 'ignore'),
    );
    return jointVerdict(await Promise.all(verdicts));
  }

  private forward(topic: string, data: Uint8Array, except: string | undefined): void {
    for (const p of this.peers) {
      if (p === except) continue;
      const target = this.bus.nodes.get(p);
      if (!target) continue;
      if (this.bus.filter && !this.bus.filter(this.peerId, p, topic, data)) continue;
      this.bus.later(() => {
        if (this.peers.has(p)) target.receive(topic, data, this.peerId);
      });
    }
  }

  async *request(
    peer: string,
    protocol: string,
    request: Uint8Array,
    opts: RequestOptions,
  ): AsyncIterable<Uint8Array> {
    const target = this.bus.nodes.get(peer);
    if (!target || !this.peers.has(peer)) throw new Error(`not connected to ${peer}`);
    yield* target.serve(protocol, request.slice(), this.peerId, opts);
  }

  /** Runs this node's handler of `protocol` for a request from `from`, with the stream's limits. */
  async *serve(
    protocol: string,
    request: Uint8Array,
    from: string,
    opts: RequestOptions,
  ): AsyncIterable<Uint8Array> {
    const entry = this.handlers.get(protocol);
    if (!entry) throw new Error(`protocol ${protocol} not supported by ${this.peerId}`);
    // Streams over the cap, or requests over the limit, are closed without an answer.
    if (entry.active >= entry.opts.maxInbound) return;
    if (request.length > entry.opts.maxRequestBytes) return;
    entry.active++;
    try {
      const it = entry.handler(request, from)[Symbol.asyncIterator]();
      for (;;) {
        opts.signal?.throwIfAborted();
        const next = await withTimeout(it.next(), opts.frameTimeoutMs, this.bus.latencyMs);
        if (next.done) return;
        if (next.value.length > opts.maxFrameBytes)
          throw new Error(`frame of ${next.value.length} bytes exceeds ${opts.maxFrameBytes}`);
        yield next.value.slice();
      }
    } finally {
      entry.active--;
    }
  }

  handle(protocol: string, handler: RequestHandler, opts: HandleOptions): void {
    this.handlers.set(protocol, { handler, opts, active: 0 });
  }

  connectedPeers(): string[] {
    return [...this.peers];
  }

  discoveredPeers(): string[] {
    return [...this.peers];
  }

  penalize(peer: string, offence: Offence, reason: string): void {
    this.penalties.push({ peer, offence, reason });
  }

  /** `addr` is `/memory/<peer id>` (or the bare peer id) of a node on the same bus. */
  async dial(addr: string): Promise<string> {
    const id = addr.startsWith('/memory/') ? addr.slice('/memory/'.length) : addr;
    const target = this.bus.nodes.get(id);
    if (!target) throw new Error(`no peer at ${addr}`);
    this.bus.connect(this, target);
    return id;
  }

  info(): NetworkInfo {
    const peers = this.connectedPeers();
    return {
      listen_addresses: [`/memory/${this.peerId}`],
      peer_id: this.peerId,
      connected_peers: peers,
      discovered_peers: peers,
      n_peers: peers.length,
      n_connections: peers.length,
      n_discovered_peers: peers.length,
      n_pending_connections: 0,
    };
  }
}

async function withTimeout<T>(p: Promise<T>, timeoutMs: number, latencyMs: number): Promise<T> {
  if (latencyMs > 0) await new Promise((r) => setTimeout(r, latencyMs));
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      p,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no frame within ${timeoutMs} ms`)), timeoutMs);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
