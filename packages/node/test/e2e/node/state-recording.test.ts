/**
 * The node records its consensus state with the time periodically (every
 * `offline_grace_period.state_recording_interval`), not only with blocks, so that a restart can tell how
 * long it was offline.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { pino } from 'pino';
import { devnetConfig } from '../../../src/node/devnet.ts';
import { LogosNode } from '../../../src/node/node.ts';
import { openStore } from '../../../src/storage/open.ts';
import { INSECURE_TEST_PROOFS } from '../../../src/zk/insecure-test-proofs.ts';
import { FAST } from '../../mocks/fast-deployment.ts';
import { waitUntil } from '../../utils/api-node.ts';

const dir = mkdtempSync(join(tmpdir(), 'logos-state-rec-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('the consensus state is recorded periodically, without blocks', async () => {
  const base = devnetConfig();
  const config = {
    ...base,
    api: { backend: { ...base.api.backend, listen_address: '127.0.0.1:0' } },
    state: { base_folder: dir },
    // No leader keys: no blocks are produced.
    wallet: { ...base.wallet, known_keys: {} },
    pow: { ...base.pow, auto_claim: { ...base.pow.auto_claim, targets: [] } },
    cryptarchia: {
      ...base.cryptarchia,
      service: {
        bootstrap: {
          ...base.cryptarchia.service.bootstrap,
          prolonged_bootstrap_period: 3600,
          offline_grace_period: { grace_period: 1200, state_recording_interval: 0.1 },
        },
      },
    },
  };
  const node = await LogosNode.start({
    deployment: FAST,
    config,
    baseDir: dir,
    logger: pino({ level: 'silent' }),
    proofs: INSECURE_TEST_PROOFS,
  });
  // The node has recorded once at its start; every record from now on is a periodic one.
  const started = Date.now();
  let records = 0;
  const record = node.chain.recordState.bind(node.chain);
  node.chain.recordState = () => {
    records++;
    return record();
  };
  try {
    await waitUntil(() => records >= 3, 20_000, 'three periodic records');
    assert.equal(node.chain.tip().height, 0);
  } finally {
    await node.stop();
  }
  const t1 = Date.now();
  const store = await openStore(join(dir, config.storage.backend.folder_name));
  try {
    const meta = store.chain.meta();
    assert.equal(meta.state, 'Bootstrapping');
    const at = Number(meta.lastOnlineMs);
    assert.ok(
      at >= started && at <= t1,
      `recorded ${at - started} ms after the start (stopped at ${t1 - started})`,
    );
  } finally {
    await store.close();
  }
});
