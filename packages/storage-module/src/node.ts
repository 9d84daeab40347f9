/**
 * The storage node's network side (operator.md §3.1, §3.3, §6.2): a libp2p host on TCP
 * `listen-ip:listen-port` (noise, yamux, identify with the `agent-string`, ping) under the node's
 * secp256k1 identity, serving the block exchange; a UDP socket bound on `disc-port`; the bootstrap
 * records' TCP addresses dialled at start. It also fetches what the content engine lacks from the
 * connected peers, verifying every answer; a peer that sends a wrong block, wrong leaves or a
 * malformed frame is disconnected and refused for a while.
 * inferred: the UDP socket is only bound (so port checks pass) and drops what it receives: the Codex
 * DHT (discv5-like packets with SPRs) is not spoken, so peers are found by `connect` and bootstrap
 * records, not by provider lookups.
 * inferred: the SPR lists the TCP listen addresses and the UDP discovery address (the reference's DHT
 * record holds its discovery addresses), so another node of this kind can dial it from the record.
 */

import { createSocket, type Socket } from 'node:dgram';
import { isIP } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { noise } from '@chainsafe/libp2p-noise';
import { yamux } from '@chainsafe/libp2p-yamux';
import { identify } from '@libp2p/identify';
import type { PeerId, PrivateKey } from '@libp2p/interface';
import { peerIdFromString } from '@libp2p/peer-id';
import { ping } from '@libp2p/ping';
import { tcp } from '@libp2p/tcp';
import { type Multiaddr, multiaddr } from '@multiformats/multiaddr';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { createLibp2p, type Libp2p } from 'libp2p';
import type { CID } from 'multiformats/cid';
import type { Logger } from 'pino';
import {
  KIND_BLOCK,
  KIND_LEAVES,
  MAX_WANTS,
  requestWants,
  serveBlockExchange,
  type Want,
} from './blockexc.ts';
import type { BlockStore } from './blockstore.ts';
import { cidOfDigest, cidText, matchesCid, ROOT_CODEC } from './cid.ts';
import type { StorageConfig } from './config.ts';
import type { Fetcher } from './engine.ts';
import { BadPeer, StorageModuleError } from './errors.ts';
import { treeRoot } from './merkle.ts';
import { type DecodedSpr, encodeSpr } from './spr.ts';

/** How long a peer that sent bad data is refused. */
// inferred: the reference has no such ban; 10 minutes keeps a broken peer out of a download's retries
const BAD_PEER_MS = 10 * 60_000;
/** How long a fetch waits for some peer to have the data. */
export const FETCH_TIMEOUT_MS = 30_000;
const RETRY_MS = 500;
const DIAL_TIMEOUT_MS = 10_000;

export interface TableNode {
  readonly nodeId: string;
  readonly peerId: string;
  readonly record: string;
  readonly address: string | null;
  readonly seen: boolean;
}

/** One wait between fetch rounds; it ends early (rejecting) when the fetch's deadline aborts. */
export const retryWait = (deadline: AbortSignal): Promise<void> =>
  sleep(RETRY_MS, undefined, { signal: deadline });

/**
 * The discovery node id of a secp256k1 public key (compressed, 33 bytes): keccak-256 of the 64 bytes
 * of its uncompressed point, in hex, as discv5 derives node ids.
 */
export function nodeIdOf(compressed: Uint8Array): string {
  const point = secp256k1.Point.fromBytes(compressed).toBytes(false);
  return Buffer.from(keccak_256(point.subarray(1))).toString('hex');
}

function ipProto(ip: string): 'ip4' | 'ip6' {
  return isIP(ip) === 6 ? 'ip6' : 'ip4';
}

export class StorageNetwork implements Fetcher {
  readonly libp2p: Libp2p;
  private udp: Socket | undefined;
  private readonly bad = new Map<string, number>();
  private sprText = '';
  private discAddress: Multiaddr | undefined;

  private constructor(
    libp2p: Libp2p,
    private readonly cfg: StorageConfig,
    private readonly key: PrivateKey,
    private readonly log: Logger,
  ) {
    this.libp2p = libp2p;
  }

  /** Creates and starts the host, the UDP socket and the block exchange; dials the bootstrap nodes. */
  static async start(
    cfg: StorageConfig,
    key: PrivateKey,
    store: BlockStore,
    log: Logger,
  ): Promise<StorageNetwork> {
    const proto = ipProto(cfg.listenIp);
    const extip = cfg.nat.startsWith('extip:') ? cfg.nat.slice(6) : undefined;
    let self: StorageNetwork | undefined;
    const isBad = (p: PeerId) => self?.isBad(p.toString()) ?? false;
    const libp2p = await createLibp2p({
      start: false,
      privateKey: key,
      addresses: {
        listen: [`/${proto}/${cfg.listenIp}/tcp/${cfg.listenPort}`],
        ...(extip !== undefined ? { announce: [`/${ipProto(extip)}/${extip}/tcp/${cfg.listenPort}`] } : {}),
      },
      transports: [tcp()],
      connectionEncrypters: [noise()],
      streamMuxers: [yamux()],
      connectionGater: {
        denyDialPeer: isBad,
        denyInboundEncryptedConnection: isBad,
        denyOutboundEncryptedConnection: isBad,
      },
      connectionManager: { maxConnections: cfg.maxPeers },
      nodeInfo: { userAgent: cfg.agentString },
      services: { identify: identify(), ping: ping() },
    });
    self = new StorageNetwork(libp2p, cfg, key, log);
    try {
      await libp2p.start();
      await serveBlockExchange(libp2p, () => store, log);
      await self.bindUdp();
      self.sprText = await encodeSpr(key, self.recordAddrs(), Math.floor(Date.now() / 1000));
    } catch (e) {
      await self.stop();
      throw e;
    }
    for (const b of cfg.bootstrapNodes) void self.dialRecord(b);
    return self;
  }

  private bindUdp(): Promise<void> {
    const sock = createSocket({ type: isIP(this.cfg.listenIp) === 6 ? 'udp6' : 'udp4' });
    this.udp = sock;
    // inferred: datagrams are read and dropped (see the file header); nothing is allocated for them
    sock.on('message', () => {});
    return new Promise((resolve, reject) => {
      sock.once('error', reject);
      sock.bind(this.cfg.discPort, this.cfg.listenIp, () => {
        sock.off('error', reject);
        sock.on('error', (e) => this.log.warn({ err: e.message }, 'discovery socket error'));
        const { port } = sock.address();
        const ip = this.announceIp();
        this.discAddress = multiaddr(`/${ipProto(ip)}/${ip}/udp/${port}`);
        resolve();
      });
    });
  }

  /** The address the node announces: `extip:` if given, else the first non-wildcard TCP address's IP. */
  private announceIp(): string {
    if (this.cfg.nat.startsWith('extip:')) return this.cfg.nat.slice(6);
    if (this.cfg.listenIp !== '0.0.0.0' && this.cfg.listenIp !== '::') return this.cfg.listenIp;
    const first = this.addrs().find(
      (a) => !a.toString().includes('/127.0.0.1/') && !a.toString().includes('/::1/'),
    );
    return (first && hostPort(first)?.host) ?? '127.0.0.1';
  }

  /** Listening TCP addresses (without `/p2p/`). */
  addrs(): Multiaddr[] {
    const own = this.libp2p.peerId.toString();
    return this.libp2p.getMultiaddrs().map((a) => multiaddr(a.toString().replace(`/p2p/${own}`, '')));
  }

  /** The announced TCP addresses: `extip:` ones when given, else the listening ones. */
  announceAddrs(): Multiaddr[] {
    if (this.cfg.nat.startsWith('extip:')) {
      const ip = this.cfg.nat.slice(6);
      const a = this.addrs()[0];
      const port = (a && hostPort(a)?.port) ?? this.cfg.listenPort;
      return [multiaddr(`/${ipProto(ip)}/${ip}/tcp/${port}`)];
    }
    return this.addrs();
  }

  private recordAddrs(): Multiaddr[] {
    return [...this.announceAddrs(), ...(this.discAddress ? [this.discAddress] : [])];
  }

  spr(): string {
    return this.sprText;
  }

  /** The local discovery node of `debug`'s table. */
  localNode(): TableNode {
    const opts = this.discAddress ? hostPort(this.discAddress) : undefined;
    return {
      nodeId: nodeIdOf(this.key.publicKey.raw),
      peerId: this.libp2p.peerId.toString(),
      record: this.sprText,
      address: opts ? `${opts.host}:${opts.port}` : null,
      seen: false,
    };
  }

  /** The bootstrap records as table nodes, `seen` when connected. */
  knownNodes(): TableNode[] {
    const connected = new Set(this.libp2p.getPeers().map(String));
    return this.cfg.bootstrapNodes.map((b) => {
      const u = b.multiaddrs.find((a) => a.toString().includes('/udp/'));
      const udp = u ? hostPort(u) : undefined;
      const key = peerIdFromString(b.peerId).publicKey;
      return {
        nodeId: key?.type === 'secp256k1' ? nodeIdOf(key.raw) : '',
        peerId: b.peerId,
        record: b.text,
        address: udp ? `${udp.host}:${udp.port}` : null,
        seen: connected.has(b.peerId),
      };
    });
  }

  private async dialRecord(b: DecodedSpr): Promise<void> {
    const tcpAddrs = b.multiaddrs.filter((a) => a.toString().includes('/tcp/'));
    if (tcpAddrs.length === 0) return;
    try {
      await this.connect(b.peerId, tcpAddrs.map(String));
      this.log.debug({ peer: b.peerId }, 'connected to a bootstrap node');
    } catch (e) {
      this.log.debug({ peer: b.peerId, err: (e as Error).message }, 'bootstrap node unreachable');
    }
  }

  /** Dials `peerId` at `addrs` (or at addresses it is known by). */
  async connect(peerId: string, addrs: readonly string[]): Promise<void> {
    const id = peerIdFromString(peerId);
    if (id.equals(this.libp2p.peerId))
      throw new StorageModuleError('STORAGE_MODULE_CONNECT_REFUSED', 'Cannot connect to self');
    if (this.isBad(peerId))
      throw new StorageModuleError(
        'STORAGE_MODULE_CONNECT_REFUSED',
        `Peer ${peerId} is refused: it sent bad data`,
      );
    const signal = AbortSignal.timeout(DIAL_TIMEOUT_MS);
    if (addrs.length === 0) {
      await this.libp2p.dial(id, { signal });
      return;
    }
    const targets = addrs.map((a) => {
      const ma = multiaddr(a);
      return ma.getComponents().some((c) => c.name === 'p2p') ? ma : ma.encapsulate(`/p2p/${peerId}`);
    });
    let last: Error | undefined;
    for (const t of targets) {
      try {
        await this.libp2p.dial(t, { signal });
        return;
      } catch (e) {
        last = e as Error;
      }
    }
    throw last ?? new StorageModuleError('STORAGE_MODULE_DIAL_FAILED', 'no address to dial');
  }

  private isBad(peer: string): boolean {
    const until = this.bad.get(peer);
    if (until === undefined) return false;
    if (until > Date.now()) return true;
    this.bad.delete(peer);
    return false;
  }

  private async refuse(peer: string, reason: string): Promise<void> {
    this.bad.set(peer, Date.now() + BAD_PEER_MS);
    this.log.warn({ peer, reason }, 'peer sent bad data: disconnected and refused');
    await this.libp2p.hangUp(peerIdFromString(peer)).catch(() => {});
  }

  private candidates(): string[] {
    return this.libp2p
      .getPeers()
      .map(String)
      .filter((p) => !this.isBad(p));
  }

  /**
   * Gets `wants` from the connected peers, each answer checked by `valid`; retries until every want
   * is answered or the deadline (or the caller's signal) ends it; fails at once when no peer is
   * connected any more.
   */
  private async gather(
    wants: readonly Want[],
    valid: (w: Want, bytes: Uint8Array) => boolean,
    signal: AbortSignal,
  ): Promise<Uint8Array[]> {
    const out = new Map<number, Uint8Array>();
    const deadline = AbortSignal.any([signal, AbortSignal.timeout(FETCH_TIMEOUT_MS)]);
    for (;;) {
      const peers = this.candidates();
      if (peers.length === 0)
        throw new StorageModuleError(
          'STORAGE_MODULE_FETCH_FAILED',
          `No connected peer to fetch ${wants[0] ? cidText(wants[0].cid) : 'data'} from`,
        );
      for (const peer of peers) {
        const pending = wants.map((w, i) => [w, i] as const).filter(([, i]) => !out.has(i));
        if (pending.length === 0) break;
        for (let s = 0; s < pending.length; s += MAX_WANTS) {
          const part = pending.slice(s, s + MAX_WANTS);
          let answers: (Uint8Array | undefined)[];
          try {
            answers = await requestWants(
              this.libp2p,
              peer,
              part.map(([w]) => w),
              deadline,
            );
          } catch (e) {
            if (e instanceof BadPeer) await this.refuse(peer, e.message);
            else this.log.debug({ peer, err: (e as Error).message }, 'block request failed');
            break;
          }
          let broke = false;
          for (const [k, a] of answers.entries()) {
            if (a === undefined) continue;
            const [w, i] = part[k]!;
            if (!valid(w, a)) {
              await this.refuse(peer, `sent data that does not match ${cidText(w.cid)}`);
              broke = true;
              break;
            }
            out.set(i, a);
          }
          if (broke) break;
        }
      }
      if (out.size === wants.length) return wants.map((_, i) => out.get(i)!);
      if (deadline.aborted) break;
      try {
        await retryWait(deadline);
      } catch {
        break;
      }
    }
    signal.throwIfAborted();
    throw new StorageModuleError(
      'STORAGE_MODULE_FETCH_FAILED',
      `No peer gave ${cidText(wants.find((_, i) => !out.has(i))!.cid)} within ${FETCH_TIMEOUT_MS / 1000} s`,
    );
  }

  async block(cid: CID, signal: AbortSignal): Promise<Uint8Array> {
    const [b] = await this.blocks([cid], signal);
    return b!;
  }

  blocks(cids: readonly CID[], signal: AbortSignal): Promise<Uint8Array[]> {
    return this.gather(
      cids.map((cid) => ({ kind: KIND_BLOCK, cid })),
      (w, b) => matchesCid(w.cid, b),
      signal,
    );
  }

  async leaves(treeCid: CID, count: number, signal: AbortSignal): Promise<Uint8Array[]> {
    const valid = (_: Want, b: Uint8Array) => {
      if (b.length !== count * 32) return false;
      return cidOfDigest(ROOT_CODEC, treeRoot(split(b))).equals(treeCid);
    };
    const [b] = await this.gather([{ kind: KIND_LEAVES, cid: treeCid }], valid, signal);
    return split(b!);
  }

  async stop(): Promise<void> {
    const udp = this.udp;
    this.udp = undefined;
    if (udp) await new Promise<void>((r) => udp.close(() => r()));
    await this.libp2p.stop();
  }
}

/** The IP and TCP/UDP port of an address. */
export function hostPort(ma: Multiaddr): { host: string; port: number } | undefined {
  let host: string | undefined;
  let port: number | undefined;
  for (const c of ma.getComponents()) {
    if ((c.name === 'ip4' || c.name === 'ip6') && c.value !== undefined) host = c.value;
    if ((c.name === 'tcp' || c.name === 'udp') && c.value !== undefined) port = Number(c.value);
  }
  return host !== undefined && port !== undefined ? { host, port } : undefined;
}

function split(b: Uint8Array): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let i = 0; i < b.length; i += 32) out.push(b.subarray(i, i + 32));
  return out;
}
