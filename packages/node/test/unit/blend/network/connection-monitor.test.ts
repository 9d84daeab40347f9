/** Per-window message counting of a core connection, F `handler/conn_maintenance.rs` tests. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConnectionMonitor } from '../../../../src/blend/network/index.ts';

// F: conn_maintenance::tests::monitor (expecting 1..=2 messages per window)
test('monitor', () => {
  const m = new ConnectionMonitor({ min: 1, max: 2 });
  m.record();
  assert.equal(m.endWindow(), 'healthy'); // the minimum
  m.record();
  m.record();
  assert.equal(m.endWindow(), 'healthy'); // the maximum
  m.record();
  m.record();
  m.record();
  assert.equal(m.endWindow(), 'spammy'); // above the maximum
  assert.equal(m.endWindow(), 'unhealthy'); // no message
  m.record();
  assert.equal(m.endWindow(), 'healthy'); // back in range
});

test('the next window takes the range it is given', () => {
  const m = new ConnectionMonitor({ min: 0, max: 1 });
  m.record();
  m.record();
  assert.equal(m.endWindow({ min: 0, max: 5 }), 'spammy');
  for (let i = 0; i < 5; i++) m.record();
  assert.equal(m.received, 5);
  assert.equal(m.endWindow(), 'healthy');
});
