/** Round robin of channel sequencers, ported from the reference (core/src/mantle/channel.rs). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { roundRobin } from '../../src/ledger/channels.ts';
import type { ChannelState } from '../../src/ledger/state.ts';
import { edKey, ZERO32 } from './ledger-helpers.ts';

const F = 'core/src/mantle/channel.rs';
const keyCache: Uint8Array[] = [];
function key(i: number): Uint8Array {
  keyCache[i] ??= edKey(i).publicKey;
  return keyCache[i]!;
}

function makeChannel(
  tipSlot: number,
  tipSequencer: number,
  startingSlot: number,
  timeframe: number,
  timeout: number,
  numKeys: number,
): ChannelState {
  return {
    tip_slot: BigInt(tipSlot),
    tip_sequencer: tipSequencer,
    tip_sequencer_starting_slot: BigInt(startingSlot),
    posting_timeframe: timeframe,
    posting_timeout: timeout,
    accredited_keys: Array.from({ length: numKeys }, (_, i) => key(i)),
    configuration_threshold: 0,
    tip_message: ZERO32,
    config_tip_hash: ZERO32,
    transfer_threshold: 0,
  };
}

function rr(c: ChannelState, slot: number): [number, number] {
  const r = roundRobin(c, BigInt(slot));
  return [r.index, Number(r.start)];
}

test(`infinite_timeframe_no_timeout_stays_forever (${F})`, () => {
  const c = makeChannel(100, 2, 80, 0, 0, 5);
  assert.deepEqual(rr(c, 100), [2, 80]);
  assert.deepEqual(rr(c, 999_999), [2, 80]);
});

test(`infinite_timeframe_not_yet_timed_out (${F})`, () => {
  assert.deepEqual(rr(makeChannel(100, 1, 90, 0, 50, 4), 130), [1, 90]);
});

test(`infinite_timeframe_timed_out (${F})`, () => {
  assert.deepEqual(rr(makeChannel(100, 1, 90, 0, 50, 4), 150), [2, 150]);
});

test(`infinite_timeframe_multiple_timeouts (${F})`, () => {
  assert.deepEqual(rr(makeChannel(100, 1, 90, 0, 50, 4), 220), [3, 200]);
});

test(`timeframe_rotation_same_slot_no_advance (${F})`, () => {
  assert.deepEqual(rr(makeChannel(100, 0, 100, 10, 0, 3), 100), [0, 100]);
});

test(`timeframe_rotation_within_first_frame (${F})`, () => {
  assert.deepEqual(rr(makeChannel(100, 0, 100, 10, 0, 3), 105), [0, 100]);
});

test(`timeframe_rotation_exact_boundary (${F})`, () => {
  assert.deepEqual(rr(makeChannel(100, 0, 100, 10, 0, 3), 110), [1, 110]);
});

test(`timeframe_rotation_multiple_frames (${F})`, () => {
  assert.deepEqual(rr(makeChannel(100, 0, 100, 10, 0, 4), 125), [2, 120]);
});

test(`timeframe_rotation_wraps_around (${F})`, () => {
  assert.deepEqual(rr(makeChannel(100, 2, 100, 10, 0, 3), 110), [0, 110]);
});

test(`timeframe_rotation_full_cycle (${F})`, () => {
  assert.deepEqual(rr(makeChannel(100, 1, 100, 10, 0, 3), 130), [1, 130]);
});

test(`timeframe_rotation_starting_slot_offset (${F})`, () => {
  assert.deepEqual(rr(makeChannel(100, 0, 95, 10, 0, 3), 105), [1, 105]);
});

test(`timeout_exact_boundary (${F})`, () => {
  assert.deepEqual(rr(makeChannel(100, 0, 100, 10, 20, 4), 120), [1, 120]);
});

test(`timeout_skips_multiple_unresponsive_sequencers (${F})`, () => {
  assert.deepEqual(rr(makeChannel(100, 0, 100, 5, 10, 4), 135), [3, 130]);
});

test(`timeout_wraps_past_end_of_key_list (${F})`, () => {
  assert.deepEqual(rr(makeChannel(100, 2, 100, 5, 10, 3), 120), [1, 120]);
});

test(`timeout_wraps_full_cycle (${F})`, () => {
  assert.deepEqual(rr(makeChannel(100, 0, 100, 5, 10, 3), 130), [0, 130]);
});

test(`no_timeout_rotates_by_timeframe_even_after_long_absence (${F})`, () => {
  assert.deepEqual(rr(makeChannel(100, 0, 100, 10, 0, 3), 1100), [1, 1100]);
});

test(`just_below_timeout_uses_timeframe_branch (${F})`, () => {
  assert.deepEqual(rr(makeChannel(100, 0, 100, 10, 20, 4), 119), [1, 110]);
});

test(`single_key_always_index_zero (${F})`, () => {
  const c = makeChannel(100, 0, 100, 10, 20, 1);
  assert.equal(rr(c, 100)[0], 0);
  assert.equal(rr(c, 115)[0], 0);
  assert.equal(rr(c, 130)[0], 0);
});

test(`two_sequencers_alternate (${F})`, () => {
  const c = makeChannel(100, 0, 100, 5, 0, 2);
  assert.deepEqual(
    [100, 104, 105, 109, 110].map((s) => rr(c, s)[0]),
    [0, 0, 1, 1, 0],
  );
});

test(`fifty_sequencers_rotate_and_wrap (${F})`, () => {
  const c = makeChannel(0, 0, 0, 5, 0, 50);
  assert.equal(rr(c, 5)[0], 1);
  assert.equal(rr(c, 245)[0], 49);
  assert.equal(rr(c, 250)[0], 0);
  assert.equal(rr(c, 365)[0], 23);
});

test(`fifty_sequencers_cascading_timeouts (${F})`, () => {
  assert.deepEqual(rr(makeChannel(1000, 10, 1000, 5, 3, 50), 1090), [40, 1090]);
});

test(`after_timeout_new_sequencer_gets_fresh_starting_slot (${F})`, () => {
  const c = makeChannel(110, 1, 110, 15, 10, 3);
  assert.deepEqual(rr(c, 125), [2, 120]);
  assert.deepEqual(rr(c, 135), [0, 130]);
});

test(`zero_elapsed_no_change (${F})`, () => {
  assert.deepEqual(rr(makeChannel(100, 3, 95, 10, 20, 5), 100), [3, 95]);
});

test('a slot before the tip counts as zero elapsed slots (saturating, core/src/mantle/channel.rs)', () => {
  // The reference subtracts with saturation; a negative elapsed time would otherwise move the turn back.
  assert.deepEqual(rr(makeChannel(100, 1, 100, 10, 20, 4), 85), [1, 100]);
});
