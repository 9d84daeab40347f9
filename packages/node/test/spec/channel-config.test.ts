/**
 * ChannelConfig in 0.3.1 carries a `parent` MsgId after `channel` (the 0.3.1 API reference and OpenAPI document);
 * the reference fork's ChannelConfigOp has none. Its 78-byte fixture
 * (core/src/mantle/fixtures/ops/channel.rs) is therefore not a 0.3.1 encoding: these tests pin that
 * the one difference is the 32 bytes of `parent`.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bytesToHex, concatBytes, hexToBytes } from '../../src/codec/hex.ts';
import { decode, encode } from '../../src/codec/schema.ts';
import { type ChannelConfigOp, channelConfigOp } from '../../src/mantle/ops.ts';

const F_FIXTURE =
  '000000000000000000000000000000000000000000000000000000000000000001000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000';

const value: ChannelConfigOp = {
  channel: new Uint8Array(32),
  parent: new Uint8Array(32),
  keys: [new Uint8Array(32)],
  posting_timeframe: 0,
  posting_timeout: 0,
  configuration_threshold: 0,
  transfer_threshold: 0,
};

test('codec_fixtures ChannelConfigOp (core/src/mantle/fixtures/ops/channel.rs): the reference bytes lack `parent`', () => {
  const f = hexToBytes(F_FIXTURE);
  assert.equal(f.length, 78);
  const ours = encode(channelConfigOp, value);
  assert.equal(ours.length, 78 + 32);
  // Ours = channel ‖ parent ‖ (the reference's bytes after channel).
  assert.equal(bytesToHex(ours), bytesToHex(concatBytes(f.subarray(0, 32), value.parent, f.subarray(32))));
  // The reference bytes do not decode as a 0.3.1 ChannelConfig: what follows `channel` is read as
  // `parent`, and the 14 bytes left cannot hold a key list.
  assert.throws(() => decode(channelConfigOp, f), {
    code: 'DECODE_ERROR',
    message: /keys: length 0 is below the minimum 1/,
  });
});
