/**
 * The `/network/*` endpoints of a whole node (in process, the fast test deployment): `GET /network/info`
 * consistent with the node's peers, `POST /network/dial_peer` answering the dialled peer's id, a
 * malformed multiaddr refused by the body's schema (plain-text 422, as the reference's serde), an
 * unreachable address answered 500 with rust-libp2p's dial error text.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pino from 'pino';
import { DEFAULT_NETWORK, NetworkService } from '../../../src/network/index.ts';
import { FAST } from '../../mocks/fast-deployment.ts';
import { startFastNode, type TestNode } from '../../utils/api-node.ts';

let tn: TestNode;
let peer: NetworkService;

before(async () => {
  tn = await startFastNode();
  peer = await NetworkService.init(
    {
      network: {
        backend: {
          ...DEFAULT_NETWORK.backend,
          swarm: { ...DEFAULT_NETWORK.backend.swarm, host: '127.0.0.1', port: 0 },
        },
      },
      protocols: {
        kademlia: FAST.network.kademlia_protocol_name,
        identify: FAST.network.identify_protocol_name,
      },
    },
    { logger: pino({ level: 'silent' }), signal: new AbortController().signal },
  );
});

after(async () => {
  await peer?.close();
  await tn?.stop();
});

const post = (path: string, body: unknown) =>
  fetch(`${tn.base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

test('dial_peer connects and answers the peer id; /network/info lists it', async () => {
  const addr = `${peer.info().listen_addresses[0]}/p2p/${peer.peerId}`;
  const r = await post('/network/dial_peer', { addr });
  assert.equal(r.status, 200);
  assert.equal(await r.text(), JSON.stringify(peer.peerId));
  const info = (await (await fetch(`${tn.base}/network/info`)).json()) as Record<string, unknown>;
  assert.deepEqual(Object.keys(info), [
    'listen_addresses',
    'peer_id',
    'connected_peers',
    'n_peers',
    'n_connections',
    'n_pending_connections',
    'discovered_peers',
    'n_discovered_peers',
  ]);
  assert.equal(info.peer_id, tn.node.network.peerId);
  assert.ok((info.connected_peers as string[]).includes(peer.peerId));
  assert.equal(info.n_peers, (info.connected_peers as string[]).length);
  assert.equal(info.n_discovered_peers, (info.discovered_peers as string[]).length);
  assert.ok((info.n_connections as number) >= (info.n_peers as number));
});

test('a malformed multiaddr or a missing addr is a plain-text 422', async () => {
  for (const body of [{ addr: 'not a multiaddr' }, {}]) {
    const r = await post('/network/dial_peer', body);
    assert.equal(r.status, 422);
    assert.match(r.headers.get('content-type') ?? '', /^text\/plain/);
  }
});

test('an address no transport can dial is a 500 with the dial error', async () => {
  const r = await post('/network/dial_peer', { addr: '/ip4/127.0.0.1/tcp/1' });
  assert.equal(r.status, 500);
  const body = (await r.json()) as { code: number; message: string };
  assert.equal(body.code, 500);
  assert.match(
    body.message,
    /^Failed to negotiate transport protocol\(s\): \[\(\/ip4\/127\.0\.0\.1\/tcp\/1: /,
  );
});
