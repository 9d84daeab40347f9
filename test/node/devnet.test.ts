/**
 * A single-node chain end to end, on a fast test deployment (100 ms slots, k = 2, 40-slot epochs)
 * with the insecure test proofs: blocks are produced, height and LIB advance, epochs change and the
 * epoch nonce evolves, a restart continues the same chain, and a second node on the same data
 * directory is refused.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { pino } from 'pino';
import { devnetConfig } from '../../src/cli.ts';
import { bytesToHex } from '../../src/codec/hex.ts';
import { parseDeployment } from '../../src/ledger/deployment.ts';
import { INSECURE_TEST_PROOFS } from '../../src/ledger/insecure-test-proofs.ts';
import { LogosNode } from '../../src/node/node.ts';

const devnetText = readFileSync(new URL('../../deployments/devnet.yaml', import.meta.url), 'utf8');
export const FAST = parseDeployment(
  devnetText
    .replace('name: devnet', 'name: fast-test')
    .replace('test: false', 'test: true')
    .replace('slot_duration_ms: 2000', 'slot_duration_ms: 100')
    .replace('security_param: 10', 'security_param: 2'),
);

const dir = mkdtempSync(join(tmpdir(), 'logos-node-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const config = {
  ...devnetConfig(),
  state: { base_folder: dir },
  cryptarchia: {
    ...devnetConfig().cryptarchia,
    service: {
      bootstrap: { ...devnetConfig().cryptarchia.service.bootstrap, prolonged_bootstrap_period: 0.2 },
    },
  },
};
const logger = pino({ level: 'warn' });

async function waitFor(cond: () => boolean, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('single-node devnet', () => {
  test('produces blocks, goes Online, moves the LIB, changes epochs, and continues after a restart', async () => {
    const node = await LogosNode.start({
      deployment: FAST,
      config,
      baseDir: dir,
      logger,
      proofs: INSECURE_TEST_PROOFS,
    });
    let genesis: string;
    let heightBefore: number;
    try {
      genesis = bytesToHex(node.chain.genesis.id);
      const nonce0 = node.chain.tip().state.epoch_state.nonce;
      await waitFor(
        () => node.chain.consensusState === 'Online' && node.phase === 'Following',
        3000,
        'Online',
      );
      await waitFor(() => node.chain.tip().height >= 5, 10_000, 'five blocks');
      await waitFor(() => node.chain.lib().height >= 2, 10_000, 'the LIB to move');
      const k = FAST.ledger.consensus.security_param;
      assert.ok(node.chain.tip().height - node.chain.lib().height <= k);
      await waitFor(() => node.chain.tip().state.epoch_state.epoch >= 2, 15_000, 'epoch 2');
      assert.notEqual(node.chain.tip().state.epoch_state.nonce, nonce0);
      heightBefore = node.chain.tip().height;
      // A second node on the same data directory is refused.
      await assert.rejects(
        LogosNode.start({ deployment: FAST, config, baseDir: dir, logger, proofs: INSECURE_TEST_PROOFS }),
        /in use by process/,
      );
    } finally {
      await node.stop();
    }
    const again = await LogosNode.start({
      deployment: FAST,
      config,
      baseDir: dir,
      logger,
      proofs: INSECURE_TEST_PROOFS,
    });
    try {
      assert.equal(bytesToHex(again.chain.genesis.id), genesis);
      assert.ok(again.chain.tip().height >= heightBefore, 'the restarted node keeps its chain');
      await waitFor(() => again.chain.tip().height > heightBefore, 10_000, 'a block after the restart');
    } finally {
      await again.stop();
    }
  });
});
