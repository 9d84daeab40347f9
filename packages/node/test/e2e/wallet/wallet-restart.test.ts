/**
 * A node restarted on its data folder: the wallet starts from the notes it persisted at the LIB (no
 * scan of the LIB's ledger notes, which it logs when it has to) and answers the same balances.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { pino } from 'pino';
import { devnetConfig } from '../../../src/node/devnet.ts';
import { startFastNode, waitUntil } from '../../utils/api-node.ts';

const SCAN = 'wallet notes read from the LIB ledger state';

/** A logger whose lines land in `lines`. */
function capture(lines: string[]) {
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return pino({ level: 'info' }, sink);
}

test('the wallet restarts from its persisted LIB notes', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'logos-wallet-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const pk = Object.values(devnetConfig().wallet.known_keys)[0]!;
  const balanceOf = (base: string) =>
    fetch(`${base}/wallet/${pk}/balance`).then((r) => r.json()) as Promise<{ balance: number }>;

  const first: string[] = [];
  const a = await startFastNode({ dir, logger: capture(first) });
  let before: { balance: number };
  try {
    await waitUntil(() => a.node.chain.lib().height >= 3, 30_000, 'an LIB three blocks above genesis');
    assert.ok(
      first.some((l) => l.includes(SCAN)),
      'a new chain reads the LIB ledger notes once',
    );
    before = await balanceOf(a.base);
  } finally {
    await a.stop();
  }
  const second: string[] = [];
  const b = await startFastNode({ dir, logger: capture(second) });
  try {
    assert.ok(!second.some((l) => l.includes(SCAN)), 'no scan on restart');
    assert.equal((await balanceOf(b.base)).balance, before.balance);
  } finally {
    await b.stop();
  }
});
