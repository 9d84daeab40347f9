/**
 * The prover pool's queue: urgent requests go before those already waiting, background ones after
 * every other, a request withdrawn while it waits leaves the queue, and a prover can be readied before
 * its first proof. One real prover
 * process; the requests after the first are malformed (no inputs), so each ends quickly with an error,
 * in the order the prover took them.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { SHIPPED_CIRCUITS_DIR } from '../../../src/zk/circuit-folder.ts';
import { ProverError, ProverPool } from '../../../src/zk/prover-pool.ts';

const WASM = `${SHIPPED_CIRCUITS_DIR}pol/witness_generator.wasm`;
const ZKEY = `${SHIPPED_CIRCUITS_DIR}pol/proving_key.zkey`;

const pool = new ProverPool(1);
after(() => pool.close());

test('a prover readies a circuit; urgent requests go first and background ones last; a withdrawn request never runs', async () => {
  const busy = pool.warm(WASM, ZKEY);
  const order: string[] = [];
  const request = (name: string, opts: Parameters<ProverPool['prove']>[4] = {}) =>
    pool.prove('pol', WASM, ZKEY, {}, opts).then(
      () => order.push(`${name}: proved`),
      (e: Error) => {
        assert.ok(e instanceof ProverError);
        order.push(name);
      },
    );
  const withdraw = new AbortController();
  const ahead = request('ahead', { background: true });
  const dropped = request('dropped', { signal: withdraw.signal });
  const normal = request('normal');
  const urgent = request('urgent', { urgent: true });
  assert.equal(pool.waiting, 4);
  withdraw.abort();
  assert.equal(pool.waiting, 3, 'the withdrawn request left the queue');
  await busy;
  await Promise.all([ahead, dropped, normal, urgent]);
  assert.deepEqual(order, ['dropped', 'urgent', 'normal', 'ahead'], 'urgent, then normal, then background');
  await assert.rejects(pool.prove('pol', WASM, ZKEY, {}, { signal: withdraw.signal }), /no longer needed/);
});
