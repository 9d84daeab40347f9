/** `restart_policy:` of `daemon/config.yaml`: bounds that keep the restart timer meaningful. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MAX_TIMER_MS, restartPolicy } from '../../src/daemon-config.ts';

test('restart_policy: defaults, and a backoff_ms past the longest timer is refused', () => {
  assert.deepEqual(restartPolicy({}), { maxRestarts: 3, backoffMs: 1000 });
  assert.equal(restartPolicy({ restart_policy: { backoff_ms: MAX_TIMER_MS } }).backoffMs, MAX_TIMER_MS);
  assert.throws(
    () => restartPolicy({ restart_policy: { backoff_ms: 2 ** 31 } }),
    /restart_policy\.backoff_ms/,
  );
  assert.throws(() => restartPolicy({ restart_policy: { backoff_ms: 1e300 } }), /restart_policy\.backoff_ms/);
  assert.throws(
    () => restartPolicy({ restart_policy: { max_restarts: -1 } }),
    /restart_policy\.max_restarts/,
  );
});
