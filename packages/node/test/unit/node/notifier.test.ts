/** The node's status line (src/node/notifier.ts): the chain's state and how the process fares. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pino } from 'pino';
import { SlotClock } from '../../../src/chain/clock.ts';
import { Notifier } from '../../../src/node/notifier.ts';
import { waitUntil } from '../../utils/wait-until.ts';

test('the status line: state, phase, tip, LIB, slot, resident memory and event-loop delay p99', async () => {
  const lines: Record<string, unknown>[] = [];
  const logger = pino({ level: 'info' }, { write: (l: string) => void lines.push(JSON.parse(l)) });
  const ac = new AbortController();
  Notifier.init(
    {
      chain: { consensusState: 'Online', tip: () => ({ height: 7, slot: 9n }), lib: () => ({ height: 3 }) },
      clock: new SlotClock(Date.now() - 10_000, 1000),
      phases: { phase: 'Following' } as never,
      logger,
      signal: ac.signal,
    },
    20,
  );
  // Busy the loop for a moment: a later line's delay p99 shows it (the line due when the loop
  // frees may come before the delay is sampled, so the one after it shows the delay).
  await new Promise((r) => setTimeout(r, 25));
  const t = Date.now();
  while (Date.now() - t < 60) {}
  await waitUntil(
    () => lines.length >= 2 && lines.some((x) => Number(x.loop_delay_p99_ms) >= 40),
    2000,
    'a status line showing the blocked loop',
  ).catch(() => {});
  ac.abort();
  const l = lines.at(-1)!;
  assert.equal(l.msg, 'status');
  assert.deepEqual(
    [l.state, l.phase, l.height, l.slot, l.lib_height, l.current_slot],
    ['Online', 'Following', 7, 9, 3, 10],
  );
  assert.ok(typeof l.rss_mb === 'number' && l.rss_mb > 10, `rss_mb ${l.rss_mb}`);
  assert.ok(
    lines.some((x) => Number(x.loop_delay_p99_ms) >= 40),
    `a blocked loop shows: ${lines.map((x) => x.loop_delay_p99_ms)}`,
  );
});
