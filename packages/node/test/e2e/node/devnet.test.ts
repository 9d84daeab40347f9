/**
 * A single-node chain end to end, on a fast test deployment (100 ms slots, k = 2, 40-slot epochs)
 * with the insecure test proofs: blocks are produced, height and LIB advance, epochs change and the
 * epoch nonce evolves, a restart continues the same chain, and a second node on the same data
 * directory is refused.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { pino } from 'pino';
import { bytesToHex } from '../../../src/codec/hex.ts';
import { devnetConfig } from '../../../src/node/devnet.ts';
import { LogosNode } from '../../../src/node/node.ts';
import { openStore } from '../../../src/storage/open.ts';
import { INSECURE_TEST_PROOFS } from '../../../src/zk/insecure-test-proofs.ts';
import { FAST } from '../../mocks/fast-deployment.ts';

const dir = mkdtempSync(join(tmpdir(), 'logos-node-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const config = {
  ...devnetConfig(),
  api: { backend: { ...devnetConfig().api.backend, listen_address: '127.0.0.1:0' } },
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

describe('chain reads', () => {
  test('blocks, events, header walks and slot ranges come back from storage', async () => {
    const d2 = mkdtempSync(join(tmpdir(), 'logos-node-reads-'));
    const node = await LogosNode.start({
      deployment: FAST,
      config: { ...config, state: { base_folder: d2 } },
      baseDir: d2,
      logger,
      proofs: INSECURE_TEST_PROOFS,
    });
    try {
      await waitFor(() => node.chain.tip().height >= 4, 10_000, 'four blocks');
      const tip = node.chain.tip();
      const block = node.chain.block(tip.id)!;
      assert.equal(block.header.slot, tip.slot);
      assert.equal(node.chain.eventsJson(tip.id), '[]');
      const ids = node.chain.headerIds(tip.id, node.chain.genesis.id);
      assert.equal(bytesToHex(ids[0]!), bytesToHex(tip.id));
      assert.equal(bytesToHex(ids[ids.length - 1]!), bytesToHex(node.chain.genesis.id));
      assert.equal(ids.length, tip.height + 1);
      const bySlot = node.chain.canonicalBySlot(0n, tip.slot);
      assert.equal(bySlot.length, tip.height + 1);
      assert.equal(bytesToHex(bySlot[bySlot.length - 1]!.id), bytesToHex(tip.id));
      assert.equal(node.chain.block(new Uint8Array(32).fill(9)), undefined);
    } finally {
      await node.stop();
      rmSync(d2, { recursive: true, force: true });
    }
  });
});

describe('ledger snapshots', () => {
  test('a restart loads the stored snapshot and replays only the blocks above it', async () => {
    const d3 = mkdtempSync(join(tmpdir(), 'logos-node-snap-'));
    const cfg = { ...config, state: { base_folder: d3 } };
    const node = await LogosNode.start({
      deployment: FAST,
      config: cfg,
      baseDir: d3,
      logger,
      proofs: INSECURE_TEST_PROOFS,
      snapshotInterval: 3,
    });
    let tipBefore: string;
    let fingerprintAtTip: bigint;
    try {
      await waitFor(() => node.chain.lib().height >= 8, 20_000, 'the LIB to pass height 8');
      await node.chain.drain();
    } finally {
      await node.stop();
    }
    tipBefore = bytesToHex(node.chain.tip().id);
    fingerprintAtTip = node.chain.tip().state.utxos.root();
    const again = await LogosNode.start({
      deployment: FAST,
      config: cfg,
      baseDir: d3,
      logger,
      proofs: INSECURE_TEST_PROOFS,
      snapshotInterval: 3,
    });
    try {
      assert.ok(again.chain.restoredFromSnapshot, 'the restart used a snapshot');
      const tip = again.chain.tip();
      // The same tip (or a later one if a block was made right away) with the same ledger.
      if (bytesToHex(tip.id) === tipBefore) assert.equal(tip.state.utxos.root(), fingerprintAtTip);
      await waitFor(
        () => again.chain.tip().height > node.chain.tip().height,
        10_000,
        'a block after the restart',
      );
    } finally {
      await again.stop();
      rmSync(d3, { recursive: true, force: true });
    }
  });

  test('a snapshot in an older format is set aside: the restart replays from genesis to the same tip', async () => {
    const d4 = mkdtempSync(join(tmpdir(), 'logos-node-snap-old-'));
    const cfg = { ...config, state: { base_folder: d4 } };
    const start = () =>
      LogosNode.start({
        deployment: FAST,
        config: cfg,
        baseDir: d4,
        logger,
        proofs: INSECURE_TEST_PROOFS,
        snapshotInterval: 3,
      });
    const node = await start();
    try {
      await waitFor(() => node.chain.lib().height >= 6, 20_000, 'the LIB to pass height 6');
      await node.chain.drain();
    } finally {
      await node.stop();
    }
    const tipBefore = node.chain.tip();
    // The stored snapshot, rewritten as format version 2 (the byte that opens a snapshot).
    const store = await openStore(node.dataDir);
    try {
      const snap = store.chain.latestSnapshot()!;
      const old = snap.bytes.slice();
      old[0] = 2;
      await store.chain.saveSnapshot(snap.info.id, old);
    } finally {
      await store.close();
    }
    const again = await start();
    try {
      assert.equal(again.chain.restoredFromSnapshot, false, 'the old snapshot was not used');
      const ids = again.chain.headerIds(tipBefore.id, again.chain.genesis.id);
      assert.equal(ids.length, tipBefore.height + 1, 'the chain up to the old tip was replayed');
      assert.equal(again.chain.stateOf(tipBefore.id)?.utxos.root(), tipBefore.state.utxos.root());
    } finally {
      await again.stop();
      rmSync(d4, { recursive: true, force: true });
    }
  });
});
