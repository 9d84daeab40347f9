/**
 * The chain's two stages: blocks submitted together are prepared while the proofs of the blocks
 * before them are verified, and finish in order. A burst ends as one-by-one submission does; a block
 * with a bad proof takes its descendants down with it (and nothing else); the number of blocks
 * between the stages is bounded.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';
import type { Block } from '../../../src/block/block.ts';
import { headerId } from '../../../src/block/header.ts';
import { BlockRejected, ChainService } from '../../../src/chain/chain-service.ts';
import { SlotClock } from '../../../src/chain/clock.ts';
import { bytesToHex } from '../../../src/codec/hex.ts';
import type { ProofSystem } from '../../../src/ledger/proof-system.ts';
import { INSECURE_TEST_PROOFS } from '../../../src/zk/insecure-test-proofs.ts';
import { DEVNET, genesisNotes, KEYS, type Owned, TestChain, transfer } from '../../mocks/ledger.ts';
import { waitUntil } from '../../utils/wait-until.ts';
import { chainService, GENESIS_MS, type TestService } from './helpers.ts';

const hex = (b: Block) => bytesToHex(headerId(b.header));

/**
 * The insecure test proofs, each verification taking a few milliseconds (so that blocks submitted
 * together overlap); leader proofs listed in `bad` fail. Counts the leader proofs being verified.
 */
function slowProofs(bad = new Set<string>()) {
  const stats = { polStarted: 0, polPending: 0, maxPolPending: 0 };
  const slow = async <T>(f: () => Promise<T>): Promise<T> => {
    await sleep(3);
    return f();
  };
  const proofs: ProofSystem = {
    ...INSECURE_TEST_PROOFS,
    verifyZkSign: (st, sig) => slow(() => INSECURE_TEST_PROOFS.verifyZkSign(st, sig)),
    verifyPoc: (i, p) => slow(() => INSECURE_TEST_PROOFS.verifyPoc(i, p)),
    verifyPol: async (i, p) => {
      stats.polStarted++;
      stats.polPending++;
      stats.maxPolPending = Math.max(stats.maxPolPending, stats.polPending);
      try {
        return await slow(
          async () => !bad.has(bytesToHex(p)) && (await INSECURE_TEST_PROOFS.verifyPol(i, p)),
        );
      } finally {
        stats.polPending--;
      }
    },
  };
  return { proofs, stats };
}

/** `n` consecutive blocks from genesis, each with one transfer (a ZK signature) but the first. */
function blocks(n: number): Block[] {
  const t = new TestChain();
  let fund: Owned = genesisNotes(t.genesis)[0]!;
  const out: Block[] = [];
  for (let i = 1; i <= n; i++) {
    const txs = [];
    if (i > 1) {
      const { tx, outputs } = transfer(t.state, [fund], [{ value: 1n, pk: KEYS[1]!.publicKey }]);
      txs.push(tx);
      fund = outputs[outputs.length - 1]!;
    }
    out.push(t.block(txs, BigInt(i)));
    t.apply(txs, BigInt(i));
  }
  return out;
}

/** What a chain shows of its blocks: tip, stored canonical chain, stored blocks and their events. */
function observed(s: TestService, all: Block[]) {
  const tip = s.chain.tip();
  return {
    tip: [bytesToHex(tip.id), tip.height],
    canonical: s.chain.canonicalBySlot(0n, 1000n).map((c) => [c.slot, bytesToHex(c.id)]),
    stored: all.map((b) => s.chain.blockBytes(headerId(b.header)) !== undefined),
    events: all.map((b) => s.chain.eventsJson(headerId(b.header))),
    meta: { tip: bytesToHex(s.store.chain.meta().tip!), lib: bytesToHex(s.store.chain.meta().lib!) },
  };
}

function recordEvents(chain: ChainService): string[] {
  const seen: string[] = [];
  chain.on('block', (p) => seen.push(`${bytesToHex(p.id)}@${p.height} tip=${bytesToHex(p.tip.id)}`));
  return seen;
}

test('a burst of blocks ends with the same tip, events and storage as one-by-one submission, its proofs verified together', async () => {
  const chainBlocks = blocks(20);
  const one = slowProofs();
  const serial = await chainService({ proofs: one.proofs });
  const burst = slowProofs();
  const piped = await chainService({ proofs: burst.proofs });
  try {
    const serialEvents = recordEvents(serial.chain);
    for (const b of chainBlocks) await serial.chain.submit(b);
    assert.equal(one.stats.maxPolPending, 1, 'one by one, a single leader proof at a time');

    const pipedEvents = recordEvents(piped.chain);
    const results = await Promise.all(chainBlocks.map((b) => piped.chain.submit(b)));
    assert.deepEqual(
      results.map((r) => [bytesToHex(r.id), r.height]),
      chainBlocks.map((b, i) => [hex(b), i + 1]),
    );
    assert.ok(burst.stats.maxPolPending > 1, 'the leader proofs of several blocks were verified together');
    assert.deepEqual(pipedEvents, serialEvents);
    assert.equal(serialEvents.length, 20);
    assert.deepEqual(observed(piped, chainBlocks), observed(serial, chainBlocks));
    assert.equal(piped.chain.tip().height, 20);
  } finally {
    serial.close();
    piped.close();
  }
});

test('block 2 of 5 with a bad proof: 2 rejected for it, 3-5 for their rejected parent, 1 and a sibling fork block stored', async () => {
  const [b1, b2, b3, b4, b5] = blocks(5) as [Block, Block, Block, Block, Block];
  // A sibling of b2 on b1 (another slot, so another block).
  const fork = new TestChain();
  fork.apply([], 1n);
  const sibling = fork.block([], 7n);
  const { proofs } = slowProofs(new Set([bytesToHex(b2.header.proof_of_leadership.proof)]));
  const s = await chainService({ proofs });
  try {
    const events = recordEvents(s.chain);
    const results = await Promise.allSettled([b1, b2, b3, b4, b5, sibling].map((b) => s.chain.submit(b)));
    const [r1, r2, r3, r4, r5, rs] = results;
    assert.equal(r1!.status, 'fulfilled');
    assert.equal(rs!.status, 'fulfilled', 'the sibling fork block is not affected');
    const reason = (r: PromiseSettledResult<unknown> | undefined) => {
      assert.equal(r?.status, 'rejected');
      assert.ok(r.reason instanceof BlockRejected);
      return r.reason;
    };
    const e2 = reason(r2);
    assert.equal(e2.code, 'BLOCK_LEDGER');
    assert.equal(e2.action, 'reject');
    assert.match(e2.message, /proof of leadership does not verify/);
    for (const [r, child, parent] of [
      [r3, b3, b2],
      [r4, b4, b3],
      [r5, b5, b4],
    ] as const) {
      const e = reason(r);
      assert.equal(e.code, 'BLOCK_PARENT_REJECTED');
      assert.equal(e.action, 'ignore', 'a descendant is not blamed as invalid itself');
      assert.equal(e.meta.parent, hex(parent));
      assert.equal(e.meta.block, hex(child));
      assert.ok(
        e.message.includes(`the parent 0x${hex(parent)} of block 0x${hex(child)} was rejected`),
        e.message,
      );
      assert.equal(e.meta.invalidBlock, hex(b2));
      assert.match(String(e.meta.invalidReason), /proof of leadership does not verify/);
      if (parent === b2) assert.match(e.message, /proof of leadership does not verify/);
      else assert.ok(e.message.endsWith(`it descends from the invalid block 0x${hex(b2)}`), e.message);
    }
    assert.deepEqual(
      events.map((e) => e.split('@')[0]),
      [hex(b1), hex(sibling)],
    );
    for (const b of [b2, b3, b4, b5]) {
      assert.equal(s.chain.has(headerId(b.header)), false);
      assert.equal(s.chain.blockBytes(headerId(b.header)), undefined, 'an invalid chain is never stored');
    }
    assert.ok(s.chain.blockBytes(headerId(b1.header)));
    assert.ok(s.chain.blockBytes(headerId(sibling.header)));
    assert.equal(bytesToHex(s.chain.tip().id), hex(sibling));
    // The chain goes on: a valid block on b1 again.
    const again = new TestChain();
    again.apply([], 1n);
    await s.chain.submit(again.block([], 9n, 8n));
    assert.equal(s.chain.tip().height, 2);
  } finally {
    s.close();
  }
});

test('a block submitted twice in a burst is applied once; the second gets BLOCK_ALREADY_APPLIED', async () => {
  const [b1, b2] = blocks(2) as [Block, Block];
  const { proofs } = slowProofs();
  const s = await chainService({ proofs });
  try {
    const results = await Promise.allSettled([b1, b1, b2].map((b) => s.chain.submit(b)));
    assert.equal(results[0]!.status, 'fulfilled');
    assert.equal(results[1]!.status, 'rejected');
    assert.equal((results[1] as PromiseRejectedResult).reason.code, 'BLOCK_ALREADY_APPLIED');
    assert.equal(results[2]!.status, 'fulfilled');
    assert.equal(s.chain.tip().height, 2);
  } finally {
    s.close();
  }
});

test('at most MAX_IN_FLIGHT blocks are prepared ahead of their finish', async () => {
  const MAX = ChainService.MAX_IN_FLIGHT;
  const n = MAX * 2 + 3;
  const chainBlocks = blocks(n);
  // Leader proofs wait until released: nothing finishes meanwhile. Each proof records how many blocks
  // had finished (the tip height) when its block was prepared.
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const finishedAtStart: number[] = [];
  let s!: TestService;
  const proofs: ProofSystem = {
    ...INSECURE_TEST_PROOFS,
    verifyPol: async (i, p) => {
      finishedAtStart.push(s.chain.tip().height);
      await gate;
      return INSECURE_TEST_PROOFS.verifyPol(i, p);
    },
  };
  s = await chainService({ proofs });
  try {
    const all = Promise.all(chainBlocks.map((b) => s.chain.submit(b)));
    await waitUntil(() => finishedAtStart.length >= MAX, 10_000, `${MAX} blocks prepared`);
    assert.equal(s.chain.tip().height, 0);
    release();
    await all;
    assert.equal(finishedAtStart.length, n);
    assert.equal(s.chain.tip().height, n);
    // The k-th block (from 1) is prepared only once fewer than MAX blocks wait for their finish: at
    // least k - MAX have finished. The first MAX go ahead while nothing has.
    const bound = finishedAtStart.map((_, i) => Math.max(0, i + 1 - MAX));
    assert.deepEqual(
      finishedAtStart.map((f, i) => Math.min(f, bound[i]!)),
      bound,
      'a block beyond the bound was prepared before the blocks ahead of it finished',
    );
    assert.deepEqual(finishedAtStart.slice(0, MAX), new Array(MAX).fill(0));
  } finally {
    s.close();
  }
});

test('after a burst with a bad block, a restart on the same store finds exactly the blocks before it', async () => {
  const all = blocks(10);
  const bad = all[6]!;
  const { proofs } = slowProofs(new Set([bytesToHex(bad.header.proof_of_leadership.proof)]));
  const s = await chainService({ proofs });
  try {
    await Promise.allSettled(all.map((b) => s.chain.submit(b)));
    await s.chain.close();
    const again = await ChainService.init(
      { deployment: DEVNET, genesisTimeMs: GENESIS_MS, online: false },
      {
        store: s.store.chain,
        proofs,
        clock: new SlotClock(GENESIS_MS, DEVNET.slot_duration_ms, () => GENESIS_MS + 10 ** 9),
        logger: pino({ level: 'silent' }),
      },
    );
    assert.equal(again.tip().height, 6);
    assert.equal(bytesToHex(again.tip().id), hex(all[5]!));
    for (const b of all.slice(6)) assert.equal(again.has(headerId(b.header)), false);
    // Submitted again, the bad block is refused again, and the blocks after it with it.
    const results = await Promise.allSettled(all.slice(6).map((b) => again.submit(b)));
    assert.deepEqual(
      results.map((r) => (r.status === 'rejected' ? (r.reason as BlockRejected).code : 'applied')),
      ['BLOCK_LEDGER', 'BLOCK_PARENT_REJECTED', 'BLOCK_PARENT_REJECTED', 'BLOCK_PARENT_REJECTED'],
    );
    assert.equal(again.tip().height, 6, 'the bad block is still refused');
  } finally {
    s.close();
  }
});
