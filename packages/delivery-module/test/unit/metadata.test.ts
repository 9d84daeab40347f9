/**
 * Serving Waku Metadata on one stream: the answer to a request, and a peer that opens the stream but
 * never sends its request fails the exchange after the read timeout instead of holding it open.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { proto_metadata } from '@waku/proto';
import { lengthPrefixed, readLengthPrefixed } from '../../src/length-prefixed.ts';
import { serveMetadata } from '../../src/metadata.ts';

const OWN = { clusterId: 2, shards: [0, 1] };

/** A stream whose inbound side yields `incoming` then stays open (never ends) unless `end`. */
function fakeStream(incoming: Uint8Array[], end: boolean) {
  const sent: Uint8Array[] = [];
  let closed = false;
  let wake: () => void = () => {};
  const stream = {
    sent,
    get closed() {
      return closed;
    },
    async *[Symbol.asyncIterator]() {
      for (const c of incoming) yield c;
      if (end) return;
      await new Promise<void>((r) => {
        wake = r;
      });
    },
    send(b: Uint8Array) {
      sent.push(b);
      return true;
    },
    async onDrain() {},
    async close() {
      closed = true;
    },
    abort() {
      closed = true;
      wake();
    },
  };
  return stream;
}

describe('delivery metadata service', () => {
  test('answers our cluster and shards; reports a request of another cluster', async () => {
    const req = (clusterId: number) =>
      lengthPrefixed(proto_metadata.WakuMetadataRequest.encode({ clusterId, shards: [0] }));
    const same = fakeStream([req(2)], true);
    assert.equal(await serveMetadata(same as never, OWN, 1000), false);
    const res = proto_metadata.WakuMetadataResponse.decode(
      await readLengthPrefixed(
        (async function* () {
          yield* same.sent;
        })(),
        1024,
      ),
    );
    assert.deepEqual({ clusterId: res.clusterId, shards: res.shards }, OWN);
    assert.equal(same.closed, true);
    assert.equal(await serveMetadata(fakeStream([req(5)], true) as never, OWN, 1000), true);
  });

  test('a peer that never sends its request: the exchange fails after the timeout', {
    timeout: 5000,
  }, async (t) => {
    // the timeout's timer does not hold the process open (a node's sockets do): a test timer does
    const keepAlive = setTimeout(() => {}, 5000);
    t.after(() => clearTimeout(keepAlive));
    const silent = fakeStream([], false);
    const started = Date.now();
    await assert.rejects(serveMetadata(silent as never, OWN, 200), /not received in time/);
    assert.ok(Date.now() - started < 2000);
    assert.equal(silent.sent.length, 0, 'nothing answered');
    // a request cut short (the prefix only) likewise
    const partial = fakeStream([Uint8Array.of(10)], false);
    await assert.rejects(serveMetadata(partial as never, OWN, 200), /not received in time/);
  });
});
