/**
 * Blend scheduling: the tests of F blend/scheduling/src/{cover_traffic,release_delayer,epoch}.rs and
 * message_scheduler/tests.rs, with their values (F's random generators replaced by seeded ones
 * where the value drawn does not matter), plus draws checked word for word.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EpochCoverTraffic } from '../../../../src/blend/scheduling/cover-traffic.ts';
import { EpochEventTracker } from '../../../../src/blend/scheduling/epoch-events.ts';
import {
  coverMessageCount,
  EpochMessageScheduler,
  OldEpochMessageScheduler,
  roundComponents,
} from '../../../../src/blend/scheduling/message-scheduler.ts';
import { EpochReleaseDelayer } from '../../../../src/blend/scheduling/release-delayer.ts';
import { Pcg32, ScriptedRng } from '../pcg32.ts';

const seeded = (): Pcg32 => Pcg32.randTest(7n);
const cover = (remainingMessages: bigint, remainingRounds: bigint, unprocessedDataMessages = 0) =>
  EpochCoverTraffic.fromState({ remainingMessages, remainingRounds, unprocessedDataMessages }, seeded());
const delayer = <T>(max: bigint, nextReleaseRound: bigint, unreleasedMessages: T[] = []) =>
  EpochReleaseDelayer.fromState<T>(
    { maximumReleaseDelayInRounds: max, nextReleaseRound, unreleasedMessages },
    seeded(),
  );

// ---------- cover traffic (F: blend/scheduling/src/cover_traffic.rs) ----------

// F: blend/scheduling/src/cover_traffic.rs::no_emission_on_empty_schedule
test('no_emission_on_empty_schedule: cover traffic: no emission on an empty schedule', () => {
  assert.equal(cover(0n, 1n).onRound(), false);
});

// F: blend/scheduling/src/cover_traffic.rs::no_emission_on_unscheduled_round
test('no_emission_on_unscheduled_round: cover traffic: no emission once the epoch has no round left', () => {
  assert.equal(cover(0n, 0n).onRound(), false);
});

// F: blend/scheduling/src/cover_traffic.rs::emission_on_scheduled_round_without_processed_messages
test('emission_on_scheduled_round_without_processed_messages: cover traffic: emission on a scheduled round without data messages', () => {
  const c = cover(1n, 1n);
  assert.equal(c.onRound(), true);
  assert.equal(c.state.remainingMessages, 0n);
});

// F: blend/scheduling/src/cover_traffic.rs::no_emission_on_scheduled_round_with_single_unprocessed_message
test('no_emission_on_scheduled_round_with_single_unprocessed_message: cover traffic: a data message cancels the only scheduled cover message', () => {
  const c = cover(1n, 1n, 1);
  assert.equal(c.onRound(), false);
  assert.equal(c.state.remainingMessages, 0n);
  assert.equal(c.state.unprocessedDataMessages, 0);
});

// F: blend/scheduling/src/cover_traffic.rs::no_emission_on_scheduled_round_with_multiple_unprocessed_messages
test('no_emission_on_scheduled_round_with_multiple_unprocessed_messages: cover traffic: two data messages cancel two of three scheduled cover messages', () => {
  const c = cover(3n, 3n, 2);
  let emitted = 0;
  for (let i = 0; i < 3; i++) if (c.onRound()) emitted++;
  assert.equal(emitted, 1);
  assert.equal(c.state.unprocessedDataMessages, 0);
});

// F: blend/scheduling/src/cover_traffic.rs::message_count_is_capped_to_rounds_per_epoch
test('message_count_is_capped_to_rounds_per_epoch: cover traffic: the message count is capped to the rounds of the epoch', () => {
  const c = EpochCoverTraffic.create({ roundsPerEpoch: 3n, messageCount: 10n }, seeded());
  assert.equal(c.state.remainingMessages, 3n);
});

// F: blend/scheduling/src/cover_traffic.rs::notify_new_data_message_without_scheduled_rounds
test('notify_new_data_message_without_scheduled_rounds: cover traffic: a data message is counted without scheduled rounds', () => {
  const c = cover(0n, 0n);
  c.notifyNewDataMessage();
  assert.equal(c.state.unprocessedDataMessages, 1);
});

// F: blend/scheduling/src/cover_traffic.rs::notify_new_data_message_with_scheduled_rounds
test('notify_new_data_message_with_scheduled_rounds: cover traffic: a data message is counted with scheduled rounds', () => {
  const c = cover(1n, 1n);
  c.notifyNewDataMessage();
  assert.equal(c.state.unprocessedDataMessages, 1);
});

test('cover traffic: each round draws one word for the release decision, a skip draw only with data messages', () => {
  // 1 message over 2 rounds: p = 1/2, p_int = 2^63. Round 1: v = 2^63 is not a release round.
  const rng = new ScriptedRng([1n << 63n, 0n, (1n << 64n) - 1n]);
  const c = EpochCoverTraffic.fromState(
    { remainingMessages: 1n, remainingRounds: 2n, unprocessedDataMessages: 1 },
    rng,
  );
  assert.equal(c.onRound(), false);
  assert.deepEqual(c.state, { remainingMessages: 1n, remainingRounds: 1n, unprocessedDataMessages: 1 });
  // Round 2: p = 1 draws nothing for the release; the skip draw 0 ≤ 1/1 skips the cover message.
  assert.equal(c.onRound(), false);
  assert.deepEqual(c.state, { remainingMessages: 0n, remainingRounds: 0n, unprocessedDataMessages: 0 });
  assert.equal(rng.leftU64, 1);
});

test('cover traffic: a skip draw above the threshold keeps the cover message', () => {
  // 2 messages over 2 rounds, 1 data message: threshold 1/2; draw (2^64 − 1) → 1.0 > 1/2.
  const rng = new ScriptedRng([(1n << 64n) - 1n]);
  const c = EpochCoverTraffic.fromState(
    { remainingMessages: 2n, remainingRounds: 2n, unprocessedDataMessages: 1 },
    rng,
  );
  assert.equal(c.onRound(), true);
  assert.equal(c.state.unprocessedDataMessages, 1);
});

test('cover traffic: an epoch emits exactly its budget when no data message is queued', () => {
  const c = EpochCoverTraffic.create({ roundsPerEpoch: 500n, messageCount: 37n }, seeded());
  let emitted = 0;
  for (let i = 0; i < 500; i++) if (c.onRound()) emitted++;
  assert.equal(emitted, 37);
  assert.equal(c.onRound(), false);
});

test('cover traffic: each data message queued during the epoch cancels exactly one cover message', () => {
  for (let seed = 0n; seed < 5n; seed++) {
    const c = EpochCoverTraffic.create({ roundsPerEpoch: 500n, messageCount: 37n }, Pcg32.randTest(seed));
    let emitted = 0;
    for (let round = 0; round < 500; round++) {
      if (round % 40 === 0 && round < 200) c.notifyNewDataMessage(); // 5 data messages
      if (c.onRound()) emitted++;
    }
    assert.equal(emitted, 32);
    assert.equal(c.state.unprocessedDataMessages, 0);
  }
});

// ---------- release delayer (F: blend/scheduling/src/release_delayer.rs) ----------

// F: blend/scheduling/src/release_delayer.rs::poll_none_on_unscheduled_round
test('poll_none_on_unscheduled_round: release delayer: nothing before the release round', () => {
  const d = delayer<null>(3n, 1n);
  assert.equal(d.onRound(0n), null);
  assert.equal(d.nextReleaseRound, 1n);
});

// F: blend/scheduling/src/release_delayer.rs::poll_empty_on_scheduled_round_with_empty_queue
test('poll_empty_on_scheduled_round_with_empty_queue: release delayer: an empty release on the release round, the next one 1 to 3 rounds later', () => {
  const d = delayer<null>(3n, 1n);
  assert.deepEqual(d.onRound(1n), []);
  assert.ok(d.nextReleaseRound >= 2n && d.nextReleaseRound <= 4n);
});

// F: blend/scheduling/src/release_delayer.rs::poll_non_empty_on_scheduled_round_with_non_empty_queue
test('poll_non_empty_on_scheduled_round_with_non_empty_queue: release delayer: the queued messages on the release round', () => {
  const d = delayer<null>(3n, 1n, [null]);
  assert.deepEqual(d.onRound(1n), [null]);
  assert.ok(d.nextReleaseRound >= 2n && d.nextReleaseRound <= 4n);
  assert.deepEqual(d.unreleasedMessages, []);
});

// F: blend/scheduling/src/release_delayer.rs::add_message_to_queue
test('add_message_to_queue: release delayer: a scheduled message is queued', () => {
  const d = delayer<boolean>(3n, 1n);
  d.schedule(true);
  assert.deepEqual(d.unreleasedMessages, [true]);
});

test('release delayer: the first release round is drawn in 1..=Δmax, and every offset after it', () => {
  // Δmax = 4: range 4, zone = (4 << 61) − 1; v = 3 · 2^62 gives offset 1 + 3 = 4.
  const rng = new ScriptedRng([3n << 62n, 0n]);
  const d = EpochReleaseDelayer.create<number>({ maximumReleaseDelayInRounds: 4n }, rng);
  assert.equal(d.nextReleaseRound, 4n);
  // A late round releases and draws from that round: 9 + 1.
  assert.deepEqual(d.onRound(9n), []);
  assert.equal(d.nextReleaseRound, 10n);
});

// ---------- message scheduler (F: blend/scheduling/src/message_scheduler/tests.rs) ----------

function scheduler<P, D>(
  coverMessages: bigint,
  coverRounds: bigint,
  nextReleaseRound: bigint,
  processed: P[],
  data: D[],
): EpochMessageScheduler<P, D> {
  const rng = seeded();
  return EpochMessageScheduler.fromParts<P, D>({
    cover: EpochCoverTraffic.fromState(
      { remainingMessages: coverMessages, remainingRounds: coverRounds, unprocessedDataMessages: 0 },
      rng.clone(),
    ),
    delayer: EpochReleaseDelayer.fromState<P>(
      { maximumReleaseDelayInRounds: 1n, nextReleaseRound, unreleasedMessages: processed },
      rng,
    ),
    rng,
    dataMessages: data,
    epoch: 0,
  });
}

// F: blend/scheduling/src/message_scheduler/tests.rs::no_substream_ready_and_no_data_messages
test('no_substream_ready_and_no_data_messages: message scheduler: nothing due and no data message', () => {
  assert.equal(scheduler<null, null>(0n, 1n, 1n, [], []).onRound(0n), null);
});

// F: blend/scheduling/src/message_scheduler/tests.rs::no_substream_ready_with_data_messages
test('no_substream_ready_with_data_messages: message scheduler: data messages go out on any round', () => {
  const s = scheduler<null, number>(0n, 1n, 1n, [], [1, 2]);
  assert.deepEqual(s.onRound(0n), { dataMessages: [1, 2], releaseType: null });
  assert.deepEqual(s.dataMessages, []);
});

// F: blend/scheduling/src/message_scheduler/tests.rs::cover_traffic_substream_ready
test('cover_traffic_substream_ready: message scheduler: a cover message with the data messages', () => {
  const s = scheduler<null, number>(1n, 1n, 1n, [], [1]);
  assert.deepEqual(s.onRound(0n), { dataMessages: [1], releaseType: { kind: 'OnlyCoverMessage' } });
});

// F: blend/scheduling/src/message_scheduler/tests.rs::release_delayer_substream_ready
test('release_delayer_substream_ready: message scheduler: processed messages with the data messages', () => {
  const s = scheduler<number, number>(0n, 1n, 0n, [1], [2]);
  assert.deepEqual(s.onRound(0n), {
    dataMessages: [2],
    releaseType: { kind: 'OnlyProcessedMessages', processed: [1] },
  });
});

// F: blend/scheduling/src/message_scheduler/tests.rs::both_substreams_ready
test('both_substreams_ready: message scheduler: processed and cover messages in one round', () => {
  const s = scheduler<number, null>(1n, 1n, 0n, [1], []);
  assert.deepEqual(s.onRound(0n), {
    dataMessages: [],
    releaseType: { kind: 'ProcessedAndCoverMessages', processed: [1] },
  });
});

// F: blend/scheduling/src/message_scheduler/tests.rs::round_change
test('round_change: message scheduler: rounds 0 to 3 (cover, data replacing cover, nothing, processed)', () => {
  const s = scheduler<null, number>(2n, 2n, 3n, [null], []);
  assert.deepEqual(s.onRound(0n), { dataMessages: [], releaseType: { kind: 'OnlyCoverMessage' } });
  assert.deepEqual(s.dataMessages, []);
  s.queueDataMessage(3);
  assert.deepEqual(s.onRound(1n), { dataMessages: [3], releaseType: null });
  assert.deepEqual(s.dataMessages, []);
  assert.equal(s.onRound(2n), null);
  assert.deepEqual(s.onRound(3n), {
    dataMessages: [],
    releaseType: { kind: 'OnlyProcessedMessages', processed: [null] },
  });
});

// F: blend/scheduling/src/message_scheduler/tests.rs::rotate_epoch_leaves_queued_data_messages_with_the_old_epoch
test('rotate_epoch_leaves_queued_data_messages_with_the_old_epoch: message scheduler: rotating leaves the queued data messages with the old epoch', () => {
  const s = scheduler<null, number>(0n, 1n, 1n, [], [1, 2]);
  const { current, old } = s.rotateEpoch(
    { coreQuota: 1n, epoch: 0 },
    { maximumReleaseDelayInRounds: 1n, roundsPerEpoch: 1n, numBlendLayers: 1n },
  );
  assert.deepEqual(current.dataMessages, []);
  assert.deepEqual(old.dataMessages, [1, 2]);
});

function oldScheduler(nextReleaseRound: bigint, processed: number[], data: number[]) {
  const d = EpochReleaseDelayer.fromState<number>(
    { maximumReleaseDelayInRounds: 1n, nextReleaseRound, unreleasedMessages: processed },
    seeded(),
  );
  return new OldEpochMessageScheduler<number, number>(d, data, 0n, 0);
}

// F: blend/scheduling/src/message_scheduler/tests.rs::old_epoch_releases_leftover_data_messages_on_a_non_release_round
test('old_epoch_releases_leftover_data_messages_on_a_non_release_round: old epoch scheduler: leftover data messages go out on a non-release round', () => {
  const s = oldScheduler(1n, [], [1, 2]);
  assert.deepEqual(s.onRound(0n), { dataMessages: [1, 2], releaseType: null });
  assert.deepEqual(s.dataMessages, []);
});

// F: blend/scheduling/src/message_scheduler/tests.rs::old_epoch_is_pending_on_a_non_release_round_without_data_messages
test('old_epoch_is_pending_on_a_non_release_round_without_data_messages: old epoch scheduler: nothing on a non-release round without data messages', () => {
  assert.equal(oldScheduler(1n, [], []).onRound(0n), null);
});

// F: blend/scheduling/src/message_scheduler/tests.rs::old_epoch_releases_data_and_processed_messages_on_the_same_round
test('old_epoch_releases_data_and_processed_messages_on_the_same_round: old epoch scheduler: data and processed messages together, never a cover message', () => {
  const s = oldScheduler(0n, [1], [2]);
  assert.deepEqual(s.onRound(0n), {
    dataMessages: [2],
    releaseType: { kind: 'OnlyProcessedMessages', processed: [1] },
  });
  assert.deepEqual(s.dataMessages, []);
});

test('message scheduler: ⌊Q_c / β_c⌋ cover messages, cover and delayer drawing from copies of one generator', () => {
  assert.equal(coverMessageCount(7n, 3n), 2n);
  assert.equal(coverMessageCount(2n, 3n), 0n);
  // One word: the delayer draws it for its first release round (Δmax = 3: 3 · 2^62 · 3 has high
  // word 2, offset 3), and the cover traffic's copy draws the same word for round 0 (p = 2/10:
  // 3 · 2^62 is above p · 2^64, not a release round).
  const rng = new ScriptedRng([3n << 62n]);
  const s = EpochMessageScheduler.create<number, number>({ coreQuota: 6n, epoch: 4 }, rng, {
    maximumReleaseDelayInRounds: 3n,
    roundsPerEpoch: 10n,
    numBlendLayers: 3n,
  });
  assert.equal(s.epoch, 4);
  assert.equal(s.releaseDelayer.nextReleaseRound, 3n);
  assert.deepEqual(s.coverTraffic.state, {
    remainingMessages: 2n,
    remainingRounds: 10n,
    unprocessedDataMessages: 0,
  });
  assert.equal(rng.leftU64, 0);
  assert.equal(s.onRound(0n), null);
  assert.deepEqual(s.coverTraffic.state, {
    remainingMessages: 2n,
    remainingRounds: 9n,
    unprocessedDataMessages: 0,
  });
});

test('message scheduler: rounds count from the scheduler start; the rotated-in scheduler from the rotation round', () => {
  const settings = { maximumReleaseDelayInRounds: 1n, roundsPerEpoch: 4n, numBlendLayers: 1n };
  const s = EpochMessageScheduler.create<number, number>(
    { coreQuota: 0n, epoch: 0 },
    seeded(),
    settings,
    100n,
  );
  assert.throws(() => s.onRound(99n), RangeError);
  s.scheduleProcessedMessage(5);
  // Δmax = 1: the first release round is round 1 of the scheduler, absolute round 101.
  assert.equal(s.onRound(100n), null);
  assert.deepEqual(roundComponents(s.onRound(101n)!.releaseType), { processed: [5], cover: false });
  s.scheduleProcessedMessage(6);
  s.queueDataMessage(7);
  const { current, old } = s.rotateEpoch({ coreQuota: 4n, epoch: 1 }, settings, 102n);
  // The old one keeps its count and its queue: round 102 is its release round (101 + 1).
  assert.deepEqual(old.onRound(102n), {
    dataMessages: [7],
    releaseType: { kind: 'OnlyProcessedMessages', processed: [6] },
  });
  // The new one: 4 cover messages over 4 rounds, one per round.
  for (const r of [102n, 103n, 104n, 105n]) {
    assert.equal(roundComponents(current.onRound(r)?.releaseType ?? null).cover, true);
  }
});

test('roundComponents splits a release type', () => {
  assert.deepEqual(roundComponents(null), { processed: [], cover: false });
  assert.deepEqual(roundComponents({ kind: 'OnlyCoverMessage' }), { processed: [], cover: true });
  assert.deepEqual(roundComponents({ kind: 'ProcessedAndCoverMessages', processed: [1] }), {
    processed: [1],
    cover: true,
  });
});

// ---------- epoch events (F: blend/scheduling/src/epoch.rs, in slots) ----------

// F: blend/scheduling/src/epoch.rs::yield_two_events_alternately (epochs of 10 slots, a transition of 2)
test('yield_two_events_alternately: epoch events: a new epoch, its transition end, the next epoch, its transition end', () => {
  const t = new EpochEventTracker(2n);
  const events: unknown[] = [];
  for (let slot = 0n; slot < 25n; slot++) {
    const e = t.onSlot(slot, Number(slot / 10n));
    if (e) events.push([slot, e]);
  }
  assert.deepEqual(events, [
    [0n, { kind: 'NewEpoch', epoch: 0, first: true }],
    [10n, { kind: 'NewEpoch', epoch: 1, first: false }],
    [12n, { kind: 'TransitionPeriodExpired' }],
    [20n, { kind: 'NewEpoch', epoch: 2, first: false }],
    [22n, { kind: 'TransitionPeriodExpired' }],
  ]);
});

// F: blend/scheduling/src/epoch.rs::transition_period_shorter_than_epoch (a transition longer than the epoch)
test('transition_period_shorter_than_epoch: epoch events: a new epoch before the transition ends restarts it without an expiry', () => {
  const t = new EpochEventTracker(6n);
  const events: unknown[] = [];
  for (let slot = 0n; slot < 16n; slot++) {
    const e = t.onSlot(slot, Number(slot / 5n));
    if (e) events.push([slot, e.kind]);
  }
  assert.deepEqual(events, [
    [0n, 'NewEpoch'],
    [5n, 'NewEpoch'],
    [10n, 'NewEpoch'],
    [15n, 'NewEpoch'],
  ]);
});
