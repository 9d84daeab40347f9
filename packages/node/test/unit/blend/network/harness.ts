/**
 * Blend swarms on loopback for tests: a message format of the tests' own (64 bytes: an 8-byte id, then
 * a byte saying how the message fails, if it does), swarms started on `/ip4/127.0.0.1/udp/0/quic-v1`
 * and given one membership, and raw peers: bare libp2p nodes that speak the Blend protocol by hand
 * (to send wrong frames, invalid or duplicate messages, floods).
 */
import { randomBytes } from 'node:crypto';
import { quic } from '@chainsafe/libp2p-quic';
import { generateKeyPairFromSeed } from '@libp2p/crypto/keys';
import type { Connection, Stream } from '@libp2p/interface';
import { peerIdFromPrivateKey } from '@libp2p/peer-id';
import { type Multiaddr, multiaddr } from '@multiformats/multiaddr';
import { createLibp2p, type Libp2p } from 'libp2p';
import { type Logger, pino } from 'pino';
import {
  type BlendMember,
  type BlendMessageValidator,
  BlendSwarm,
  type BlendSwarmOptions,
  encodeBlendFrame,
  type MessageContext,
  type SpamReason,
  type VerifyOutcome,
} from '../../../../src/blend/network/index.ts';

export const MESSAGE_BYTES = 64;
export const PROTOCOL = '/logos-blockchain-test/blend/1.0.0';
const LOOPBACK = '/ip4/127.0.0.1/udp/0/quic-v1';

export type Flaw = 'none' | 'signature' | 'proof' | 'undecodable';
const FLAWS: Flaw[] = ['none', 'signature', 'proof', 'undecodable'];

let counter = 0;
/** A fresh test message (its id unique in the process) with the given flaw. */
export function message(flaw: Flaw = 'none'): Uint8Array {
  const m = new Uint8Array(MESSAGE_BYTES);
  new DataView(m.buffer).setBigUint64(0, BigInt(++counter) + (BigInt(process.pid) << 32n));
  m[8] = FLAWS.indexOf(flaw);
  m.set(randomBytes(MESSAGE_BYTES - 9), 9);
  return m;
}

export function idOf(m: Uint8Array): string {
  return Buffer.from(m.subarray(0, 8)).toString('hex');
}

/** The tests' validator; it counts its verifications. */
export function testValidator(): BlendMessageValidator & { verified: number } {
  const v = {
    verified: 0,
    messageId: (m: Uint8Array) => (m[8] === 3 ? null : idOf(m)),
    async verify(m: Uint8Array): Promise<VerifyOutcome> {
      v.verified++;
      await new Promise((r) => setImmediate(r));
      return m[8] === 1 ? 'invalid_header_signature' : m[8] === 2 ? 'invalid_proof_of_quota' : 'valid';
    },
  };
  return v;
}

export const silent = pino({ level: process.env.BLEND_TEST_LOG ?? 'silent' });

export interface Received {
  readonly id: string;
  readonly from: string;
  readonly ctx: MessageContext;
}

export interface TestSwarm {
  readonly swarm: BlendSwarm;
  readonly received: Received[];
  readonly controller: AbortController;
}

export function baseOptions(over: Partial<BlendSwarmOptions> = {}): BlendSwarmOptions {
  return {
    signingKeySeed: randomBytes(32),
    listenAddress: multiaddr(LOOPBACK),
    protocolName: PROTOCOL,
    messageBytes: MESSAGE_BYTES,
    validator: testValidator(),
    membership: [],
    epoch: 0,
    minimumNetworkSize: 2,
    corePeeringDegree: { start: 2, end: 3 },
    maxDialAttemptsPerPeer: 3,
    peeringDegreeCheckIntervalMs: null,
    maxEdgeNodeIncomingConnections: 300,
    edgeNodeConnectionTimeoutMs: 2_000,
    edgeMaxDialAttemptsPerPeer: 1,
    connectionMonitor: null,
    redialBaseMs: 50,
    fullMembershipRetryMs: 500,
    ...over,
  };
}

/** The peer id of a fresh random key. */
export async function randomPeerId(): Promise<string> {
  return peerIdFromPrivateKey(await generateKeyPairFromSeed('Ed25519', randomBytes(32))).toString();
}

/** A logger keeping its records (as parsed JSON) in `lines`. */
export function recordingLogger(): { log: Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const log = pino({ level: 'debug' }, { write: (s: string) => void lines.push(JSON.parse(s)) });
  return { log, lines };
}

export async function startSwarm(
  over: Partial<BlendSwarmOptions> = {},
  log: Logger = silent,
): Promise<TestSwarm> {
  const controller = new AbortController();
  const received: Received[] = [];
  const swarm = await BlendSwarm.init(baseOptions(over), {
    log,
    signal: controller.signal,
    listeners: { message: (m, from, ctx) => void received.push({ id: idOf(m), from, ctx }) },
  });
  return { swarm, received, controller };
}

export function memberOf(s: { swarm: BlendSwarm } | RawPeer): BlendMember {
  if ('host' in s) return { peerId: s.peerId, addresses: s.host.getMultiaddrs() };
  return { peerId: s.swarm.peerId, addresses: s.swarm.listenAddresses() };
}

/** `n` swarms, each given the membership of all of them (epoch 1). */
export async function startCluster(n: number, over: Partial<BlendSwarmOptions> = {}): Promise<TestSwarm[]> {
  const nodes = await Promise.all(Array.from({ length: n }, () => startSwarm(over)));
  const members = nodes.map(memberOf);
  for (const s of nodes) s.swarm.updateMembership(members, { epoch: 1, transition: false });
  return nodes;
}

/** A swarm whose only core peers are `n` raw peers that dialled it (it dials nobody itself). */
export interface Hub {
  readonly hub: TestSwarm;
  readonly raws: RawPeer[];
  /** The membership: the hub, then the raw peers. */
  readonly members: BlendMember[];
  /** The peers the hub blocked, with the reason, in order. */
  readonly blocked: [string, SpamReason][];
}

export async function hubWithRaws(n: number, over: Partial<BlendSwarmOptions> = {}): Promise<Hub> {
  const hub = await startSwarm({ corePeeringDegree: { start: 0, end: 4 }, ...over });
  const raws = await Promise.all(Array.from({ length: n }, () => RawPeer.create()));
  const blocked: [string, SpamReason][] = [];
  hub.swarm.on('peer-blocked', (p, r) => blocked.push([p, r]));
  const members = [memberOf(hub), ...raws.map(memberOf)];
  hub.swarm.updateMembership(members, { epoch: 1, transition: false });
  for (const r of raws) await r.connect(hub.swarm.listenAddresses());
  await until(() => hub.swarm.corePeers().length === n, 3_000, 'raw peers negotiated');
  return { hub, raws, members, blocked };
}

export async function stopAll(nodes: readonly { stop(): Promise<void> }[]): Promise<void> {
  await Promise.all(nodes.map((n) => n.stop()));
}

export function stopper(s: TestSwarm): { stop(): Promise<void> } {
  return { stop: () => s.swarm.close() };
}

/** A swarm's open libp2p connections (the swarm keeps its host to itself). */
export function openConnections(s: TestSwarm): number {
  // Deliberate cast: the swarm keeps its libp2p host private; tests count its connections.
  const host = (s.swarm as unknown as { host: Libp2p }).host;
  return host.getConnections().filter((c) => c.status === 'open').length;
}

/** Waits until `cond` holds (polling), failing after `ms`. */
export async function until(cond: () => boolean, ms = 5_000, what = 'condition'): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** A bare libp2p node speaking the Blend protocol by hand. */
export class RawPeer {
  readonly frames: Uint8Array[] = [];
  private out: Stream | null = null;
  conn: Connection | null = null;

  private constructor(
    readonly host: Libp2p,
    readonly peerId: string,
  ) {}

  /** `serve: false` for a node that does not speak the Blend protocol at all. */
  static async create(opts: { readonly serve?: boolean } = {}): Promise<RawPeer> {
    const privateKey = await generateKeyPairFromSeed('Ed25519', randomBytes(32));
    const host = await createLibp2p({
      privateKey,
      addresses: { listen: [LOOPBACK] },
      transports: [quic()],
      connectionManager: { inboundConnectionThreshold: 1_000, reconnectRetries: 0 },
    });
    const peer = new RawPeer(host, peerIdFromPrivateKey(privateKey).toString());
    if (opts.serve !== false) await host.handle(PROTOCOL, (stream) => void peer.collect(stream));
    return peer;
  }

  private async collect(stream: Stream): Promise<void> {
    let buf = new Uint8Array(0);
    try {
      for await (const chunk of stream) {
        const b = chunk instanceof Uint8Array ? chunk : chunk.subarray();
        const joined = new Uint8Array(buf.length + b.length);
        joined.set(buf);
        joined.set(b, buf.length);
        buf = joined;
        while (buf.length >= 2) {
          const len = buf[0]! | (buf[1]! << 8);
          if (buf.length < 2 + len) break;
          this.frames.push(buf.slice(2, 2 + len));
          buf = buf.subarray(2 + len);
        }
      }
    } catch {
      // the connection went away
    }
  }

  receivedIds(): string[] {
    return this.frames.map(idOf);
  }

  /** Dials `to` and opens the Blend stream to send on. */
  async connect(to: Multiaddr[]): Promise<void> {
    this.conn = await this.host.dial(to, { force: true });
    this.out = await this.conn.newStream(PROTOCOL);
  }

  /** Sends raw bytes on the open stream. */
  sendBytes(bytes: Uint8Array): void {
    if (this.out === null) throw new Error('not connected');
    this.out.send(bytes);
  }

  send(m: Uint8Array): void {
    this.sendBytes(encodeBlendFrame(m));
  }

  connectedTo(peer: string): boolean {
    return this.host.getConnections().some((c) => c.remotePeer.toString() === peer && c.status === 'open');
  }

  async stop(): Promise<void> {
    await this.host.stop();
  }
}
