/**
 * The reference's unit tests of the chain-sync framing (F `consensus/cryptarchia-sync/src/libp2p/packing.rs`),
 * with its literal limit: 16 MiB.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { encodeFrame, FrameTooLarge } from '../../src/network/index.ts';

const MAX_MSG_LEN = 16 * 1024 * 1024;

test('sender_rejects_messages_above_frame_limit (consensus/cryptarchia-sync/src/libp2p/packing.rs)', () => {
  assert.throws(
    () => encodeFrame(new Uint8Array(MAX_MSG_LEN + 1)),
    (e) => e instanceof FrameTooLarge && e.limit === MAX_MSG_LEN && e.length === MAX_MSG_LEN + 1,
  );
  assert.equal(encodeFrame(new Uint8Array(MAX_MSG_LEN)).length, MAX_MSG_LEN + 4);
});
