import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { pino } from 'pino';
import { type Block, bodyRoot } from '../../../src/block/block.ts';
import { encodeHeader, headerId, type SignedHeader } from '../../../src/block/header.ts';
import { ChainService } from '../../../src/chain/chain-service.ts';
import { SlotClock } from '../../../src/chain/clock.ts';
import { bytesToHex } from '../../../src/codec/hex.ts';
import { openStore } from '../../../src/storage/open.ts';
import { INSECURE_TEST_PROOFS } from '../../../src/zk/insecure-test-proofs.ts';
import { DEVNET, TEST_LEADER, TestChain } from '../../mocks/ledger.ts';
import { waitUntil } from '../../utils/wait-until.ts';

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function service(): Promise<{
  chain: ChainService;
  store: Awaited<ReturnType<typeof openStore>>;
  close(): void;
}> {
  const dir = mkdtempSync(join(tmpdir(), 'logos-chain-'));
  dirs.push(dir);
  const store = await openStore(dir);
  const clock = new SlotClock(
    1_700_000_000_000,
    DEVNET.slot_duration_ms,
    () => 1_700_000_000_000 + 500_000 * DEVNET.slot_duration_ms,
  );
  const chain = await ChainService.init(
    { deployment: DEVNET, genesisTimeMs: 1_700_000_000_000, online: false },
    {
      store: store.chain,
      proofs: INSECURE_TEST_PROOFS,
      clock,
      logger: pino({ level: process.env.LOGOS_TEST_LOG ?? 'silent' }),
    },
  );
  return { chain, store, close: () => store.close() };
}

/** The same block with uncles referenced (body root and signature redone). */
function withUncles(b: Block, uncles: SignedHeader[]): Block {
  const header = { ...b.header, body_root: bodyRoot(uncles, []) };
  return { ...b, header, uncle_headers: uncles, signature: TEST_LEADER.sign(encodeHeader(header)) };
}

test('an orphan waits for its parent and is applied when the parent arrives', async () => {
  const s = await service();
  try {
    const t = new TestChain();
    assert.equal(bytesToHex(t.genesis.id), bytesToHex(s.chain.genesis.id));
    const b1 = t.block([], 1n);
    t.apply([], 1n);
    const b2 = t.block([], 2n);
    await assert.rejects(s.chain.submit(b2), /Missing parent while applying block 0x/);
    await s.chain.submit(b1);
    // drain() waits for the blocks being processed and for the orphans they adopt.
    await s.chain.drain();
    assert.equal(s.chain.tip().height, 2);
    assert.equal(bytesToHex(s.chain.tip().id), bytesToHex(headerId(b2.header)));
  } finally {
    s.close();
  }
});

test('a block from a future slot is refused before its parent is looked up (not kept as an orphan)', async () => {
  const s = await service();
  try {
    const t = new TestChain();
    const b1 = t.block([], 1n);
    t.apply([], 1n);
    // The clock reads slot 500,000; a block a thousand slots ahead is from the future.
    const future = t.block([], 501_000n);
    await assert.rejects(s.chain.submit(future), /after the current slot/);
    await s.chain.submit(b1);
    // drain() waits for the blocks being processed and for the orphans they adopt.
    await s.chain.drain();
    assert.equal(s.chain.tip().height, 1, 'the future block was not kept to be applied later');
  } finally {
    s.close();
  }
});

test('the switch to Online deletes the forks below the new LIB from storage and stores the LIB and state', async () => {
  const s = await service();
  try {
    const t = new TestChain();
    const fork = t.block([], 1n, 8n);
    await s.chain.submit(fork);
    const k = DEVNET.ledger.consensus.security_param;
    for (let slot = 2n; slot <= BigInt(k + 4); slot++) {
      await s.chain.submit(t.block([], slot));
      t.apply([], slot);
    }
    assert.equal(s.chain.tip().height, k + 3);
    assert.ok(s.chain.block(headerId(fork.header)), 'a fork is kept while Bootstrapping');
    s.chain.setOnline();
    await s.chain.drain();
    assert.equal(s.chain.lib().height, 3);
    assert.equal(s.chain.block(headerId(fork.header)), undefined, 'the stale fork is deleted');
    const meta = s.store.chain.meta();
    assert.equal(bytesToHex(meta.lib!), bytesToHex(s.chain.lib().id));
    assert.equal(meta.state, 'Online');
  } finally {
    s.close();
  }
});

test('uncles: a fork block is offered as an uncle and accepted; misplaced uncles are refused', async () => {
  const s = await service();
  try {
    const t = new TestChain();
    const a1 = t.block([], 1n);
    const b1 = t.block([], 2n, 8n);
    await s.chain.submit(a1);
    await s.chain.submit(b1);
    assert.equal(
      bytesToHex(s.chain.tip().id),
      bytesToHex(headerId(a1.header)),
      'a tie keeps the first block',
    );
    const uncles = s.chain.unclesFor(headerId(a1.header), 3n);
    assert.equal(uncles.length, 1);
    assert.equal(bytesToHex(headerId(uncles[0]!.header)), bytesToHex(headerId(b1.header)));
    t.apply([], 1n);
    const a2 = withUncles(t.block([], 3n), uncles);
    const bogus = { ...uncles[0]!, header: { ...uncles[0]!.header, slot: 99n } };
    await assert.rejects(s.chain.submit(withUncles(t.block([], 3n), [bogus])), /not strictly older/);
    const ancestor = { header: a1.header, signature: a1.signature };
    await assert.rejects(s.chain.submit(withUncles(t.block([], 3n), [ancestor])), /on the chain/);
    const done = await s.chain.submit(a2);
    assert.equal(done.height, 2);
    assert.equal(s.chain.block(done.id)?.uncle_headers.length, 1);
    // The uncle's slot is now taken: a block on a2 does not reference it again.
    assert.equal(s.chain.unclesFor(done.id, 4n).length, 0);
  } finally {
    s.close();
  }
});

test('readers see a new tip only once its block is stored', async () => {
  const s = await service();
  try {
    // The chain store the service was given.
    const store = s.store.chain;
    const commit = store.commit.bind(store);
    let release!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    let committing = false;
    store.commit = async (u) => {
      committing = true;
      await held;
      return commit(u);
    };
    const t = new TestChain();
    const b1 = t.block([], 1n);
    const before = bytesToHex(s.chain.tip().id);
    const done = s.chain.submit(b1);
    await waitUntil(() => committing, 10_000, 'the block commit to start');
    // The block tree has the block, storage does not yet: readers still see the previous head.
    assert.equal(bytesToHex(s.chain.tip().id), before);
    assert.equal(s.chain.headerIds()[0] && bytesToHex(s.chain.headerIds()[0]!), before);
    release();
    await done;
    const tip = s.chain.tip();
    assert.equal(bytesToHex(tip.id), bytesToHex(headerId(b1.header)));
    assert.ok(s.chain.block(tip.id), 'the tip can be read back');
  } finally {
    s.close();
  }
});

test('block events carry the blocks that joined and left the canonical chain, even those a k-deep switch deletes', async () => {
  const s = await service();
  try {
    s.chain.setOnline();
    const k = DEVNET.ledger.consensus.security_param;
    const ids = (bs: readonly Block[]) => bs.map((b) => bytesToHex(headerId(b.header)));
    // The A branch: k blocks on genesis (which stays the LIB).
    const a = new TestChain();
    const aBlocks: Block[] = [];
    for (let slot = 1n; slot <= BigInt(k); slot++) {
      const b = a.block([], slot);
      a.apply([], slot);
      const p = await s.chain.submit(b);
      assert.deepEqual(ids(p.applied), ids([b]), 'a block on the tip joins alone');
      assert.deepEqual(p.reverted, []);
      aBlocks.push(b);
    }
    // The B branch on genesis: side blocks until it is longer; its last block takes over and moves the
    // LIB onto it, so the A branch is a dead fork.
    const bc = new TestChain();
    const bBlocks: Block[] = [];
    for (let slot = 1n; slot <= BigInt(k + 1); slot++) {
      const b = bc.block([], slot, 8n);
      bc.apply([], slot, 8n);
      bBlocks.push(b);
      const p = await s.chain.submit(b);
      if (slot <= BigInt(k)) {
        assert.deepEqual([p.applied, p.reverted], [[], []], 'a side-branch block changes nothing');
        continue;
      }
      assert.deepEqual(ids(p.applied), ids(bBlocks), 'the whole new branch, oldest first');
      assert.deepEqual(ids(p.reverted), ids(aBlocks), 'the whole old branch, oldest first');
    }
    assert.equal(s.chain.lib().height, 1);
    assert.equal(s.chain.block(headerId(aBlocks[0]!.header)), undefined, 'the dead fork is deleted');
  } finally {
    s.close();
  }
});

test('a restart keeps the stored tip among forks of equal length, and the next block extends it', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'logos-chain-'));
  dirs.push(dir);
  const open = async () => {
    const store = await openStore(dir);
    const clock = new SlotClock(
      1_700_000_000_000,
      DEVNET.slot_duration_ms,
      () => 1_700_000_000_000 + 500_000 * DEVNET.slot_duration_ms,
    );
    const chain = await ChainService.init(
      { deployment: DEVNET, genesisTimeMs: 1_700_000_000_000, online: false },
      { store: store.chain, proofs: INSECURE_TEST_PROOFS, clock, logger: pino({ level: 'silent' }) },
    );
    return { chain, store };
  };
  // Two one-block forks on genesis; the first to arrive is the tip. Storage orders a height's blocks
  // by id, so the test makes the tip the one with the larger id: replayed in storage order, the other
  // one would arrive first and stay the tip.
  const a = new TestChain();
  const b = new TestChain();
  const blockA = a.block([], 1n);
  const blockB = b.block([], 1n, 8n);
  const [first, firstChain, second] =
    bytesToHex(headerId(blockA.header)) > bytesToHex(headerId(blockB.header))
      ? [blockA, a, blockB]
      : [blockB, b, blockA];
  let s = await open();
  await s.chain.submit(first);
  await s.chain.submit(second);
  assert.equal(bytesToHex(s.chain.tip().id), bytesToHex(headerId(first.header)));
  await s.chain.close();
  await s.store.close();

  s = await open();
  try {
    assert.equal(bytesToHex(s.chain.tip().id), bytesToHex(headerId(first.header)), 'the stored tip');
    firstChain.apply([], 1n, first === blockB ? 8n : undefined);
    const child = firstChain.block([], 2n, first === blockB ? 8n : undefined);
    const p = await s.chain.submit(child);
    assert.equal(p.height, 2);
    assert.equal(bytesToHex(s.chain.tip().id), bytesToHex(headerId(child.header)));
  } finally {
    await s.chain.close();
    await s.store.close();
  }
});
