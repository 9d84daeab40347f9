/**
 * The reference's unit tests of chain sync, with their literal values: the request decoder's caps
 * (consensus/cryptarchia-sync/src/libp2p/messages.rs), the block provider's paths
 * (services/chain/chain-service/src/sync/block_provider.rs), the tip poll's choice
 * (services/chain/chain-network/src/sync/tip_poll.rs) and the orphan queue with its rejected-blocks
 * cache (services/chain/chain-network/src/sync/orphan_handler.rs).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pino } from 'pino';
import { Writer } from '../../src/codec/binary.ts';
import { bytesToHex } from '../../src/codec/hex.ts';
import { WireError } from '../../src/network/wire/errors.ts';
import { decodeRequest, encodeRequest, type GetTipResponse } from '../../src/network/wire/sync-messages.ts';
import { OrphanDownloader, RejectedBlocks } from '../../src/sync/orphans.ts';
import { BlockProvider } from '../../src/sync/provider.ts';
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

// ---------- services/chain/chain-service/src/sync/block_provider.rs ----------

/**
 * F's `TestEnv` as chain reads: blocks stored by id, the immutable ids by slot (storage), and the block
 * tree (the engine) with its LIB. Blocks of a sequence are on parent [0;32] at slots offset+1, offset+2…
 */
class ProviderEnv {
  readonly stored = new Map<string, { id: Uint8Array; parent: Uint8Array; slot: bigint; height: number }>();
  readonly immutable = new Map<bigint, Uint8Array>();
  readonly tree = new Set<string>();
  libId: Uint8Array = id(0);
  private counter = 0;

  /** A new block id (distinct, as a header hash would be). */
  private next(): Uint8Array {
    const b = new Uint8Array(32);
    new DataView(b.buffer).setUint32(0, ++this.counter);
    b[31] = 0xb1;
    return b;
  }

  private sequence(count: number, slotOffset: number) {
    const out: { id: Uint8Array; parent: Uint8Array; slot: bigint; height: number }[] = [];
    let parent: Uint8Array = id(0);
    for (let i = 0; i < count; i++) {
      const b = { id: this.next(), parent, slot: BigInt(slotOffset + i + 1), height: i + 1 };
      out.push(b);
      parent = b.id;
    }
    return out;
  }

  /** `setup_chain_with_blocks`: in the engine (rooted at [0;32]) and immutable in storage. */
  chainWithBlocks(count: number): Uint8Array[] {
    this.tree.add(bytesToHex(id(0)));
    return this.sequence(count, 0).map((b) => {
      this.stored.set(bytesToHex(b.id), b);
      this.immutable.set(b.slot, b.id);
      this.tree.add(bytesToHex(b.id));
      return b.id;
    });
  }

  /**
   * `create_storage_only_blocks`. The LIB is the newest immutable block, as in a running node (F's test
   * leaves its engine at [0;32], below them; this node reads "immutable" as "canonical, at or below the LIB").
   */
  storageOnly(count: number): Uint8Array[] {
    const ids = this.sequence(count, 0).map((b) => {
      this.stored.set(bytesToHex(b.id), b);
      this.immutable.set(b.slot, b.id);
      return b.id;
    });
    this.libId = ids[ids.length - 1]!;
    return ids;
  }

  /** `create_engine_only_blocks`: a new engine rooted at the first (its LIB), stored, not immutable. */
  engineOnly(count: number): Uint8Array[] {
    this.tree.clear();
    const seq = this.sequence(count, 100);
    this.libId = seq[0]!.id;
    return seq.map((b) => {
      this.stored.set(bytesToHex(b.id), b);
      this.tree.add(bytesToHex(b.id));
      return b.id;
    });
  }

  reads() {
    const ref = (x: Uint8Array) => this.stored.get(bytesToHex(x));
    return {
      tip: () => {
        throw new Error('unused');
      },
      lib: () => {
        const l = ref(this.libId);
        return l ?? { id: id(0), slot: 0n, height: 0 };
      },
      has: (x: Uint8Array) => this.tree.has(bytesToHex(x)),
      blockRef: ref,
      blockBytes: (x: Uint8Array) => (ref(x) ? new Uint8Array(1) : undefined),
      canonicalBySlot: (from: bigint, to: bigint, limit?: number) =>
        [...this.immutable.entries()]
          .filter(([s]) => s >= from && s <= to)
          .sort(([a], [b]) => (a < b ? -1 : 1))
          .slice(0, limit)
          .map(([slot, i]) => ({ slot, id: i })),
    } as never;
  }
}

const TEST_BATCH_SIZE = 1000;
const hexes = (xs: readonly Uint8Array[]) => xs.map(bytesToHex);
const pathOf = (env: ProviderEnv, target: Uint8Array, known: Uint8Array[]) =>
  new BlockProvider(env.reads(), TEST_BATCH_SIZE).findPath(target, known);

test('test_only_engine_path (services/chain/chain-service/src/sync/block_provider.rs)', () => {
  const env = new ProviderEnv();
  const ids = env.chainWithBlocks(10);
  const got = pathOf(env, ids[9]!, [ids[1]!, ids[3]!, ids[6]!]);
  assert.ok(Array.isArray(got));
  assert.deepEqual(hexes(got), hexes(ids.slice(7, 10)));
});

test('test_only_storage_path (services/chain/chain-service/src/sync/block_provider.rs)', () => {
  const env = new ProviderEnv();
  const ids = env.storageOnly(8);
  const got = pathOf(env, ids[6]!, [ids[2]!]);
  assert.ok(Array.isArray(got));
  assert.deepEqual(hexes(got), hexes(ids.slice(3, 7)));
});

test('test_storage_block_at_immutable_slot_must_match_immutable_id (services/chain/chain-service/src/sync/block_provider.rs)', () => {
  const env = new ProviderEnv();
  const ids = env.storageOnly(3);
  const stale = { id: id(0x5a), parent: ids[0]!, slot: 3n, height: 2 };
  env.stored.set(bytesToHex(stale.id), stale);
  assert.deepEqual(pathOf(env, stale.id, [ids[0]!]), { kind: 'BlockNotFound', id: stale.id });
});

test('test_storage_to_engine_hybrid_path (services/chain/chain-service/src/sync/block_provider.rs)', () => {
  const env = new ProviderEnv();
  const s = env.storageOnly(5);
  const e = env.engineOnly(3);
  const got = pathOf(env, e[1]!, [s[2]!]);
  assert.ok(Array.isArray(got));
  assert.deepEqual(hexes(got), hexes([s[3]!, s[4]!, e[0]!, e[1]!]));
});

test('test_error_target_not_found (services/chain/chain-service/src/sync/block_provider.rs)', () => {
  const env = new ProviderEnv();
  const ids = env.chainWithBlocks(5);
  assert.deepEqual(pathOf(env, id(99), [ids[0]!]), { kind: 'BlockNotFound', id: id(99) });
});

test('test_error_known_blocks_not_found (services/chain/chain-service/src/sync/block_provider.rs)', () => {
  const env = new ProviderEnv();
  const ids = env.chainWithBlocks(5);
  assert.deepEqual(pathOf(env, ids[4]!, [id(98), id(97)]), { kind: 'StartBlockNotFound' });
});

test('test_error_all_blocks_nonexistent (services/chain/chain-service/src/sync/block_provider.rs)', () => {
  const env = new ProviderEnv();
  assert.deepEqual(pathOf(env, id(88), [id(99)]), { kind: 'BlockNotFound', id: id(88) });
});

test('test_path_length_limit (services/chain/chain-service/src/sync/block_provider.rs)', () => {
  const env = new ProviderEnv();
  const chain = env.chainWithBlocks(TEST_BATCH_SIZE + 1);
  const got = pathOf(env, chain[chain.length - 1]!, [chain[0]!]);
  assert.ok(Array.isArray(got));
  assert.equal(got.length, TEST_BATCH_SIZE);
});
