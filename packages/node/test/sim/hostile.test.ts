/**
 * A hostile peer against a real node process. Two nodes run as processes (fast test deployment,
 * insecure test proofs); the test process runs a libp2p node of its own (the product's libp2p node,
 * on the deployment's protocol names and topics, with a fresh random identity) that connects to node 0
 * and sends it, one kind at a time, waiting each time for node 0 to penalize it:
 * - chain sync (`/<ns>/chainsync/1.0.0`): garbage after a valid length prefix, a u32 LE length prefix
 *   far over the limit, a frame truncated by the end of the stream;
 * - the block topic: garbage, a message over the proposal size limit, a proposal of a real header with
 *   a bad signature, a proposal of an invalid block correctly signed by the sender's own key (a slot not
 *   after the parent's);
 * - the transaction topic: garbage behind a correct length, a length prefix over the 2 MiB cap;
 * - a flood of chain-sync streams beyond `max_inbound_requests` (streams held open while the excess is
 *   refused without an answer; the held ones are then answered, and node 0 serves again);
 * then chain-sync garbage until the score reaches the ban threshold.
 * Asserted: every hostile input is penalized with its reason in node 0's log; node 0 bans the peer
 * (its log says why), drops the connection (`/network/info` no longer lists the peer) and refuses a
 * new dial at once; throughout, node 0's API answers, its chain keeps growing with node 1 on the same
 * chain, node 1 stays connected to node 0, and no forged block is ever a tip or stored on either node.
 * Not covered: a gossip message over gossipsub's own 16 MiB transport limit, hostile answers to node 0's
 * own chain-sync requests. The flood itself is not penalized (the limit is shared by all peers).
 * Two more peers follow on the same cluster: one that floods gossip garbage (counted, never forwarded),
 * and one that makes up proofs of leadership (banned after two).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { PeerId, Stream } from '@libp2p/interface';
import { peerIdFromString } from '@libp2p/peer-id';
import type { Json } from '@logos-ts/shared/json';
import { multiaddr } from '@multiformats/multiaddr';
import { parse } from 'yaml';
import { bodyRoot } from '../../src/block/block.ts';
import { encodeHeader, type Header, header, headerId } from '../../src/block/header.ts';
import { bytesToHex, hexToBytes } from '../../src/codec/hex.ts';
import { ed25519GenerateSecretKey, ed25519PublicKey, ed25519Sign } from '../../src/crypto/ed25519.ts';
import { parseDeployment } from '../../src/ledger/deployment.ts';
import { DEFAULT_GOSSIPSUB } from '../../src/network/config.ts';
import { FrameReader } from '../../src/network/framing.ts';
import { createLibp2pNode, type LogosLibp2p, nodeIdentity } from '../../src/network/libp2p-node.ts';
import { inboundPerPeer } from '../../src/network/network-service.ts';
import { encodeProposal, MAX_PROPOSAL_BYTES } from '../../src/network/wire/proposal.ts';
import { decodeTipResponse, encodeRequest } from '../../src/network/wire/sync-messages.ts';
import { MAX_GOSSIP_TX_BYTES } from '../../src/network/wire/tx-gossip.ts';
import { DEFAULT_SYNC } from '../../src/sync/config.ts';
import { type LogLine, SimCluster, type SimNode, until } from '../utils/sim-cluster.ts';

let net: SimCluster;
let evil: LogosLibp2p | undefined;
let sampler: NodeJS.Timeout | undefined;

before(async () => {
  net = await SimCluster.create({ nodes: 2 });
});
after(async () => {
  clearInterval(sampler);
  await Promise.resolve(evil?.stop()).catch(() => {});
  await net?.close();
});

const u32le = (n: number) => {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setUint32(0, n, true);
  return b;
};
const u64le = (n: bigint) => {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigUint64(0, n, true);
  return b;
};
const concat = (...xs: Uint8Array[]) => Uint8Array.from(Buffer.concat(xs));

interface ApiBlock {
  header: { id: string; parent_block: string; slot: number } & Record<string, Json>;
}

/**
 * A libp2p node of the product's own making on the deployment's protocol names, with a fresh identity,
 * that speaks to `only` (Kademlia would otherwise connect it to the other nodes as well). Not started.
 */
async function peerOf(
  only: PeerId,
  names: { kademlia_protocol_name: string; identify_protocol_name: string },
): Promise<LogosLibp2p> {
  return createLibp2pNode(
    {
      host: '127.0.0.1',
      port: 0,
      gossipsub: { ...DEFAULT_GOSSIPSUB, heartbeat_interval_ms: 200 },
      protocols: { kademlia: names.kademlia_protocol_name, identify: names.identify_protocol_name },
      gater: {
        denyDialPeer: (p) => !p.equals(only),
        denyInboundEncryptedConnection: (p) => !p.equals(only),
      },
    },
    await nodeIdentity(null),
  );
}

/** A new peer of node 0 (`peerOf`), started and connected, once it sees node 0 on the block topic. */
async function joinedPeer(
  n0: SimNode,
  names: Parameters<typeof peerOf>[1] & { block_topic: string },
): Promise<LogosLibp2p> {
  const n0Id = peerIdFromString(n0.peerId);
  const peer = await peerOf(n0Id, names);
  await new Promise((r) => setTimeout(r, 1500)); // past node 0's one-second inbound rate window
  await peer.start();
  await peer.dial(multiaddr(n0.p2pAddress), { signal: AbortSignal.timeout(5000) });
  await until(
    'the new peer sees node 0 on the block topic',
    () => peer.services.pubsub.getSubscribers(names.block_topic).some((p) => p.equals(n0Id)),
    10_000,
    () => n0.tail(10),
  );
  return peer;
}

test('a hostile peer is penalized for each bad input, then banned; the node stays up', async () => {
  const [n0, n1] = net.nodes as [SimNode, SimNode];
  const deployment = parseDeployment(readFileSync(join(net.dir, 'net', 'deployment.yaml'), 'utf8'));
  const names = deployment.network;
  const userConfig = parse(readFileSync(join(net.dir, 'net', n0.name, 'user_config.yaml'), 'utf8'), {
    logLevel: 'error',
  });
  const maxInbound: number =
    userConfig?.network?.backend?.swarm?.chain_sync?.max_inbound_requests ??
    DEFAULT_SYNC.max_inbound_requests;

  await net.start();
  await net.converged({ minHeight: 2 });
  // Chain sync is served and proposals are taken once the node follows the chain.
  await until(
    'node 0 follows',
    async () => (await n0.info()).phase === 'Following',
    30_000,
    () => n0.tail(),
  );
  const startHeight = (await n0.info()).height;

  // Every tip node 0 shows while under attack.
  const tips = new Set<string>();
  sampler = setInterval(() => {
    n0.info().then(
      (i) => tips.add(i.tip),
      () => {},
    );
  }, 250);

  // ---- the hostile peer: the product's libp2p node, the deployment's names, a fresh identity.
  const n0Id = peerIdFromString(n0.peerId);
  evil = await peerOf(n0Id, names);
  await evil.start();
  const node = evil;
  const me = node.peerId.toString();
  await node.dial(multiaddr(n0.p2pAddress), { signal: AbortSignal.timeout(5000) });
  const connectedTo0 = async () =>
    (await n0.get<{ connected_peers: string[] }>('/network/info')).connected_peers.includes(me);
  await until('node 0 lists the hostile peer', connectedTo0, 10_000);
  const pubsub = node.services.pubsub;
  await until(
    'the hostile peer sees node 0 on both topics',
    () =>
      [names.block_topic, names.tx_topic].every((t) => pubsub.getSubscribers(t).some((p) => p.equals(n0Id))),
    10_000,
  );

  // ---- what node 0 says of the hostile peer
  const ofMe = (n: SimNode, msg: string) => n.logs.filter((l) => l.msg.startsWith(msg) && l.peer === me);
  const penalties = () => ofMe(n0, 'peer penalized');
  const reasons: string[] = [];
  /** Runs `act`, then waits for node 0 to log one more penalty of the hostile peer, matching `reason`. */
  async function penalized(what: string, reason: RegExp, act: () => Promise<void>): Promise<LogLine> {
    const before = penalties().length;
    await act();
    await until(
      `node 0 penalizes: ${what}`,
      () => penalties().length > before,
      10_000,
      () => n0.tail(10),
    );
    const line = penalties()[before]!;
    reasons.push(`${what}: ${String(line.reason)}`);
    assert.match(String(line.reason), reason, `${what}: ${JSON.stringify(line)}`);
    // Gossip may be relayed by an honest peer: it never counts past the relay cap (see the next test).
    assert.equal(line.offence, String(line.reason).startsWith('gossip') ? 'relayed' : 'minor', what);
    return line;
  }

  // ---- chain sync: raw streams
  const openSync = async (): Promise<Stream> =>
    node.dialProtocol(n0Id, names.chain_sync_protocol_name, { signal: AbortSignal.timeout(5000) });
  /** Sends the bytes on a new stream, closes the writing side, and returns the answer's frames. */
  async function exchange(...chunks: Uint8Array[]): Promise<Uint8Array[]> {
    const s = await openSync();
    for (const c of chunks) s.send(c);
    await s.close({ signal: AbortSignal.timeout(5000) }).catch(() => {});
    return readFrames(s);
  }
  async function readFrames(s: Stream): Promise<Uint8Array[]> {
    const reader = new FrameReader(s, 1 << 20, 5000);
    const frames: Uint8Array[] = [];
    try {
      for (let f = await reader.next(); f !== undefined; f = await reader.next()) frames.push(f);
    } catch {
      // reset by node 0: no more frames
    } finally {
      await reader.close();
    }
    return frames;
  }
  const getTip = encodeRequest({ kind: 'GetTip' });
  const frame = (b: Uint8Array) => concat(u32le(b.length), b);

  // Sanity: a well-formed request is answered.
  const tip0 = await exchange(frame(getTip));
  assert.equal(tip0.length, 1, 'a GetTip is answered with one frame');
  assert.equal(decodeTipResponse(tip0[0]!).kind, 'Tip');
  // A stream closed before a byte of a request (a request given up) is no offence.
  const quiet = penalties().length;
  assert.deepEqual(await exchange(), [], 'an empty request stream gets no answer');
  assert.deepEqual(await exchange(frame(getTip)).then((f) => f.length), 1, 'the next request is answered');
  await new Promise((r) => setTimeout(r, 500)); // node 0's log lines come through a pipe
  assert.equal(penalties().length, quiet, 'no penalty for a request stream closed empty');

  const garbage = () => concat(Uint8Array.of(0xff, 0xff, 0xff, 0x7f), randomBytes(36));
  await penalized(
    'chain sync: garbage after a valid length prefix',
    /chain sync: RequestMessage/,
    async () => {
      assert.deepEqual(await exchange(frame(garbage())), [], 'no answer to garbage');
    },
  );
  await penalized(
    'chain sync: a length prefix far over the limit',
    /bad request frame: .*exceeds|too large/i,
    async () => {
      assert.deepEqual(await exchange(u32le(0xfffffff0), randomBytes(64)), []);
    },
  );
  await penalized('chain sync: a truncated frame', /bad request frame: .*(truncated|ended)/i, async () => {
    assert.deepEqual(await exchange(u32le(200), randomBytes(20)), []);
  });

  // ---- gossip
  const publish = async (topic: string, data: Uint8Array) => {
    const r = await pubsub.publish(topic, data);
    assert.ok(
      r.recipients.some((p) => p.equals(n0Id)),
      `published to node 0 on ${topic}`,
    );
  };
  await penalized('block topic: garbage', /WIRE_MALFORMED/, () =>
    publish(names.block_topic, concat(Uint8Array.of(7), randomBytes(400))),
  );
  await penalized('block topic: over the proposal size limit', /WIRE_TOO_LARGE/, () =>
    publish(names.block_topic, randomBytes(MAX_PROPOSAL_BYTES + 1000)),
  );

  // Proposals built on node 0's current tip (a real header, from its API).
  const tipId = (await n0.info()).tip;
  const apiTip = await n0.get<ApiBlock>(`/cryptarchia/blocks/${tipId}`);
  const { id: _id, ...fields } = apiTip.header;
  const real: Header = header.fromJson({ version: 'Bedrock', ...fields });
  const key = ed25519GenerateSecretKey();
  const emptyRoot = bodyRoot([], []);
  const forged: string[] = [];
  const proposalOf = (h: Header, signature: Uint8Array) => {
    forged.push(bytesToHex(headerId(h)));
    return encodeProposal({ header: h, uncle_headers: [], references: [], signature });
  };

  // A real header moved one slot on, under its leader's key but not signed by it.
  const moved: Header = { ...real, slot: real.slot + 1n };
  await penalized('block topic: a proposal with a bad signature', /PROPOSAL_INVALID_HEADER/, () =>
    publish(names.block_topic, proposalOf(moved, ed25519Sign(key, encodeHeader(moved)))),
  );

  // Signed by the sender's own key: valid as a header alone, invalid as a block.
  const mine = (h: Header): Header => ({
    ...h,
    body_root: emptyRoot,
    proof_of_leadership: { ...h.proof_of_leadership, leader_key: ed25519PublicKey(key) },
  });
  // (A block with a bad proof of leadership bans its sender at once: the last test.)
  const badSlot = mine({ ...real, parent_block: hexToBytes(tipId), slot: real.slot });
  await penalized('block topic: a block whose slot is not after its parent', /BLOCK_/, () =>
    publish(names.block_topic, proposalOf(badSlot, ed25519Sign(key, encodeHeader(badSlot)))),
  );

  await penalized('tx topic: garbage', /WIRE_MALFORMED/, () =>
    publish(names.tx_topic, concat(u64le(300n), randomBytes(300))),
  );
  await penalized('tx topic: a length over the cap', /WIRE_TOO_LARGE/, () =>
    publish(names.tx_topic, concat(u64le(BigInt(MAX_GOSSIP_TX_BYTES) + 1n), randomBytes(100))),
  );

  // ---- a flood of chain-sync streams beyond the hostile peer's share of max_inbound_requests: its
  // share of streams is held open (a request's first bytes only), then more requests come: refused
  // without an answer. The held requests, completed, are answered. Then, with its share held again,
  // another peer is served; then node 0 serves the hostile peer again. (Node 0 gives a request 5 s to
  // arrive: each held set is completed without waiting on anything slower than the flood itself.)
  const share = inboundPerPeer(maxInbound);
  assert.ok(share < maxInbound);
  const hold = () =>
    Promise.all(
      Array.from({ length: share }, async () => {
        const s = await openSync();
        s.send(u32le(getTip.length));
        return s;
      }),
    );
  const complete = (streams: Stream[]) =>
    Promise.all(
      streams.map(async (s) => {
        s.send(getTip);
        await s.close({ signal: AbortSignal.timeout(5000) }).catch(() => {});
        return readFrames(s);
      }),
    );
  const held = await hold();
  // Each held stream is open at node 0 already: `dialProtocol` returns once node 0 has confirmed the
  // protocol, and node 0 counts a stream as it confirms it.
  // Refused: the stream is reset, at times before its protocol is even confirmed to the dialler.
  const excess = await Promise.all(
    Array.from({ length: 2 * maxInbound }, () => exchange(frame(getTip)).catch(() => [] as Uint8Array[])),
  );
  const heldAnswers = await complete(held);
  assert.deepEqual(
    excess.map((f) => f.length),
    excess.map(() => 0),
    `requests beyond a peer's share (${share} of ${maxInbound}) are refused without an answer`,
  );
  for (const a of heldAnswers) {
    assert.equal(a.length, 1, 'a held request, completed within the timeout, is answered');
    assert.equal(decodeTipResponse(a[0]!).kind, 'Tip');
  }
  const heldAgain = await hold();
  const other = await peerOf(n0Id, names);
  await other.start();
  try {
    await other.dial(multiaddr(n0.p2pAddress), { signal: AbortSignal.timeout(5000) });
    const s = await other.dialProtocol(n0Id, names.chain_sync_protocol_name, {
      signal: AbortSignal.timeout(5000),
    });
    s.send(frame(getTip));
    await s.close({ signal: AbortSignal.timeout(5000) }).catch(() => {});
    assert.equal(
      (await readFrames(s)).length,
      1,
      'another peer is served while the hostile one holds its share',
    );
  } finally {
    await other.stop();
  }
  // Completed late, or timed out at node 0 (no offence): either way the share is free again.
  await complete(heldAgain);
  assert.equal((await exchange(frame(getTip))).length, 1, 'node 0 serves again after the flood');
  assert.ok(await n0.up(), 'node 0 answers during the attack');

  // ---- chain-sync garbage until the ban threshold
  const base = penalties().length;
  for (let i = 0; i < 30 && ofMe(n0, 'peer banned').length === 0; i++) {
    try {
      await exchange(frame(garbage()));
    } catch {
      // node 0 hung up: the dial fails
    }
    await until(
      'the penalty logged',
      () => penalties().length > base + i || ofMe(n0, 'peer banned').length > 0,
      5000,
    );
  }
  const banned = ofMe(n0, 'peer banned');
  assert.equal(banned.length, 1, `node 0 bans the hostile peer: ${reasons.join('\n')}`);
  assert.match(String(banned[0]!.reason), /chain sync/, 'the ban line says why');
  assert.ok(Number(banned[0]!.score) >= 15, 'at the threshold');
  await until('node 0 no longer lists the hostile peer', async () => !(await connectedTo0()), 10_000);

  // A new dial is refused, or the connection dropped at once.
  const redial = await node.dial(multiaddr(n0.p2pAddress), { signal: AbortSignal.timeout(5000) }).then(
    () => 'connected',
    (e: Error) => `refused: ${e.message}`,
  );
  if (redial === 'connected')
    await until('the new connection dropped', () => node.getConnections(n0Id).length === 0, 3000);
  // Refused at the connection, not by a timeout or an unknown protocol: QUIC's "closed by peer", a reset,
  // the stream's opening aborted (AbortError, not the 5 s TimeoutError) as node 0 closes the connection,
  // the stream ending before node 0 said a word of the protocol negotiation (UnexpectedEOFError, "… reading 0/1 bytes": an
  // unknown protocol would be answered "na"), or libp2p rejecting with the connection's or stream's close
  // event itself.
  await assert.rejects(openSync(), (e: unknown) => {
    const text =
      e instanceof Error ? `${e.name}: ${e.message}` : e instanceof Event ? `Event(${e.type})` : String(e);
    assert.ok(
      (e instanceof Event && /close|abort|reset/i.test(e.type)) ||
        (e instanceof Error &&
          (/closed by peer|connection (is |was )?closed|reset|refused|denied|blocked/i.test(e.message) ||
            (e.name === 'AbortError' && !/timeout/i.test(e.message)) ||
            (e.name === 'UnexpectedEOFError' && /reading 0\//.test(e.message)))),
      `no chain-sync stream to node 0 after the ban, refused at the connection (got ${text})`,
    );
    return true;
  });
  assert.equal(await connectedTo0(), false, 'node 0 does not list the hostile peer after its new dial');

  // ---- node 0 is fine: up, growing, with node 1 on its chain and connected to it.
  await until(
    'node 0 grows',
    async () => (await n0.info()).height >= startHeight + 4,
    30_000,
    () => n0.tail(),
  );
  await net.converged({ minHeight: startHeight + 3 });
  clearInterval(sampler);
  for (const id of forged) {
    assert.ok(!tips.has(id), `a forged block was node 0's tip: ${id}`);
    for (const n of [n0, n1])
      await assert.rejects(n.get(`/cryptarchia/blocks/${id}`), /404/, `${n.name} stores no forged block`);
  }
  assert.ok(tips.size > 1, 'tips were sampled');
  const n1Info = await n1.get<{ connected_peers: string[] }>('/network/info');
  assert.ok(n1Info.connected_peers.includes(n0.peerId), 'node 1 stays connected to node 0');
  assert.ok(n0.running && n1.running);
  // Node 1 received the gossip through node 0 and blamed its forwarder, without banning it.
  const n1Blames = n1.logs.filter((l) => l.msg === 'peer penalized' && l.peer === n0.peerId).length;
  process.stdout.write(`# node 0 penalties of the hostile peer:\n#   ${reasons.join('\n#   ')}\n`);
  process.stdout.write(`# node 1 penalties of node 0 (forwarded gossip): ${n1Blames}\n`);
  process.stdout.write(`# the hostile peer's new dial: ${redial}\n`);
  // Its libp2p redials node 0 in a loop (refused each time); node 0's per-address inbound limit then
  // refuses every peer on 127.0.0.1 for as long as the loop lasts.
  await node.stop();
  evil = undefined;
});

/** The first test's hostile peer, if its test ended early: its libp2p redials node 0 in a loop. */
async function stopEvil(): Promise<void> {
  await Promise.resolve(evil?.stop()).catch(() => {});
  evil = undefined;
}

/**
 * Runs `attack` from a new peer joined to node 0 alone (the first test's peer stopped first), then
 * checks that node 1, which receives only what node 0 judged valid, penalized node 0 for none of it.
 */
async function attackNode0Alone(
  attack: (n0: SimNode, peer: LogosLibp2p, topic: string) => Promise<void>,
): Promise<void> {
  await stopEvil();
  const [n0, n1] = net.nodes as [SimNode, SimNode];
  const names = parseDeployment(readFileSync(join(net.dir, 'net', 'deployment.yaml'), 'utf8')).network;
  const ofNode0 = () => n1.logs.filter((l) => l.msg.startsWith('peer') && l.peer === n0.peerId).length;
  const node0Before = ofNode0();
  const peer = await joinedPeer(n0, names);
  try {
    await attack(n0, peer, names.block_topic);
    await new Promise((r) => setTimeout(r, 1000)); // node 1's log lines come through a pipe
    assert.equal(ofNode0(), node0Before, 'node 1 received none of it through node 0: no penalty, no ban');
    assert.ok(
      n1.running &&
        (await n1.get<{ connected_peers: string[] }>('/network/info')).connected_peers.includes(n0.peerId),
      'node 1 stays connected to node 0',
    );
  } finally {
    await peer.stop();
  }
}

/**
 * A gossip offence is charged to the peer that delivered the message first, and most gossip offences
 * count only up to the relay cap, below the ban: a reference node forwards what it has not judged yet.
 * A node of this kind forwards only what it judged valid. A second hostile peer, connected to node 0
 * alone, publishes undecodable proposals, more than would ban a direct offender: node 0 counts each
 * against it without banning it, and forwards none, so node 1 never sees them. Runs after the test
 * above, on the same cluster.
 */
test('gossip garbage is not forwarded by an honest node: its neighbours never see it', () =>
  attackNode0Alone(async (n0, relay, topic) => {
    const ofRelay = () =>
      n0.logs.filter((l) => l.msg === 'peer penalized' && l.peer === relay.peerId.toString()).length;
    for (let i = 0; i < 16; i++) {
      const sent = await relay.services.pubsub
        .publish(topic, concat(Uint8Array.of(7), randomBytes(400)))
        .then(
          () => true,
          () => false,
        );
      assert.ok(sent, 'gossip garbage alone gets no peer banned, not even the author');
      await new Promise((r) => setTimeout(r, 50));
    }
    await until(
      'node 0 judged all 16',
      () => ofRelay() >= 16,
      30_000,
      () => n0.tail(10),
    );
  }));

/**
 * A proof of leadership that does not verify is made up: its first deliverer is taken for its author
 * (a major offence), and two ban it. A third hostile peer, connected to node 0 alone, sends proposals on
 * node 0's tip under its own key with a proof that is not one; node 0 bans it after the second, and
 * node 1, which never receives them (node 0 forwards only what it judged valid), blames nobody.
 */
test('a peer that makes up proofs of leadership is banned after two', () =>
  attackNode0Alone(async (n0, forger, topic) => {
    const me = forger.peerId.toString();
    const majors = () =>
      n0.logs.filter((l) => l.msg === 'peer penalized' && l.peer === me && l.offence === 'major');
    for (let i = 0; i < 2; i++) {
      const key = ed25519GenerateSecretKey(); // a fresh key each time, as a forger mints them
      const tipId = (await n0.info()).tip;
      const apiTip = await n0.get<ApiBlock>(`/cryptarchia/blocks/${tipId}`);
      const { id: _id, ...fields } = apiTip.header;
      const real: Header = header.fromJson({ version: 'Bedrock', ...fields });
      const h: Header = {
        ...real,
        parent_block: hexToBytes(tipId),
        slot: real.slot + 1n,
        body_root: bodyRoot([], []),
        proof_of_leadership: { ...real.proof_of_leadership, leader_key: ed25519PublicKey(key) },
      };
      const bytes = encodeProposal({
        header: h,
        uncle_headers: [],
        references: [],
        signature: ed25519Sign(key, encodeHeader(h)),
      });
      await forger.services.pubsub.publish(topic, bytes);
      await until(
        `node 0 penalizes forged proof ${i + 1}`,
        () => majors().length > i || (i === 1 && ofMe0(n0, me).length > 0),
        15_000,
        () => n0.tail(10),
      );
    }
    await until(
      'node 0 bans the forger',
      () => ofMe0(n0, me).length > 0,
      10_000,
      () => n0.tail(10),
    );
    assert.match(String(ofMe0(n0, me)[0]!.reason), /proof of leadership/, 'the ban says why');
  }));

const ofMe0 = (n: SimNode, peer: string) =>
  n.logs.filter((l) => l.msg.startsWith('peer banned') && l.peer === peer);
