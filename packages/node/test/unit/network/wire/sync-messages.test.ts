/**
 * The chain-sync wire messages: exact bytes of each variant, round trips, and random or mutated input
 * that always ends in a typed `WireError` (never another exception, never a large allocation).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bytesToHex, hexToBytes } from '../../../../src/codec/hex.ts';
import { WireError } from '../../../../src/network/wire/errors.ts';
import {
  decodeBlocksResponse,
  decodeRequest,
  decodeTipResponse,
  encodeBlocksResponse,
  encodeRequest,
  encodeTipResponse,
} from '../../../../src/network/wire/sync-messages.ts';
import { prng } from '../../../utils/prng.ts';

const id = (b: number) => new Uint8Array(32).fill(b);
const h32 = (b: string) => b.repeat(32);

test('exact bytes of every variant', () => {
  assert.equal(bytesToHex(encodeRequest({ kind: 'GetTip' })), '01000000');
  const req = encodeRequest({
    kind: 'DownloadBlocksRequest',
    target_block: id(1),
    known_blocks: { local_tip: id(2), latest_immutable_block: id(3), additional_blocks: [id(4)] },
  });
  assert.equal(bytesToHex(req), `00000000${h32('01')}${h32('02')}${h32('03')}0100000000000000${h32('04')}`);
  assert.equal(
    bytesToHex(encodeTipResponse({ kind: 'Tip', tip: id(5), slot: 7n, height: 3n })),
    `00000000${h32('05')}07000000000000000300000000000000`,
  );
  assert.equal(
    bytesToHex(encodeTipResponse({ kind: 'Failure', reason: 'ab' })),
    '0100000002000000000000006162',
  );
  assert.equal(
    bytesToHex(encodeBlocksResponse({ kind: 'Block', bytes: new Uint8Array([9, 8]) })),
    '0000000002000000000000000908',
  );
  assert.equal(bytesToHex(encodeBlocksResponse({ kind: 'NoMoreBlocks' })), '01000000');
  assert.equal(
    bytesToHex(encodeBlocksResponse({ kind: 'Failure', reason: { kind: 'BlockNotFound', id: id(6) } })),
    `0200000000000000${h32('06')}`,
  );
  assert.equal(
    bytesToHex(encodeBlocksResponse({ kind: 'Failure', reason: { kind: 'StartBlockNotFound' } })),
    '0200000001000000',
  );
  assert.equal(
    bytesToHex(encodeBlocksResponse({ kind: 'Failure', reason: { kind: 'Unknown', text: 'x' } })),
    '02000000020000000100000000000000' + '78',
  );
  assert.deepEqual(decodeRequest(req), {
    kind: 'DownloadBlocksRequest',
    target_block: id(1),
    known_blocks: { local_tip: id(2), latest_immutable_block: id(3), additional_blocks: [id(4)] },
  });
  assert.deepEqual(decodeTipResponse(hexToBytes('0100000002000000000000006162')), {
    kind: 'Failure',
    reason: 'ab',
  });
});

test('bad tags, short input, trailing bytes and huge lengths are typed errors', () => {
  for (const [fn, hex] of [
    [decodeRequest, '02000000'],
    [decodeRequest, '0100000000'],
    [decodeRequest, '010000'],
    [decodeTipResponse, '02000000'],
    [decodeTipResponse, '01000000ffffffffffffffff'],
    [decodeBlocksResponse, '00000000ffffffffffffff7f'],
    [decodeBlocksResponse, '0000000010000000000000000102'],
    [decodeBlocksResponse, '0200000003000000'],
    [decodeTipResponse, '0100000002000000000000ffff'],
  ] as const)
    assert.throws(() => (fn as (b: Uint8Array) => unknown)(hexToBytes(hex)), WireError, hex);
});

test('fuzz: random and mutated frames decode or fail with WireError only', () => {
  const rnd = prng(0xc13);
  const valid = [
    encodeRequest({ kind: 'GetTip' }),
    encodeRequest({
      kind: 'DownloadBlocksRequest',
      target_block: id(1),
      known_blocks: { local_tip: id(2), latest_immutable_block: id(3), additional_blocks: [id(4), id(5)] },
    }),
    encodeTipResponse({ kind: 'Tip', tip: id(5), slot: 7n, height: 3n }),
    encodeTipResponse({ kind: 'Failure', reason: 'Node is not in online mode' }),
    encodeBlocksResponse({ kind: 'Block', bytes: new Uint8Array(400).fill(1) }),
    encodeBlocksResponse({ kind: 'Failure', reason: { kind: 'Unknown', text: 'x' } }),
  ];
  const decoders = [decodeRequest, decodeTipResponse, (b: Uint8Array) => decodeBlocksResponse(b)];
  let errors = 0;
  for (let i = 0; i < 20_000; i++) {
    let input: Uint8Array;
    if (i % 2 === 0) {
      input = new Uint8Array(Math.floor(rnd() * 80));
      for (let j = 0; j < input.length; j++) input[j] = Math.floor(rnd() * 256);
      if (input.length >= 4 && rnd() < 0.7) input.set([Math.floor(rnd() * 3), 0, 0, 0]);
    } else {
      input = valid[Math.floor(rnd() * valid.length)]!.slice();
      const flips = 1 + Math.floor(rnd() * 4);
      for (let f = 0; f < flips && input.length > 0; f++)
        input[Math.floor(rnd() * input.length)] = Math.floor(rnd() * 256);
      if (rnd() < 0.2) input = input.subarray(0, Math.floor(rnd() * input.length));
    }
    for (const d of decoders) {
      try {
        d(input);
      } catch (e) {
        assert.ok(e instanceof WireError, `${(e as Error).name}: ${(e as Error).message}`);
        errors++;
      }
    }
  }
  assert.ok(errors > 10_000);
});
