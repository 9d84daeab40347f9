/**
 * Waku messages of the delivery module: the deterministic message hash against the 14/WAKU2-MESSAGE
 * test vectors (rfc.vac.dev 14/WAKU2-MESSAGE, as js-waku's message-hash tests carry them), the size check and refusal of malformed
 * protobufs before a relayed message is used, and the `send` payload argument.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ArgumentError } from '@logos-ts/shared/module-args';
import { WakuMessage } from '@waku/proto';
import { DeliveryError } from '../../src/errors.ts';
import { decodeWakuMessage, messageHash, payloadBytes, to0xHex } from '../../src/message.ts';

const hex = (h: string): Uint8Array => Uint8Array.from(Buffer.from(h.replace(/^0x/, ''), 'hex'));
// the RFC's vectors are over the pubsub topic of the time (`/waku/2/default-waku/proto`)
const TOPIC = '/waku/2/default-waku/proto';
const CONTENT = '/waku/2/default-content/proto';
const TS = BigInt('0x175789bfa23f8400');

describe('delivery messages', () => {
  test('message hash: RFC 14 vectors (meta 12 and 64 bytes, no meta, empty payload)', () => {
    const cases: [Uint8Array, Uint8Array | undefined, string][] = [
      [
        hex('010203045445535405060708'),
        hex('73757065722d736563726574'),
        '64cce733fed134e83da02b02c6f689814872b1a0ac97ea56b76095c3c72bfe05',
      ],
      [
        hex('010203045445535405060708'),
        hex(
          '000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f',
        ),
        '7158b6498753313368b9af8f6e0a0a05104f68f972981da42a43bc53fb0c1b27',
      ],
      [
        hex('010203045445535405060708'),
        undefined,
        'a2554498b31f5bcdfcbf7fa58ad1c2d45f0254f3f8110a85588ec3cf10720fd8',
      ],
      [
        new Uint8Array(),
        hex('73757065722d736563726574'),
        '483ea950cb63f9b9d6926b262bb36194d3f40a0463ce8446228350bd44e96de4',
      ],
    ];
    for (const [payload, meta, expected] of cases)
      assert.equal(
        to0xHex(
          messageHash(TOPIC, { payload, contentTopic: CONTENT, timestamp: TS, ...(meta ? { meta } : {}) }),
        ),
        `0x${expected}`,
      );
  });

  test('message hash: a message without timestamp hashes 8 zero bytes for it (nwaku computeMessageHash)', () => {
    const m = { payload: new Uint8Array(), contentTopic: CONTENT, meta: hex('73757065722d736563726574') };
    assert.deepEqual(messageHash(TOPIC, m), messageHash(TOPIC, { ...m, timestamp: 0n }));
    // js-waku's "no timestamp" vector leaves the field out; nwaku (the reference) never does
    assert.notEqual(
      to0xHex(messageHash(TOPIC, m)),
      '0xe1a9596237dbe2cc8aaf4b838c46a7052df6bc0d42ba214b998a8bfdbe8487d6',
    );
  });

  test('relayed data: oversized, malformed and topic-less messages are refused', () => {
    const ok = WakuMessage.encode({
      payload: Uint8Array.of(1, 2),
      contentTopic: '/a/1/b/proto',
      timestamp: 5n,
    });
    assert.equal(decodeWakuMessage(ok, 1000).contentTopic, '/a/1/b/proto');
    assert.throws(
      () => decodeWakuMessage(ok, ok.length - 1),
      (e: unknown) =>
        e instanceof DeliveryError && e.code === 'DELIVERY_BAD_MESSAGE' && /exceeds/.test(e.message),
    );
    assert.throws(() => decodeWakuMessage(Uint8Array.of(0xff, 0xff, 0xff, 0xff), 1000));
    assert.throws(
      () => decodeWakuMessage(WakuMessage.encode({ payload: Uint8Array.of(1) }), 1000),
      /content topic/,
    );
  });

  test('send payload: text as UTF-8, byte arrays as bytes, anything else refused', () => {
    assert.deepEqual(payloadBytes('hé'), Uint8Array.of(0x68, 0xc3, 0xa9));
    assert.deepEqual(payloadBytes([0, 255]), Uint8Array.of(0, 255));
    assert.throws(
      () => payloadBytes([256]),
      (e: unknown) =>
        e instanceof ArgumentError &&
        e.code === 'MODULE_ARGUMENT' &&
        e.message === 'payload must be a string or an array of byte values',
    );
    assert.throws(() => payloadBytes({ a: 1 }), /payload/);
    assert.throws(() => payloadBytes(undefined), /payload/);
  });
});
