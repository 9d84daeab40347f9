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
import { LogosNode } from '../../../src/node/node.ts';
import { INSECURE_TEST_PROOFS } from '../../../src/zk/insecure-test-proofs.ts';
import { FAST } from '../../mocks/fast-deployment.ts';
import { waitUntil } from '../../utils/api-node.ts';

async function startNode(dir: string, lines: string[]): Promise<LogosNode> {
  const cfg = devnetConfig();
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return LogosNode.start({
    deployment: FAST,
    config: {
      ...cfg,
      api: { backend: { ...cfg.api.backend, listen_address: '127.0.0.1:0' } },
      cryptarchia: {
        ...cfg.cryptarchia,
        service: {
          ...cfg.cryptarchia.service,
          bootstrap: { ...cfg.cryptarchia.service.bootstrap, prolonged_bootstrap_period: 0.5 },
        },
      },
      state: { base_folder: dir },
    },
    baseDir: dir,
    logger: pino({ level: 'info' }, sink),
    proofs: INSECURE_TEST_PROOFS,
  });
}

test('the wallet restarts from its persisted LIB notes', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'logos-wallet-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const pk = Object.values(devnetConfig().wallet.known_keys)[0]!;
  const first: string[] = [];
  const a = await startNode(dir, first);
  let balance: { balance: number } | undefined;
  try {
    await waitUntil(() => a.chain.lib().height >= 3, 30_000, 'an LIB three blocks above genesis');
    assert.ok(
      first.some((l) => l.includes('wallet notes read from the LIB ledger state')),
      'a new chain scans once',
    );
    balance = (await fetch(`http://${a.api.listening}/wallet/${pk}/balance`).then((r) => r.json())) as {
      balance: number;
    };
  } finally {
    await a.stop();
  }
  const second: string[] = [];
  const b = await startNode(dir, second);
  try {
    assert.ok(
      !second.some((l) => l.includes('wallet notes read from the LIB ledger state')),
      'no scan on restart',
    );
    const again = await fetch(`http://${b.api.listening}/wallet/${pk}/balance`).then((r) => r.json());
    assert.equal((again as { balance: number }).balance, balance?.balance);
  } finally {
    await b.stop();
  }
});
