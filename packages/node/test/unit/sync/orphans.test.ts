/**
 * The orphan downloader hands several downloaded blocks to the chain before the first is through, and
 * handles their outcomes in order as if each had been submitted alone: an invalid block cancels the
 * download (its sender is not blamed: the downloader has no say on peers), the blocks after it are
 * neither applied nor recorded; a block
 * from a future slot is tried again and the blocks submitted after it are submitted again.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pino } from 'pino';
import type { Block } from '../../../src/block/block.ts';
import { headerId } from '../../../src/block/header.ts';
import { bytesToHex } from '../../../src/codec/hex.ts';
import { APPLY_WINDOW, OrphanDownloader, RejectedBlocks } from '../../../src/sync/orphans.ts';
import { DEVNET, TestChain } from '../../mocks/ledger.ts';
import { chainService, GENESIS_MS, type TestService } from '../chain/helpers.ts';

const logger = pino({ level: process.env.LOGOS_TEST_LOG ?? 'silent' });

function blocks(n: number): Block[] {
  const t = new TestChain();
  const out: Block[] = [];
  for (let i = 1n; i <= BigInt(n); i++) {
    out.push(t.block([], i));
    t.apply([], i);
  }
  return out;
}

function downloader(s: TestService, served: Block[], opts: { ibd?: boolean } = {}) {
  let sent = 0;
  const rejected = new RejectedBlocks(100);
  const d = new OrphanDownloader(
    { maxPending: 10, retryRecoverable: opts.ibd === true },
    {
      chain: s.chain,
      source: async function* () {
        for (const block of served) {
          sent++;
          yield { block, id: headerId(block.header), peer: 'peer-a' };
        }
      },
      rejected,
      logger,
      signal: new AbortController().signal,
    },
  );
  return { d, rejected, sent: () => sent };
}

test('an invalid block in the window: the blocks before it applied, it recorded as rejected, the rest untouched', async () => {
  const all = blocks(APPLY_WINDOW + 4);
  const bad = 3;
  all[bad]!.signature = new Uint8Array(64).fill(3);
  const s = await chainService();
  const { d, rejected, sent } = downloader(s, all);
  try {
    d.enqueue(headerId(all[all.length - 1]!.header));
    await d.whenIdle();
    await s.chain.drain();
    assert.equal(s.chain.tip().height, bad);
    assert.equal(bytesToHex(s.chain.tip().id), bytesToHex(headerId(all[bad - 1]!.header)));
    assert.equal(rejected.has(headerId(all[bad]!.header)), true);
    for (const b of all.slice(bad + 1)) {
      assert.equal(rejected.has(headerId(b.header)), false, 'a block after the invalid one is not recorded');
      assert.equal(s.chain.has(headerId(b.header)), false);
    }
    assert.ok(sent() > bad + 1, 'blocks after the invalid one had been submitted');
  } finally {
    await s.chain.close();
    s.close();
  }
});

test('a block from a future slot is tried again, and the blocks submitted behind it again after it', async () => {
  const all = blocks(APPLY_WINDOW + 2);
  // The clock is read once per block prepared: block 2 is from a future slot, those after it are not
  // (so they find no parent and wait in the chain's orphan pool).
  let reads = 0;
  const s = await chainService({
    now: () => GENESIS_MS + (++reads === 2 ? 1 : 1000) * DEVNET.slot_duration_ms,
  });
  const { d, rejected } = downloader(s, all);
  try {
    const t0 = Date.now();
    d.enqueue(headerId(all[all.length - 1]!.header));
    await d.whenIdle();
    await s.chain.drain();
    assert.ok(Date.now() - t0 >= 450, 'block 2 was tried again after a delay');
    assert.equal(s.chain.tip().height, all.length, 'every block applied');
    for (const b of all) assert.equal(rejected.has(headerId(b.header)), false);
  } finally {
    await s.chain.close();
    s.close();
  }
});

test('during IBD a block whose parent is missing keeps the download for a later round', async () => {
  const all = blocks(6);
  const s = await chainService();
  // Block 3 is missing from what the peer serves: 4 and the blocks after have no parent here.
  const { d, rejected } = downloader(s, [...all.slice(0, 3), ...all.slice(4)], { ibd: true });
  try {
    d.enqueue(headerId(all[5]!.header));
    await d.whenIdle();
    await s.chain.drain();
    assert.equal(s.chain.tip().height, 3);
    assert.equal(d.takeRetries().length, 1, 'kept for the next round');
    for (const b of all) assert.equal(rejected.has(headerId(b.header)), false);
    // Block 4 arrives: the chain adopts the blocks waiting for it.
    await s.chain.submit(all[3]!);
    await s.chain.drain();
    assert.equal(s.chain.tip().height, 6);
  } finally {
    await s.chain.close();
    s.close();
  }
});
