/** The `mempool` section of user_config.yaml: defaults, each key, and refusals that name the key. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_MEMPOOL, mempoolConfig, parseMempoolSection } from '../../../src/mempool/index.ts';

test('mempool section: defaults, each key read, the service config built from it', () => {
  assert.deepEqual(parseMempoolSection(undefined), DEFAULT_MEMPOOL);
  assert.equal(DEFAULT_MEMPOOL.max_unapplied_txs, 1024);
  const s = parseMempoolSection({
    max_pending_txs: 10,
    max_pending_bytes: 1000,
    max_unapplied_txs: 3,
    verifier_threads: 2,
  });
  assert.deepEqual(mempoolConfig(s, 5000), {
    maxPendingTxs: 10,
    maxPendingBytes: 1000,
    maxUnappliedTxs: 3,
    txTtlMs: 5000,
  });
});

test('mempool section: bad values and unknown keys are refused with the key named', () => {
  assert.throws(() => parseMempoolSection({ max_unapplied_txs: 0 }), /mempool\.max_unapplied_txs/);
  assert.throws(() => parseMempoolSection({ max_unapplied_txs: 'many' }), /mempool\.max_unapplied_txs/);
  assert.throws(() => parseMempoolSection({ max_unaplied_txs: 3 }), /max_unaplied_txs/);
});
