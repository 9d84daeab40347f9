/**
 * The bootstrap phases around IBD: a node without a network skips it; a finished IBD leads to
 * `ProlongedBootstrapPeriod` (or straight to `Following` when the chain starts Online); a failed IBD
 * stops there and reports the failure, with F's message in the log.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pino } from 'pino';
import { SlotClock } from '../../../src/chain/index.ts';
import { BootstrapPhases, IBD_FAILED_MESSAGE, SyncError } from '../../../src/sync/index.ts';

const past = new SlotClock(Date.now() - 10_000, 1000);

function collectLogs() {
  const lines: string[] = [];
  const logger = pino({ level: 'info' }, { write: (l: string) => void lines.push(l) });
  return { logger, lines };
}

test('IBD that completes: then the prolonged bootstrap period, or Following when Online', async () => {
  for (const online of [false, true]) {
    const ac = new AbortController();
    let release!: (ran: boolean) => void;
    const p = BootstrapPhases.init(
      { online, prolongedBootstrapPeriod: 3600 },
      {
        chain: { setOnline: () => {} },
        clock: past,
        logger: pino({ level: 'silent' }),
        signal: ac.signal,
        ibd: () => new Promise<boolean>((r) => (release = r)),
      },
    );
    assert.equal(p.phase, 'InitialBlockDownload');
    release(true);
    await new Promise((r) => setImmediate(r));
    assert.equal(p.phase, online ? 'Following' : 'ProlongedBootstrapPeriod');
    ac.abort();
  }
});

test('IBD that fails: the failure is reported and logged with F message, the phase stays', async () => {
  const ac = new AbortController();
  const { logger, lines } = collectLogs();
  const failures: Error[] = [];
  const p = BootstrapPhases.init(
    { online: true, prolongedBootstrapPeriod: 0 },
    {
      chain: { setOnline: () => {} },
      clock: past,
      logger,
      signal: ac.signal,
      ibd: () => Promise.reject(new SyncError('SYNC_ALL_PEERS_FAILED', 'All peers failed')),
      onIbdFailed: (e) => failures.push(e),
    },
  );
  await new Promise((r) => setImmediate(r));
  assert.equal(p.phase, 'InitialBlockDownload');
  assert.equal(failures.length, 1);
  assert.ok(lines.some((l) => l.includes(IBD_FAILED_MESSAGE)));
  ac.abort();
});

test('no network: IBD skipped, and said so', () => {
  const ac = new AbortController();
  const { logger, lines } = collectLogs();
  const p = BootstrapPhases.init(
    { online: true, prolongedBootstrapPeriod: 0 },
    { chain: { setOnline: () => {} }, clock: past, logger, signal: ac.signal },
  );
  assert.equal(p.phase, 'Following');
  assert.ok(lines.some((l) => l.includes('Skipping IBD as no peers are configured')));
  ac.abort();
});
