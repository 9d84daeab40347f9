/**
 * The reference's mempool tests (F `services/tx-service/tests/mock.rs`) and block transaction selection
 * tests (F `services/chain/chain-leader/src/lib.rs`), ported with their values. F's mock transactions
 * become transfers of the test chain; the TTL tests backdate a transaction to the Unix epoch as F does.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { pino } from 'pino';
import { MAX_BLOCK_TRANSACTIONS, MAX_BLOCK_TRANSACTIONS_SIZE } from '../../src/block/block.ts';
import { txsForBlock } from '../../src/leader/block-builder.ts';
import { txHash } from '../../src/mantle/tx.ts';
import { Mempool, type MempoolConfig, PREFIX_BYTES, TxPool } from '../../src/mempool/index.ts';
import { type KvStore, MemoryKv } from '../../src/storage/kv.ts';
import { MempoolStore } from '../../src/storage/mempool-store.ts';
import { INSECURE_TEST_PROOFS } from '../../src/zk/insecure-test-proofs.ts';
import { FakeChain } from '../mocks/chain.ts';
import { genesisNotes, KEYS, transfer } from '../mocks/ledger.ts';

const F_POOL = 'services/tx-service/tests/mock.rs';
const F_LEADER = 'services/chain/chain-leader/src/lib.rs';
/** F `TEST_TX_TTL`: one hour. */
const TEST_TX_TTL_MS = 60 * 60 * 1000;

async function pool(ttlMs: number | null, kv: KvStore = new MemoryKv(), now = () => Date.now()) {
  const chain = new FakeChain();
  const config: MempoolConfig = {
    maxPendingTxs: 100,
    maxPendingBytes: 1 << 24,
    maxUnappliedTxs: 100,
    txTtlMs: ttlMs,
  };
  const m = await Mempool.init(config, {
    chain,
    proofs: INSECURE_TEST_PROOFS,
    store: new MempoolStore(kv),
    logger: pino({ level: 'silent' }),
    now,
  });
  const notes = genesisNotes(chain.genesis);
  const pk = KEYS[1]!.publicKey;
  const tx = (i: number, value = 5n) => transfer(chain.tip().state, [notes[i]!], [{ value, pk }]).tx;
  return { m, chain, tx };
}

describe('mempool (F tests)', () => {
  test(`expired_tx_is_evicted_on_next_sweep (${F_POOL})`, async () => {
    const clock = { now: 0 }; // the old transaction is inserted at the Unix epoch
    const { m, tx } = await pool(TEST_TX_TTL_MS, new MemoryKv(), () => clock.now);
    const old = tx(0);
    const fresh = tx(1);
    await m.add(old, 'api');
    clock.now = Date.now();
    await m.add(fresh, 'api');
    const oldHash = txHash(old.mantle_tx);
    assert.equal(m.metrics().pending_items, 2);
    assert.equal(m.has(oldHash), true);
    assert.deepEqual(m.byPrefix(oldHash.subarray(0, PREFIX_BYTES)), [old]);
    m.evict([]); // F: `pool.remove(&[])`, the sweep
    assert.equal(m.metrics().pending_items, 1);
    assert.equal(m.has(oldHash), false);
    assert.equal(m.has(txHash(fresh.mantle_tx)), true);
    assert.deepEqual(m.byPrefix(oldHash.subarray(0, PREFIX_BYTES)), []);
    assert.deepEqual([...m.candidates()], [fresh]);
  });

  test(`expired_tx_is_not_evicted_when_ttl_is_disabled (${F_POOL})`, async () => {
    const { m, tx } = await pool(null, new MemoryKv(), () => 0);
    const t = tx(0);
    await m.add(t, 'api');
    for (let i = 0; i < 10; i++) m.evict([]);
    assert.equal(m.metrics().pending_items, 1);
    assert.equal(m.has(txHash(t.mantle_tx)), true);
  });

  test(`storage_failure_does_not_mark_tx_pending (${F_POOL})`, async () => {
    const mem = new MemoryKv();
    const failing: KvStore = {
      get: (b, k) => mem.get(b, k),
      has: (b, k) => mem.has(b, k),
      range: (b, r) => mem.range(b, r),
      transaction: async () => {
        throw new Error('storage failure');
      },
      close: () => mem.close(),
    };
    const { m, tx } = await pool(null, failing);
    const t = tx(0);
    await assert.rejects(m.add(t, 'api'), /storage failure/);
    assert.equal(m.metrics().pending_items, 0);
    assert.equal(m.has(txHash(t.mantle_tx)), false);
  });

  test(`local_submission_rejects_oversized_tx (${F_POOL})`, () => {
    const p = new TxPool({ maxCount: 10, maxBytes: 1 << 30, ttlMs: null });
    const chain = new FakeChain();
    const t = transfer(
      chain.tip().state,
      [genesisNotes(chain.genesis)[0]!],
      [{ value: 1n, pk: KEYS[1]!.publicKey }],
    ).tx;
    assert.throws(() => p.add(txHash(t.mantle_tx), t, MAX_BLOCK_TRANSACTIONS_SIZE + 1, 0), {
      code: 'MEMPOOL_ITEM_TOO_LARGE',
      message: `Item is too large: ${MAX_BLOCK_TRANSACTIONS_SIZE + 1} bytes exceeds maximum ${MAX_BLOCK_TRANSACTIONS_SIZE} bytes`,
    });
    assert.equal([...p.view()].length, 0);
  });

  test(`mempool_view_preserves_receive_order (${F_POOL})`, async () => {
    const { m, tx } = await pool(null);
    const first = tx(0, 1n);
    const second = tx(1, 2n);
    // F orders the two by hash descending before adding, so that receive order differs from hash order.
    const h = (t: typeof first) => Buffer.from(txHash(t.mantle_tx)).toString('hex');
    const expected = h(first) < h(second) ? [second, first] : [first, second];
    for (const t of expected) await m.add(t, 'api');
    assert.deepEqual([...m.candidates()], expected);
    assert.deepEqual(
      m.view().map((x) => Buffer.from(x).toString('hex')),
      expected.map(h),
    );
  });

  test(`prefix_lookup_tracks_the_pending_set (${F_POOL})`, async () => {
    const { m, tx } = await pool(null);
    const t = tx(0);
    const prefix = txHash(t.mantle_tx).subarray(0, PREFIX_BYTES);
    assert.deepEqual(m.byPrefix(prefix), [], 'a prefix with no transaction must resolve to no candidates');
    await m.add(t, 'api');
    assert.deepEqual(
      m.byPrefix(prefix),
      [t],
      'an added transaction must be reachable through its hash prefix',
    );
    const absent = new Uint8Array(PREFIX_BYTES).fill(0xff);
    assert.deepEqual(m.byPrefix(absent), [], 'an unrelated prefix must not pick up candidates');
    m.evict([txHash(t.mantle_tx)]);
    assert.deepEqual(
      m.byPrefix(prefix),
      [],
      'a removed transaction must no longer be reachable through its prefix',
    );
  });
});

describe('block transaction selection (F tests)', () => {
  test(`block_tx_selection_respects_transaction_count_limit (${F_LEADER})`, () => {
    assert.equal(txsForBlock(Array(MAX_BLOCK_TRANSACTIONS + 1).fill(1)), MAX_BLOCK_TRANSACTIONS);
  });

  test(`block_tx_selection_respects_block_size_limit (${F_LEADER})`, () => {
    const sizes = [MAX_BLOCK_TRANSACTIONS_SIZE / 2, MAX_BLOCK_TRANSACTIONS_SIZE / 2, 1];
    const n = txsForBlock(sizes);
    assert.equal(n, 2);
    assert.equal(
      sizes.slice(0, n).reduce((a, b) => a + b, 0),
      MAX_BLOCK_TRANSACTIONS_SIZE,
    );
  });

  test(`block_tx_selection_stops_at_first_transaction_that_does_not_fit (${F_LEADER})`, () => {
    const sizes = [10, MAX_BLOCK_TRANSACTIONS_SIZE, 10];
    assert.equal(txsForBlock(sizes), 1);
    assert.equal(sizes[0], 10);
  });

  test(`block_tx_selection_stops_at_leading_oversized_transaction (${F_LEADER})`, () => {
    assert.equal(txsForBlock([MAX_BLOCK_TRANSACTIONS_SIZE + 1, 1]), 0);
  });
});
