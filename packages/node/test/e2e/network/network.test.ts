/**
 * Three network services on loopback QUIC (ephemeral ports): b and c dial a as their initial peer;
 * gossip goes from b to c through a; a framed request/response, with a response over the
 * limit refused; a message in the reference's form (from + seqno, no signature) accepted; the info
 * consistent; a dial by multiaddr; a banned peer disconnected and refused.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { RPC } from '@libp2p/gossipsub/message';
import { peerIdFromPrivateKey, peerIdFromString } from '@libp2p/peer-id';
import pino from 'pino';
import { DEFAULT_NETWORK, FrameTooLarge, NetworkService } from '../../../src/network/index.ts';
import { type LogosLibp2p, nodeIdentity } from '../../../src/network/libp2p-node.ts';
import type { RedialBackoff, RedialSettings } from '../../../src/network/redial.ts';
import { waitUntil } from '../../utils/api-node.ts';

const PROTOCOLS = {
  kademlia: '/logos-blockchain-test/kad/1.0.0',
  identify: '/logos-blockchain-test/identify/1.0.0',
};
const TOPIC = '/logos-blockchain-test/cryptarchia/1.0.0';
const ECHO = '/logos-blockchain-test/echo/1.0.0';
const silent = pino({ level: 'silent' });

async function start(
  initialPeers: string[] = [],
  logger = silent,
  redial?: RedialSettings,
): Promise<NetworkService> {
  const d = DEFAULT_NETWORK.backend;
  return NetworkService.init(
    {
      ...(redial ? { redial } : {}),
      network: {
        backend: {
          swarm: {
            ...d.swarm,
            host: '127.0.0.1',
            port: 0,
            // faster mesh for the test
            gossipsub: { ...d.swarm.gossipsub, heartbeat_interval_ms: 200 },
          },
          initial_peers: initialPeers,
        },
      },
      protocols: PROTOCOLS,
    },
    { logger, signal: new AbortController().signal },
  );
}

const until = (what: string, f: () => boolean, ms = 10_000): Promise<void> => waitUntil(f, ms, what, 50);

let a: NetworkService;
let b: NetworkService;
let c: NetworkService;

before(async () => {
  a = await start();
  const addrA = `${a.info().listen_addresses[0]}/p2p/${a.peerId}`;
  b = await start([addrA]);
  c = await start([addrA]);
  await until('b and c connected to a', () => a.connectedPeers().length === 2);
});

after(async () => {
  await Promise.all([a?.close(), b?.close(), c?.close()]);
});

test('initial peers connect and /network/info is consistent', () => {
  const i = a.info();
  assert.equal(i.peer_id, a.peerId);
  assert.match(i.peer_id, /^12D3KooW/);
  assert.equal(i.n_peers, i.connected_peers.length);
  assert.equal(i.n_discovered_peers, i.discovered_peers.length);
  assert.ok(i.n_connections >= i.n_peers);
  assert.deepEqual(new Set(i.connected_peers), new Set([b.peerId, c.peerId]));
  assert.match(i.listen_addresses[0]!, /^\/ip4\/127\.0\.0\.1\/udp\/\d+\/quic-v1$/);
});

test('gossip from b reaches c through a; own messages reach own subscribers', async () => {
  const atC: string[] = [];
  const atB: string[] = [];
  // Kademlia may have connected c to b directly; c bans b so that the only path is b → a → c.
  c.penalize(b.peerId, 'major', 'test: force the path through a');
  c.penalize(b.peerId, 'major', 'test: force the path through a');
  await until(
    'c and b apart',
    () => !c.connectedPeers().includes(b.peerId) && !b.connectedPeers().includes(c.peerId),
  );
  for (const n of [a, b, c]) n.subscribe(TOPIC, async () => 'accept');
  c.subscribe(TOPIC, async (d, from) => {
    atC.push(`${Buffer.from(d).toString()} ${from}`);
    return 'accept';
  });
  b.subscribe(TOPIC, async (d, from) => {
    atB.push(`${Buffer.from(d).toString()} ${from}`);
    return 'accept';
  });
  // mesh warm-up (bounded): b sees a subscribed, and a has c in its mesh
  await until('mesh', () => {
    const pb = libp2pOf(b).services.pubsub;
    const pa = libp2pOf(a).services.pubsub as unknown as { getMeshPeers(t: string): string[] };
    return pb.getSubscribers(TOPIC).length > 0 && pa.getMeshPeers(TOPIC).includes(c.peerId);
  });
  await b.publish(TOPIC, Buffer.from('hello'));
  await until('c receives', () => atC.length > 0);
  assert.equal(atC[0], `hello ${a.peerId}`);
  assert.deepEqual(atB, [`hello ${b.peerId}`]);
});

test('framed request/response; a response over the limit is refused', async () => {
  a.handle(
    ECHO,
    async function* (req) {
      yield req;
      yield new Uint8Array(req.length * 2);
    },
    { maxRequestBytes: 1024, maxInbound: 4 },
  );
  const frames: number[] = [];
  for await (const f of b.request(a.peerId, ECHO, new Uint8Array(100).fill(7), {
    maxFrameBytes: 1000,
    frameTimeoutMs: 5000,
  }))
    frames.push(f.length);
  assert.deepEqual(frames, [100, 200]);
  await assert.rejects(async () => {
    for await (const _ of b.request(a.peerId, ECHO, new Uint8Array(600), {
      maxFrameBytes: 1000,
      frameTimeoutMs: 5000,
    })) {
    }
  }, FrameTooLarge);
});

test('dial by multiaddr answers the peer id; an unreachable address fails with the reference text', async () => {
  const d = await start();
  try {
    const addr = `${d.info().listen_addresses[0]}/p2p/${d.peerId}`;
    assert.equal(await a.dial(addr), d.peerId);
    await assert.rejects(a.dial('/ip4/127.0.0.1/tcp/1'), /Failed to negotiate transport protocol\(s\)/);
  } finally {
    await d.close();
  }
});

/** The libp2p node inside a service (tests only). */
function libp2pOf(n: NetworkService): LogosLibp2p {
  return (n as unknown as { node: LogosLibp2p }).node;
}

/** Unsigned varint (the gossipsub RPC length prefix). */
function varint(n: number): Uint8Array {
  const out: number[] = [];
  while (n >= 0x80) {
    out.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  out.push(n);
  return Uint8Array.from(out);
}

test('a message in the reference form (from + seqno, no signature) is accepted; a signed one is not', async () => {
  const topic = '/logos-blockchain-test/mempool/1.0.0';
  const got: string[] = [];
  a.subscribe(topic, async (d, from) => {
    got.push(`${Buffer.from(d).toString()} ${from}`);
    return 'accept';
  });
  const from = peerIdFromString(b.peerId).toMultihash().bytes;
  const seqno = new Uint8Array(8).fill(1);
  // The signed message first, then the unsigned one and, later on the same stream, a second unsigned
  // one: once that one is delivered, the signed one has been handled (and must not have been delivered).
  const rpc = RPC.encode({
    subscriptions: [],
    messages: [
      { from, seqno, topic, data: Buffer.from('signed'), signature: new Uint8Array(64) },
      { from, seqno, topic, data: Buffer.from('rust-style') },
    ],
  });
  const later = RPC.encode({
    subscriptions: [],
    messages: [{ from, seqno: new Uint8Array(8).fill(2), topic, data: Buffer.from('later') }],
  });
  const stream = await libp2pOf(b).dialProtocol(peerIdFromString(a.peerId), '/meshsub/1.1.0');
  stream.send(Uint8Array.from([...varint(rpc.length), ...rpc]));
  stream.send(Uint8Array.from([...varint(later.length), ...later]));
  await until('a receives the later message', () => got.some((g) => g.startsWith('later ')));
  assert.deepEqual(got, [`rust-style ${b.peerId}`, `later ${b.peerId}`]);
  await stream.close();
});

test('a peer penalized above the threshold is disconnected and refused', async () => {
  const d = await start();
  try {
    const addr = `${d.info().listen_addresses[0]}/p2p/${d.peerId}`;
    assert.equal(await c.dial(addr), d.peerId);
    c.penalize(d.peerId, 'major', 'test');
    assert.ok(c.connectedPeers().includes(d.peerId));
    c.penalize(d.peerId, 'major', 'test');
    await until('d disconnected', () => !c.connectedPeers().includes(d.peerId));
    await assert.rejects(c.dial(addr), /blocked by gater/, "c's gater refuses to dial the banned peer");
    // d's side of the QUIC handshake may complete before c's gater closes the connection
    await d.dial(`${c.info().listen_addresses[0]}/p2p/${c.peerId}`).catch(() => {});
    await until(
      'd refused by c',
      () => !c.connectedPeers().includes(d.peerId) && !d.connectedPeers().includes(c.peerId),
    );
  } finally {
    await d.close();
  }
});

test('a peer that drops our connection at once is not redialled at once (a ban by the other side)', async () => {
  // Windows wide enough for a slow machine: a connection closed within 30 s counts as dropped at once,
  // and holds the redial back for a minute.
  const d = await start([], silent, { shortMs: 30_000, firstMs: 60_000, maxMs: 60_000 });
  const e = await start();
  try {
    const addrE = `${e.info().listen_addresses[0]}/p2p/${e.peerId}`;
    e.penalize(d.peerId, 'major', 'test');
    e.penalize(d.peerId, 'major', 'test');
    // The transport connects, then e's gater closes the connection.
    await d.dial(addrE).catch(() => {});
    const redial = (d as unknown as { redial: RedialBackoff }).redial;
    await until(
      'd disconnected from e, and holding its redial back',
      () => !d.connectedPeers().includes(e.peerId) && redial.held(e.peerId, Date.now()),
    );
    // d's own gater refuses the dial before any handshake (e's refusal of a handshake reads otherwise).
    await assert.rejects(d.dial(addrE), /blocked by gater/, "d's own gater holds the redial back");
  } finally {
    await Promise.all([d.close(), e.close()]);
  }
});

test('the log says which peer was penalized and banned, and why', async () => {
  const lines: Record<string, unknown>[] = [];
  const logger = pino({ level: 'info' }, { write: (l: string) => void lines.push(JSON.parse(l)) });
  const e = await start([], logger);
  try {
    const p = b.peerId;
    e.penalize(p, 'minor', 'chain sync: bad frame');
    e.penalize(p, 'major', 'invalid block X');
    e.penalize(p, 'major', 'invalid block Y');
    const pick = (m: string) =>
      lines
        .filter((l) => String(l.msg).startsWith(m))
        .map(({ peer, offence, reason, score, banned_for_s }) => ({
          peer,
          offence,
          reason,
          score,
          banned_for_s,
        }));
    assert.deepEqual(pick('peer penalized'), [
      { peer: p, offence: 'minor', reason: 'chain sync: bad frame', score: 1, banned_for_s: undefined },
      { peer: p, offence: 'major', reason: 'invalid block X', score: 11, banned_for_s: undefined },
      { peer: p, offence: 'major', reason: 'invalid block Y', score: 21, banned_for_s: undefined },
    ]);
    assert.deepEqual(pick('peer banned'), [
      { peer: p, offence: undefined, reason: 'invalid block Y', score: 21, banned_for_s: 1800 },
    ]);
  } finally {
    await e.close();
  }
});

test('streams beyond maxInbound are closed without an answer', async () => {
  const SLOW = '/logos-blockchain-test/slow/1.0.0';
  let release: () => void = () => {};
  const gate = new Promise<void>((r) => {
    release = r;
  });
  let served = 0;
  a.handle(
    SLOW,
    async function* (req) {
      served++;
      await gate;
      yield req;
    },
    { maxRequestBytes: 16, maxInbound: 2 },
  );
  const ask = async () => {
    const frames: number[] = [];
    for await (const f of c.request(a.peerId, SLOW, Uint8Array.of(1), {
      maxFrameBytes: 16,
      frameTimeoutMs: 20_000,
    }))
      frames.push(f.length);
    return frames;
  };
  const first = [ask(), ask()];
  await until('two requests held by the handler', () => served === 2);
  // With both held, a third is closed at once: it ends with no answer, and the handler never sees it
  // (without the limit the handler would take it and hold it too).
  let thirdDone = false;
  const third = ask().finally(() => {
    thirdDone = true;
  });
  await until('the third request ended or served', () => thirdDone || served > 2);
  assert.equal(served, 2, 'the handler never saw the third request');
  assert.deepEqual(await third, [], 'the third request got no answer');
  release();
  assert.deepEqual(await Promise.all(first), [[1], [1]]);
});

test('a UDP port in use stops the service with an error naming the setting', async () => {
  const port = Number(/udp\/(\d+)/.exec(a.info().listen_addresses[0]!)![1]);
  const d = DEFAULT_NETWORK.backend;
  await assert.rejects(
    NetworkService.init(
      {
        network: { backend: { ...d, swarm: { ...d.swarm, host: '127.0.0.1', port } } },
        protocols: PROTOCOLS,
      },
      { logger: silent, signal: new AbortController().signal },
    ),
    (e: Error & { code?: string }) =>
      e.code === 'NETWORK_LISTEN_FAILED' &&
      e.message.startsWith('network.backend.swarm: cannot listen on udp 127.0.0.1:'),
  );
});

/** A service on a free port whose only initial peer is `id` at 127.0.0.1:`port` (backoffs scaled by 0.1). */
function withInitialPeer(port: number, id: string, logger = silent): Promise<NetworkService> {
  const d = DEFAULT_NETWORK.backend;
  return NetworkService.init(
    {
      network: {
        backend: {
          ...d,
          swarm: { ...d.swarm, host: '127.0.0.1', port: 0 },
          initial_peers: [`/ip4/127.0.0.1/udp/${port}/quic-v1/p2p/${id}`],
        },
      },
      protocols: PROTOCOLS,
      backoffScale: 0.1,
    },
    { logger, signal: new AbortController().signal },
  );
}

/** A service with the identity of `nodeKey` on `port` (0: any free one). */
function keyedAt(nodeKey: Uint8Array, port: number): Promise<NetworkService> {
  const d = DEFAULT_NETWORK.backend;
  return NetworkService.init(
    {
      network: { backend: { ...d, swarm: { ...d.swarm, host: '127.0.0.1', port, node_key: nodeKey } } },
      protocols: PROTOCOLS,
    },
    { logger: silent, signal: new AbortController().signal },
  );
}

test('an initial peer that is not up yet is dialled again (backoff 5^n s, scaled down here)', async () => {
  const nodeKey = new Uint8Array(32).fill(42);
  // A free UDP port: taken by a throwaway node, then released.
  const probe = await start();
  const port = Number(/udp\/(\d+)/.exec(probe.info().listen_addresses[0]!)![1]);
  await probe.close();
  const id = peerIdFromPrivateKey(await nodeIdentity(nodeKey)).toString();
  const lines: string[] = [];
  // retries after 0.5, 2.5 and 12.5 s
  const e = await withInitialPeer(
    port,
    id,
    pino({ level: 'info' }, { write: (l: string) => void lines.push(l) }),
  );
  let f: NetworkService | undefined;
  try {
    const failures = () =>
      lines
        .map((l) => JSON.parse(l) as { msg: string; retry_in_s?: number })
        .filter((l) => l.msg === 'dial failed');
    // QUIC resends its first packets: the peer comes up only once the first attempt has failed.
    await until('the first dial fails', () => failures().length > 0, 10_000);
    f = await keyedAt(nodeKey, port);
    await until('the retry connects', () => e.connectedPeers().includes(id), 20_000);
    assert.equal(failures()[0]!.retry_in_s, 5);
  } finally {
    await Promise.all([e.close(), f?.close()]);
  }
});

test('an initial peer lost after the start-up dials is dialled again once it is back', async () => {
  const nodeKey = new Uint8Array(32).fill(43);
  const id = peerIdFromPrivateKey(await nodeIdentity(nodeKey)).toString();
  let f = await keyedAt(nodeKey, 0);
  const port = Number(/udp\/(\d+)/.exec(f.info().listen_addresses[0]!)![1]);
  const e = await withInitialPeer(port, id); // initial peers looked at every 1.5 s
  try {
    await until('connected', () => e.connectedPeers().includes(id));
    await f.close();
    await until('the peer is gone', () => !e.connectedPeers().includes(id), 15_000);
    f = await keyedAt(nodeKey, port);
    await until('reconnected', () => e.connectedPeers().includes(id), 15_000);
  } finally {
    await Promise.all([e.close(), f.close()]);
  }
});
