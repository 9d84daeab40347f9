/**
 * The reference's unit tests of chain sync, with their literal values: the request decoder's caps
 * (consensus/cryptarchia-sync/src/libp2p/messages.rs), the tip poll's choice
 * (services/chain/chain-network/src/sync/tip_poll.rs) and the orphan queue with its rejected-blocks
 * cache (services/chain/chain-network/src/sync/orphan_handler.rs).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pino } from 'pino';
import { Writer } from '../../src/codec/binary.ts';
import { WireError } from '../../src/network/wire/errors.ts';
import { decodeRequest, encodeRequest, type GetTipResponse } from '../../src/network/wire/sync-messages.ts';
import { OrphanDownloader, RejectedBlocks } from '../../src/sync/orphans.ts';
import { selectCatchupTip } from '../../src/sync/tip-poll.ts';

const id = (b: number) => new Uint8Array(32).fill(b);

// ---------- consensus/cryptarchia-sync/src/libp2p/messages.rs ----------

test('known_blocks_rejects_more_than_maximum_encoded_entries (consensus/cryptarchia-sync/src/libp2p/messages.rs)', () => {
  // Six additional blocks, [0;32]..[5;32], encoded past the encoder's own cap.
  const w = new Writer();
  w.u32(0);
  w.bytes(id(0));
  w.bytes(id(1));
  w.bytes(id(2));
  w.u64(6n);
  for (let i = 0; i <= 5; i++) w.bytes(id(i));
  assert.throws(() => decodeRequest(w.finish()), WireError);
  assert.throws(
    () =>
      encodeRequest({
        kind: 'DownloadBlocksRequest',
        target_block: id(0),
        known_blocks: {
          local_tip: id(1),
          latest_immutable_block: id(2),
          additional_blocks: [0, 1, 2, 3, 4, 5].map(id),
        },
      }),
    WireError,
  );
});

test('known_blocks_rejects_duplicate_encoded_entries (consensus/cryptarchia-sync/src/libp2p/messages.rs)', () => {
  const w = new Writer();
  w.u32(0);
  w.bytes(id(9)); // target (the F test decodes KnownBlocks alone; here within its request)
  w.bytes(id(0));
  w.bytes(id(1));
  w.u64(2n);
  w.bytes(id(2));
  w.bytes(id(2));
  assert.throws(() => decodeRequest(w.finish()), /duplicate block identifiers/);
});

// ---------- services/chain/chain-network/src/sync/tip_poll.rs ----------

const tip = (height: bigint, slot: bigint, b: number) => ({ kind: 'Tip' as const, tip: id(b), slot, height });
const onlyTips = (xs: GetTipResponse[]) =>
  xs.filter((x): x is GetTipResponse & { kind: 'Tip' } => x.kind === 'Tip');

test('select_catchup_tip_ignores_tips_at_or_below_local_height (services/chain/chain-network/src/sync/tip_poll.rs)', () => {
  assert.equal(selectCatchupTip([tip(10n, 100n, 1), tip(9n, 200n, 2)], 10n), undefined);
});

test('select_catchup_tip_picks_highest_then_breaks_ties_by_slot (services/chain/chain-network/src/sync/tip_poll.rs)', () => {
  const got = selectCatchupTip(
    [tip(12n, 100n, 1), tip(15n, 300n, 2), tip(15n, 400n, 3), tip(14n, 999n, 4)],
    11n,
  );
  assert.ok(got);
  assert.equal(got.height, 15n);
  assert.equal(got.slot, 400n);
  assert.deepEqual(got.tip, id(3));
});

test('select_catchup_tip_skips_failures (services/chain/chain-network/src/sync/tip_poll.rs)', () => {
  const got = selectCatchupTip(
    onlyTips([{ kind: 'Failure', reason: 'busy' }, tip(20n, 500n, 7), { kind: 'Failure', reason: 'nope' }]),
    5n,
  );
  assert.ok(got);
  assert.equal(got.height, 20n);
  assert.deepEqual(got.tip, id(7));
});

test('select_catchup_tip_empty_is_none (services/chain/chain-network/src/sync/tip_poll.rs)', () => {
  assert.equal(selectCatchupTip([], 0n), undefined);
});

// ---------- services/chain/chain-network/src/sync/orphan_handler.rs ----------

const ORPHAN_CACHE_SIZE = 5;
const REJECTED_CACHE_SIZE = 16;

/** A downloader whose queue is not drained (the download loop starts on a later turn). */
function createDownloader(rejected = REJECTED_CACHE_SIZE): OrphanDownloader {
  const ac = new AbortController();
  ac.abort(); // nothing is downloaded: these tests look at the queue only
  return new OrphanDownloader(
    { maxPending: ORPHAN_CACHE_SIZE, retryRecoverable: false },
    {
      chain: {
        tip: () => ({ id: id(10) }) as never,
        lib: () => ({ id: id(11) }) as never,
        has: () => false,
        submit: () => Promise.reject(new Error('no blocks here')),
      },
      source: () => ({ [Symbol.asyncIterator]: () => ({ next: () => new Promise(() => {}) }) }),
      network: { penalize: () => {} },
      rejected: new RejectedBlocks(rejected),
      logger: pino({ level: 'silent' }),
      signal: ac.signal,
    },
  );
}

test('test_disabled_rejected_cache_is_noop (services/chain/chain-network/src/sync/orphan_handler.rs)', () => {
  const d = createDownloader(0);
  d.markRejected(id(1));
  assert.equal(d.enqueue(id(1)), true);
  assert.equal(d.isQueued(id(1)), true);
});

test('test_enqueue_rejects_block_in_rejected_cache (services/chain/chain-network/src/sync/orphan_handler.rs)', () => {
  const d = createDownloader();
  d.markRejected(id(1));
  assert.equal(d.enqueue(id(1)), false);
  assert.equal(d.pendingOrphans, 0);
});

test('test_enqueue_rejects_block_whose_parent_is_in_rejected_cache (services/chain/chain-network/src/sync/orphan_handler.rs)', () => {
  const d = createDownloader();
  d.markRejected(id(1));
  assert.equal(d.enqueue(id(2), id(1)), false);
  assert.equal(d.pendingOrphans, 0);
  assert.equal(d.isRejected(id(2)), true, 'the child joins the rejected cache');
});

test('test_orphan_cache_limit (services/chain/chain-network/src/sync/orphan_handler.rs)', () => {
  const d = createDownloader();
  for (let i = 0; i < ORPHAN_CACHE_SIZE; i++) assert.equal(d.enqueue(id(i)), true);
  for (let i = 0; i < ORPHAN_CACHE_SIZE; i++) assert.equal(d.isQueued(id(i)), true);
  assert.equal(d.enqueue(id(255)), false, 'QueueFull');
  assert.equal(d.pendingOrphans, ORPHAN_CACHE_SIZE);
  assert.equal(d.isQueued(id(255)), false);
});

test('test_enqueue_replaces_queued_parent_with_descendant (services/chain/chain-network/src/sync/orphan_handler.rs)', () => {
  const d = createDownloader();
  assert.equal(d.enqueue(id(1)), true);
  assert.equal(d.isQueued(id(1)), true);
  assert.equal(d.enqueue(id(2), id(1)), true);
  assert.equal(d.isQueued(id(1)), false);
  assert.equal(d.isQueued(id(2)), true);
  assert.equal(d.pendingOrphans, 1);
});

test('test_enqueue_replaces_queued_parent_when_cache_is_full (services/chain/chain-network/src/sync/orphan_handler.rs)', () => {
  const d = createDownloader();
  for (let i = 0; i < ORPHAN_CACHE_SIZE; i++) d.enqueue(id(i));
  assert.equal(d.enqueue(id(255), id(0)), true);
  assert.equal(d.isQueued(id(0)), false);
  assert.equal(d.isQueued(id(255)), true);
  assert.equal(d.pendingOrphans, ORPHAN_CACHE_SIZE);
});

test('test_enqueue_with_unqueued_parent_does_not_replace (services/chain/chain-network/src/sync/orphan_handler.rs)', () => {
  const d = createDownloader();
  d.enqueue(id(1));
  assert.equal(d.enqueue(id(2), id(99)), true);
  assert.equal(d.isQueued(id(1)), true);
  assert.equal(d.isQueued(id(2)), true);
  assert.equal(d.pendingOrphans, 2);
});
