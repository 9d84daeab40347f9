/**
 * Handlers of the Mantle namespace on a real mempool over a stand-in chain: the bounded pool's refusal
 * (a bound F's pool does not have) answers 500 `{code, message}` with the pool's text and changes
 * nothing; `GET /mantle/gas-prices` at a block without ledger state answers F's 404 text.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pino } from 'pino';
import { ApiError } from '../../../../src/api/errors.ts';
import { mantleHandlers } from '../../../../src/api/impl/mantle.ts';
import { encodeSignedTx, signedMantleTx } from '../../../../src/mantle/tx.ts';
import { Mempool } from '../../../../src/mempool/index.ts';
import { MemoryKv } from '../../../../src/storage/kv.ts';
import { MempoolStore } from '../../../../src/storage/mempool-store.ts';
import { INSECURE_TEST_PROOFS } from '../../../../src/zk/insecure-test-proofs.ts';
import { apiContext } from '../../../mocks/api-context.ts';
import { FakeChain } from '../../../mocks/chain.ts';
import { genesisNotes, KEYS, transfer } from '../../../mocks/ledger.ts';

test('a full mempool: 500 with the pool text, nothing added (bounded pool, docs/design/fidelity.md)', async () => {
  const chain = new FakeChain();
  const maxPendingBytes = 64 * 1024 * 1024;
  const mempool = await Mempool.init(
    { maxPendingTxs: 1, maxPendingBytes, maxUnappliedTxs: 1, txTtlMs: 60_000 },
    {
      chain,
      proofs: INSECURE_TEST_PROOFS,
      store: new MempoolStore(new MemoryKv()),
      logger: pino({ level: 'silent' }),
      now: () => 1_000_000,
    },
  );
  const ctx = apiContext({ chain, mempool });
  const notes = genesisNotes(chain.genesis);
  const pk = KEYS[1]!.publicKey;
  const s = chain.tip().state;
  const first = transfer(s, [notes[0]!], [{ value: 5n, pk }]).tx;
  const second = transfer(s, [notes[1]!], [{ value: 5n, pk }]).tx;
  const add = async (tx: typeof first) =>
    mantleHandlers.mempoolAddTx(ctx, { params: {}, query: {}, body: signedMantleTx.toJson(tx) });
  assert.deepEqual(await add(first), { body: 'null' });
  const bytes = encodeSignedTx(first).length;
  await assert.rejects(add(second), (e: unknown) => {
    assert.ok(e instanceof ApiError);
    assert.equal(e.status, 500);
    assert.equal(
      e.message,
      `Mempool is full: 1 transactions of ${bytes} bytes pending (limits 1 transactions, ${maxPendingBytes} bytes)`,
    );
    return true;
  });
  assert.equal(mempool.metrics().pending_items, 1);
  mempool.close();
});

test('GET /mantle/gas-prices at a block without ledger state: F 404 text', () => {
  // The chain holds no ledger state at the asked block.
  const ctx = apiContext();
  assert.throws(
    () =>
      mantleHandlers.mantleGasPrices(ctx, {
        params: {},
        query: { tip: new Uint8Array(32).fill(0xee) },
        body: undefined,
      }),
    (e: unknown) =>
      e instanceof ApiError && e.status === 404 && e.message === 'Ledger state not found for block',
  );
});
