/**
 * The bounded set of discovered peers (src/network/discovered-peers.ts) and the deadline of a wait
 * (src/network/deadline.ts).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DeadlineExceeded, withDeadline } from '../../../src/network/deadline.ts';
import { DiscoveredPeers } from '../../../src/network/discovered-peers.ts';

test('discovered peers: bounded, the oldest goes; seen again is newest; unreachable goes first', () => {
  const d = new DiscoveredPeers(3);
  for (const p of ['a', 'b', 'c']) d.seen(p);
  d.seen('a'); // seen again: now the newest
  d.seen('d'); // over the bound: the oldest (b) goes
  assert.deepEqual(d.list(), ['c', 'a', 'd']);
  d.unreachable('d');
  d.seen('e'); // the unreachable one goes first
  assert.deepEqual(d.list(), ['c', 'a', 'e']);
  d.unreachable('zz'); // not known: nothing changes
  d.delete('a');
  assert.deepEqual(d.list(), ['c', 'e']);
  assert.equal(d.size, 2);
  // A flood of peer ids costs no more than the bound.
  for (let i = 0; i < 10_000; i++) d.seen(`p${i}`);
  assert.equal(d.size, 3);
});

test('a wait past its deadline fails as a timeout; one within it gives its outcome', async () => {
  const never = new Promise<never>(() => {});
  const t0 = Date.now();
  await assert.rejects(withDeadline(never, 50), (e: unknown) => {
    assert.ok(e instanceof DeadlineExceeded);
    assert.equal(e.name, 'TimeoutError');
    return true;
  });
  assert.ok(Date.now() - t0 < 2000);
  assert.equal(await withDeadline(Promise.resolve(7), 1000), 7);
  await assert.rejects(withDeadline(Promise.reject(new RangeError('no')), 1000), RangeError);
});
