/**
 * DNS multiaddrs resolved before a dial (F's swarm is built `.with_dns()`): the family each of `/dns`,
 * `/dns4`, `/dns6` asks for, the rest of the address kept, and a lookup that fails or does not answer
 * in time refused with the name.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { multiaddr } from '@multiformats/multiaddr';
import { DnsLookupFailed, type Lookup, resolveDnsMultiaddr } from '../../../src/network/dns.ts';

const ID = '12D3KooWSVGKEjk2fGeBzPNHRQRs57RnHhvU5aT3XoDzeyrvv8Cu';
const answers = [
  { address: '10.0.0.7', family: 4 },
  { address: 'fd00::7', family: 6 },
];
const asked: { host: string; family: number }[] = [];
const fake: Lookup = async (host, { family }) => {
  asked.push({ host, family });
  return answers.filter((a) => family === 0 || a.family === family);
};

test('/dns4, /dns6 and /dns dial the name’s IPv4, IPv6 or both, the rest of the address kept', async () => {
  asked.length = 0;
  const rest = `/udp/3000/quic-v1/p2p/${ID}`;
  const r4 = await resolveDnsMultiaddr(multiaddr(`/dns4/node.example${rest}`), { lookup: fake });
  assert.deepEqual(r4.map(String), [`/ip4/10.0.0.7${rest}`]);
  const r6 = await resolveDnsMultiaddr(multiaddr(`/dns6/node.example${rest}`), { lookup: fake });
  assert.deepEqual(r6.map(String), [`/ip6/fd00::7${rest}`]);
  const r = await resolveDnsMultiaddr(multiaddr(`/dns/node.example${rest}`), { lookup: fake });
  assert.deepEqual(r.map(String), [`/ip4/10.0.0.7${rest}`, `/ip6/fd00::7${rest}`]);
  assert.deepEqual(asked, [
    { host: 'node.example', family: 4 },
    { host: 'node.example', family: 6 },
    { host: 'node.example', family: 0 },
  ]);
});

test('an IP address is dialled as it is, without a lookup', async () => {
  asked.length = 0;
  const a = multiaddr(`/ip4/127.0.0.1/udp/3000/quic-v1/p2p/${ID}`);
  assert.deepEqual(await resolveDnsMultiaddr(a, { lookup: fake }), [a]);
  assert.deepEqual(asked, []);
});

test('localhost resolves without a network', async () => {
  const r = await resolveDnsMultiaddr(multiaddr('/dns4/localhost/udp/3000/quic-v1'));
  assert.ok(r.length > 0);
  for (const a of r) assert.match(a.toString(), /^\/ip4\/127\.\d+\.\d+\.\d+\/udp\/3000\/quic-v1$/);
});

test('an unknown name, no address of the family, or no answer in time: DnsLookupFailed naming the host', async () => {
  const notFound: Lookup = async () => {
    throw Object.assign(new Error('getaddrinfo ENOTFOUND nowhere.invalid'), { code: 'ENOTFOUND' });
  };
  await assert.rejects(
    resolveDnsMultiaddr(multiaddr('/dns4/nowhere.invalid/udp/1/quic-v1'), { lookup: notFound }),
    (e) => e instanceof DnsLookupFailed && e.host === 'nowhere.invalid' && /ENOTFOUND/.test(e.message),
  );
  const v6only: Lookup = async () => [{ address: 'fd00::1', family: 6 }];
  await assert.rejects(
    resolveDnsMultiaddr(multiaddr('/dns4/six.example/udp/1/quic-v1'), { lookup: v6only }),
    (e) => e instanceof DnsLookupFailed && /no IPv4 address/.test(e.message),
  );
  const never: Lookup = () => new Promise(() => {});
  const t0 = Date.now();
  await assert.rejects(
    resolveDnsMultiaddr(multiaddr('/dns/slow.example/udp/1/quic-v1'), { lookup: never, timeoutMs: 100 }),
    (e) => e instanceof DnsLookupFailed && /no answer within 100 ms/.test(e.message),
  );
  assert.ok(Date.now() - t0 < 2000);
});
