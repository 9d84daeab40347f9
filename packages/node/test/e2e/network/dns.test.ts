/**
 * DNS multiaddrs dialled on loopback QUIC, as the reference's swarm (built `.with_dns()`) dials them:
 * `/dns4/localhost/...` as an initial peer and through `dial` (the API's `dial_peer`); a name that
 * does not resolve fails the dial with the name in the error and in the log.
 */
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, test } from 'node:test';
import pino from 'pino';
import { DialFailed, type NetworkService } from '../../../src/network/index.ts';
import { waitUntil } from '../../utils/api-node.ts';
import { startLoopbackNetwork } from './nodes.ts';

const lines: string[] = [];
const logger = pino(
  { level: 'info' },
  new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  }),
);

let a: NetworkService;
let dnsAddrA: string;
const started: NetworkService[] = [];

before(async () => {
  a = await startLoopbackNetwork([], logger);
  started.push(a);
  const port = /\/udp\/(\d+)\//.exec(`${a.info().listen_addresses[0]}/`)?.[1];
  dnsAddrA = `/dns4/localhost/udp/${port}/quic-v1/p2p/${a.peerId}`;
});

after(async () => {
  await Promise.all(started.map((n) => n.close()));
});

test('an initial peer given as /dns4/localhost/udp/<port>/quic-v1/p2p/<id> is dialled', async () => {
  const b = await startLoopbackNetwork([dnsAddrA], logger);
  started.push(b);
  await waitUntil(() => b.connectedPeers().includes(a.peerId), 10_000, 'b connected to a by name', 50);
  assert.ok(a.connectedPeers().includes(b.peerId));
});

test('dial (POST /network/dial_peer) resolves a /dns4 name and answers the peer id', async () => {
  const c = await startLoopbackNetwork([], logger);
  started.push(c);
  assert.equal(await c.dial(dnsAddrA), a.peerId);
  assert.ok(c.connectedPeers().includes(a.peerId));
});

test('a name that does not resolve fails the dial with its name, and is logged', async () => {
  const addr = `/dns4/no-such-node.invalid/udp/3000/quic-v1/p2p/${a.peerId}`;
  await assert.rejects(
    a.dial(addr),
    (e) =>
      e instanceof DialFailed &&
      e.message.startsWith(
        `Failed to negotiate transport protocol(s): [(${addr}: : DNS lookup of no-such-node.invalid failed`,
      ),
  );
  const logged = lines
    .map((l) => JSON.parse(l))
    .find((l) => l.msg === 'DNS lookup failed: address not dialled');
  assert.equal(logged?.host, 'no-such-node.invalid');
  assert.equal(logged?.addr, addr);
});
