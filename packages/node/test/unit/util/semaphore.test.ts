import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Semaphore } from '../../../src/util/semaphore.ts';

test('semaphore: permits up to its size, FIFO hand-over, release is idempotent', async () => {
  const s = new Semaphore(2);
  const r1 = await s.acquire();
  const r2 = s.tryAcquire();
  assert.ok(r2);
  assert.equal(s.tryAcquire(), undefined);
  const order: number[] = [];
  const w3 = s.acquire().then((r) => {
    order.push(3);
    return r;
  });
  const w4 = s.acquire().then((r) => {
    order.push(4);
    return r;
  });
  assert.equal(s.used, 2);
  assert.equal(s.queued, 2);
  r1();
  r1();
  const r3 = await w3;
  assert.deepEqual(order, [3]);
  assert.equal(s.queued, 1);
  r2();
  const r4 = await w4;
  assert.deepEqual(order, [3, 4]);
  r3();
  r4();
  assert.equal(s.used, 0);
});

test('semaphore: an aborted waiter leaves the queue and takes no permit', async () => {
  const s = new Semaphore(1);
  const r1 = await s.acquire();
  const ac = new AbortController();
  const w = s.acquire(ac.signal);
  assert.equal(s.queued, 1);
  ac.abort(new Error('timeout'));
  await assert.rejects(w, /timeout/);
  assert.equal(s.queued, 0);
  r1();
  assert.equal(s.used, 0);
  await assert.rejects(s.acquire(AbortSignal.abort(new Error('already'))), /already/);
  assert.throws(() => new Semaphore(0), RangeError);
});
