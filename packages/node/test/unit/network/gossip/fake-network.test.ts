/**
 * Tests of the in-memory network of tests (`test/mocks/network.ts`): gossip flooding with
 * deduplication, own delivery, filters, framed requests with their limits, penalties.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FakeNetworkBus } from '../../../mocks/network.ts';

test('gossip reaches every node of a line once, own subscribers included', async () => {
  const bus = new FakeNetworkBus();
  const [a, b, c] = [bus.node('a'), bus.node('b'), bus.node('c')];
  bus.connect(a, b);
  bus.connect(b, c);
  const got: string[] = [];
  for (const n of [a, b, c])
    n.subscribe('t', async (d, from) => {
      got.push(`${n.peerId}<${from}:${d[0]}`);
      return 'accept';
    });
  await a.publish('t', new Uint8Array([7]));
  // Wait for the flood to end, not for a fixed time: the deliveries race nothing then.
  await bus.settled();
  assert.deepEqual(got.sort(), ['a<a:7', 'b<a:7', 'c<b:7']);
  await b.publish('t', new Uint8Array([7])); // same content: already seen everywhere
  await bus.settled();
  assert.deepEqual(got, ['a<a:7', 'b<a:7', 'c<b:7']);
  bus.close();
});

test('a message is forwarded once judged, and only if accepted', async () => {
  const bus = new FakeNetworkBus();
  const [a, b, c] = [bus.node('a'), bus.node('b'), bus.node('c')];
  bus.connect(a, b);
  bus.connect(b, c);
  const atC: number[] = [];
  let release: (v: 'accept' | 'ignore' | 'reject') => void = () => {};
  b.subscribe('t', (d) =>
    d[0] === 1 ? new Promise((r) => (release = r)) : Promise.resolve(d[0] === 2 ? 'reject' : 'ignore'),
  );
  c.subscribe('t', async (d) => {
    atC.push(d[0]!);
    return 'accept';
  });
  await a.publish('t', new Uint8Array([1]));
  await a.publish('t', new Uint8Array([2]));
  await a.publish('t', new Uint8Array([3]));
  await new Promise((r) => setTimeout(r, 20));
  assert.deepEqual(atC, [], 'nothing forwarded before its verdict, nor rejected or ignored ones');
  release('accept');
  await bus.settled();
  assert.deepEqual(atC, [1]);
  bus.close();
});

test('a filter drops a hop', async () => {
  const bus = new FakeNetworkBus();
  const [a, b] = bus.mesh(2);
  let n = 0;
  b!.subscribe('t', async () => {
    n++;
    return 'accept';
  });
  bus.filter = (_from, to) => to !== b!.peerId;
  let toA = 0;
  a!.subscribe('t', async () => {
    toA++;
    return 'accept';
  });
  await a!.publish('t', new Uint8Array([1]));
  await bus.settled();
  assert.equal(toA, 1, 'the publisher still delivers to itself');
  assert.equal(n, 0);
  bus.close();
});

test('requests are served with their limits', async () => {
  const bus = new FakeNetworkBus();
  const [a, b] = bus.mesh(2);
  b!.handle(
    '/p',
    async function* (req) {
      yield req;
      yield new Uint8Array(100);
    },
    { maxRequestBytes: 10, maxInbound: 1 },
  );
  const frames: Uint8Array[] = [];
  for await (const f of a!.request(b!.peerId, '/p', new Uint8Array([1, 2]), {
    maxFrameBytes: 1000,
    frameTimeoutMs: 1000,
  }))
    frames.push(f);
  assert.deepEqual(
    frames.map((f) => f.length),
    [2, 100],
  );
  await assert.rejects(async () => {
    for await (const _ of a!.request(b!.peerId, '/p', new Uint8Array(1), {
      maxFrameBytes: 50,
      frameTimeoutMs: 1000,
    }));
  }, /exceeds/);
  let count = 0;
  for await (const _ of a!.request(b!.peerId, '/p', new Uint8Array(11), {
    maxFrameBytes: 1000,
    frameTimeoutMs: 1000,
  }))
    count++;
  assert.equal(count, 0, 'a request over the limit gets no answer');
  a!.penalize(b!.peerId, 'minor', 'x');
  assert.deepEqual(bus.penalties(), [{ peer: b!.peerId, offence: 'minor', reason: 'x', by: a!.peerId }]);
  bus.close();
});
