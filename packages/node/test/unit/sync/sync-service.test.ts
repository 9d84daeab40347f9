/**
 * Chain sync between in-process chains over the in-memory network: IBD of a few hundred blocks with
 * continuation past the batch size, the provider's start-block rules, serving in `Following` only, peers
 * sending garbage (penalized) or blocks the ledger refuses (not penalized, as F; the chain kept), and the tip poll picking the highest peer.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { encodeBlock } from '../../../src/block/block.ts';
import { headerId } from '../../../src/block/header.ts';
import type { ChainService } from '../../../src/chain/chain-service.ts';
import { bytesToHex } from '../../../src/codec/hex.ts';
import {
  decodeBlocksResponse,
  decodeTipResponse,
  encodeBlocksResponse,
  encodeRequest,
  MAX_SYNC_FRAME_BYTES,
} from '../../../src/network/wire/sync-messages.ts';
import { BlockProvider, NOT_ONLINE } from '../../../src/sync/provider.ts';
import { blockOn } from '../../mocks/chain-feed.ts';
import { FakeNetworkBus } from '../../mocks/network.ts';
import { chainService, type TestService } from '../chain/helpers.ts';
import { grow, PROTOCOL, syncConfig, syncService } from './helpers.ts';

const hex = bytesToHex;
const BLOCKS = 300;
let A: TestService;
let main: Uint8Array[];

before(async () => {
  A = await chainService();
  A.chain.setOnline(); // the LIB follows k = 10 (Bootstrapping keeps it at genesis here)
  main = await grow(A.chain, BLOCKS);
});
after(() => A.close());

const genesisId = () => A.chain.genesis.id;
const idsOf = (r: ReturnType<BlockProvider['findPath']>) => {
  assert.ok(Array.isArray(r), `a path, got ${JSON.stringify(r)}`);
  return r.map(hex);
};

/** The chain reads a block provider uses, bound to `c`. */
function pick(c: ChainService) {
  return {
    tip: () => c.tip(),
    lib: () => c.lib(),
    has: (id: Uint8Array) => c.has(id),
    blockRef: (id: Uint8Array) => c.blockRef(id),
    blockBytes: (id: Uint8Array) => c.blockBytes(id),
    canonicalBySlot: (from: bigint, to: bigint, limit?: number) => c.canonicalBySlot(from, to, limit),
  };
}

describe('block provider: start block and path', () => {
  test('the chain has an immutable part (k = 10)', () => {
    assert.equal(A.chain.lib().height, BLOCKS - 10);
  });

  test('known tip in the tree: the blocks after it up to the target', () => {
    const p = new BlockProvider(A.chain, 1000);
    const r = p.findPath(main[BLOCKS - 1]!, [main[BLOCKS - 4]!, genesisId()]);
    assert.deepEqual(idsOf(r), main.slice(BLOCKS - 3).map(hex));
  });

  test('known genesis only: from the first block, at most batch_size blocks (the oldest part)', () => {
    const p = new BlockProvider(A.chain, 50);
    const r = p.findPath(main[BLOCKS - 1]!, [genesisId()]);
    assert.deepEqual(idsOf(r), main.slice(0, 50).map(hex));
  });

  test('an immutable known block: the highest-slot one is the start', () => {
    const p = new BlockProvider(A.chain, 1000);
    const r = p.findPath(main[BLOCKS - 1]!, [main[99]!, main[149]!, new Uint8Array(32).fill(7)]);
    assert.deepEqual(idsOf(r), main.slice(150).map(hex), 'the path crosses from storage into the tree once');
  });

  test('an immutable target: a storage-only path', () => {
    const p = new BlockProvider(A.chain, 1000);
    assert.deepEqual(idsOf(p.findPath(main[20]!, [main[9]!])), main.slice(10, 21).map(hex));
  });

  test('a chain started at a checkpoint: a path across its gap is not served', () => {
    // The same chain without the blocks of heights 1..99, as a node started from block 100 holds it.
    const hidden = new Set(main.slice(0, 99).map(hex));
    const gapped = {
      ...pick(A.chain),
      blockRef: (id: Uint8Array) => (hidden.has(hex(id)) ? undefined : A.chain.blockRef(id)),
      canonicalBySlot: (from: bigint, to: bigint, limit?: number) =>
        A.chain
          .canonicalBySlot(from, to, (limit ?? 1000) + 99)
          .filter((b) => !hidden.has(hex(b.id)))
          .slice(0, limit),
    };
    const p = new BlockProvider(gapped, 1000);
    assert.deepEqual(p.findPath(main[BLOCKS - 1]!, [genesisId()]), { kind: 'StartBlockNotFound' });
    // From a block above the gap it serves as before.
    assert.deepEqual(idsOf(p.findPath(main[BLOCKS - 1]!, [main[149]!])), main.slice(150).map(hex));
  });

  test('nothing known: StartBlockNotFound; unknown target: BlockNotFound', () => {
    const p = new BlockProvider(A.chain, 1000);
    assert.deepEqual(
      p.findPath(main[BLOCKS - 1]!, [new Uint8Array(32).fill(1), new Uint8Array(32).fill(2)]),
      {
        kind: 'StartBlockNotFound',
      },
    );
    const unknown = new Uint8Array(32).fill(9);
    assert.deepEqual(p.findPath(unknown, [genesisId()]), { kind: 'BlockNotFound', id: unknown });
  });

  test('a fork: the deepest common ancestor with the target is the start', async () => {
    const base = main[BLOCKS - 3]!;
    const baseRef = A.chain.blockRef(base)!;
    const fork = await grow(A.chain, 1, { id: base, slot: baseRef.slot + 100n });
    const p = new BlockProvider(A.chain, 1000);
    // Known: the fork's tip (LCA = base) and an older tree block (LCA = itself, lower).
    const r = p.findPath(main[BLOCKS - 1]!, [fork[0]!, main[BLOCKS - 6]!]);
    assert.deepEqual(idsOf(r), main.slice(BLOCKS - 2).map(hex));
  });
});

describe('sync between two nodes', () => {
  test('IBD of 300 blocks from a peer, in batches of 64 (continuation requests)', async () => {
    const B = await chainService();
    const bus = new FakeNetworkBus();
    const [na, nb] = bus.mesh(2);
    const off = { tip_poll: { ...syncConfig().tip_poll, enabled: false } };
    const sa = syncService(A.chain, na!, syncConfig({ ...off, batch_size: 64 }));
    const sb = syncService(B.chain, nb!, syncConfig(off, { peers: [na!.peerId], round_delay: 5 }));
    try {
      const started = Date.now();
      assert.equal(await sb.initialBlockDownload(), true);
      assert.equal(hex(B.chain.tip().id), hex(A.chain.tip().id));
      assert.equal(B.chain.tip().height, A.chain.tip().height);
      assert.deepEqual(bus.penalties(), []);
      assert.ok(Date.now() - started < 30_000);
    } finally {
      sa.close();
      sb.close();
      bus.close();
      B.close();
    }
  });

  test('IBD by discovering connected peers: when none answers it starts again until one does', async () => {
    const B = await chainService();
    const bus = new FakeNetworkBus();
    const [na, nb] = bus.mesh(2);
    const phaseA: { phase: 'Following' | 'InitialBlockDownload' } = { phase: 'InitialBlockDownload' };
    const sa = syncService(A.chain, na!, syncConfig(), phaseA);
    const fast = { tips_fetch_min_delay: 1, tips_fetch_max_delay: 2, round_delay: 1 };
    const sb = syncService(
      B.chain,
      nb!,
      syncConfig({}, { discover_connected_peers: true, ...fast }),
      { phase: 'Following' },
      new AbortController().signal,
      { ibdRetryMs: { min: 20, max: 40 }, progressEveryMs: 10 },
    );
    try {
      // A is not Following: it refuses tips, so no peer gives one; B waits and tries again (F stops).
      let settled = false;
      const ibd = sb.initialBlockDownload().finally(() => {
        settled = true;
      });
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(settled, false, 'IBD is still trying');
      assert.equal(B.chain.tip().height, 0);
      assert.equal(sb.ibdProgress()?.targetHeight, 0);
      phaseA.phase = 'Following';
      assert.equal(await ibd, true);
      assert.equal(hex(B.chain.tip().id), hex(A.chain.tip().id));
      assert.equal(sb.ibdBlocksApplied, A.chain.tip().height);
      assert.equal(sb.ibdProgress(), null);
    } finally {
      sa.close();
      sb.close();
      bus.close();
      B.close();
    }
  });

  test('IBD is skipped with no peers and discovery off', async () => {
    const B = await chainService();
    const bus = new FakeNetworkBus();
    const sb = syncService(B.chain, bus.node(), syncConfig());
    try {
      assert.equal(await sb.initialBlockDownload(), false);
    } finally {
      sb.close();
      bus.close();
      B.close();
    }
  });

  test('served in Following only', async () => {
    const bus = new FakeNetworkBus();
    const [na, nb] = bus.mesh(2);
    const phase: { phase: 'Following' | 'InitialBlockDownload' } = { phase: 'InitialBlockDownload' };
    const sa = syncService(A.chain, na!, syncConfig(), phase);
    const opts = { maxFrameBytes: MAX_SYNC_FRAME_BYTES, frameTimeoutMs: 2000 };
    const ask = async (req: Uint8Array) => {
      const out: Uint8Array[] = [];
      for await (const f of nb!.request(na!.peerId, PROTOCOL, req, opts)) out.push(f);
      return out;
    };
    const blocksReq = encodeRequest({
      kind: 'DownloadBlocksRequest',
      target_block: main[5]!,
      known_blocks: { local_tip: genesisId(), latest_immutable_block: genesisId(), additional_blocks: [] },
    });
    try {
      let tip = await ask(encodeRequest({ kind: 'GetTip' }));
      assert.deepEqual(tip.map(decodeTipResponse), [{ kind: 'Failure', reason: NOT_ONLINE }]);
      let blocks = await ask(blocksReq);
      assert.deepEqual(
        blocks.map((f) => decodeBlocksResponse(f)),
        [{ kind: 'Failure', reason: { kind: 'Unknown', text: NOT_ONLINE } }],
      );
      phase.phase = 'Following';
      tip = await ask(encodeRequest({ kind: 'GetTip' }));
      const t = A.chain.tip();
      assert.deepEqual(tip.map(decodeTipResponse), [
        { kind: 'Tip', tip: t.id, slot: t.slot, height: BigInt(t.height) },
      ]);
      blocks = await ask(blocksReq);
      assert.equal(blocks.length, 7, 'six blocks, then NoMoreBlocks');
      assert.deepEqual(decodeBlocksResponse(blocks[6]!), { kind: 'NoMoreBlocks' });
      assert.deepEqual(decodeBlocksResponse(blocks[0]!), {
        kind: 'Block',
        bytes: A.chain.blockBytes(main[0]!),
      });
      // Garbage and over-cap requests get no answer; the sender is penalized.
      assert.deepEqual(await ask(new Uint8Array([5, 0, 0, 0])), []);
      assert.equal(na!.penalties.length, 1);
      assert.equal(na!.penalties[0]!.peer, nb!.peerId);
    } finally {
      sa.close();
      bus.close();
    }
  });

  // F `bootstrap/ibd.rs` block_apply_error_triggers_cancel, `sync/orphan_handler.rs`: a block that fails
  // to apply is logged and its download cancelled; the peer is kept.
  test('a peer sending garbage is penalized; one serving blocks the ledger refuses is not, and the chain is kept', async () => {
    const B = await chainService();
    const bus = new FakeNetworkBus();
    const nb = bus.node();
    const garbage = bus.node('garbage-peer');
    const liar = bus.node('invalid-block-peer');
    bus.connect(nb, garbage);
    garbage.handle(
      PROTOCOL,
      async function* () {
        yield new Uint8Array([0, 0, 0, 0, 255, 255, 255, 255, 255, 255, 255, 255]);
      },
      { maxRequestBytes: 1 << 20, maxInbound: 10 },
    );
    // Blocks on B's genesis with a broken signature: decodable, refused by the ledger.
    const bads = [1n, 2n, 3n].map((slot) => {
      const b = blockOn(B.chain, genesisId(), slot, []);
      b.signature = new Uint8Array(64).fill(3);
      return b;
    });
    let serving = 0;
    liar.handle(
      PROTOCOL,
      async function* () {
        yield encodeBlocksResponse({ kind: 'Block', bytes: encodeBlock(bads[serving]!) });
        yield encodeBlocksResponse({ kind: 'NoMoreBlocks' });
      },
      { maxRequestBytes: 1 << 20, maxInbound: 10 },
    );
    const sb = syncService(B.chain, nb, syncConfig());
    try {
      assert.equal(sb.enqueue(new Uint8Array(32).fill(0xaa)), true);
      await sb.whenIdle();
      assert.deepEqual(
        nb.penalties.map((p) => [p.peer, p.offence]),
        [['garbage-peer', 'minor']],
      );
      bus.disconnect(nb, garbage);
      bus.connect(nb, liar);
      for (serving = 0; serving < bads.length; serving++) {
        const target = headerId(bads[serving]!.header);
        assert.equal(sb.enqueue(target), true);
        await sb.whenIdle();
        assert.equal(sb.isRejected(target), true);
        assert.equal(sb.enqueue(target), false, 'a rejected block is not queued again');
      }
      assert.deepEqual(
        nb.penalties.map((p) => [p.peer, p.offence]),
        [['garbage-peer', 'minor']],
        'a block the ledger refuses is no offence of the peer that served it',
      );
      assert.equal(B.chain.tip().height, 0, 'the chain is unchanged');
    } finally {
      sb.close();
      bus.close();
      B.close();
    }
  });

  test('a download races the peers: a garbage peer and a refusing peer lose to a good one', async () => {
    const B = await chainService();
    const bus = new FakeNetworkBus();
    const nb = bus.node();
    const na = bus.node('good-peer');
    const garbage = bus.node('garbage-peer');
    const refusing = bus.node('refusing-peer');
    for (const p of [garbage, na, refusing]) bus.connect(nb, p);
    const opts = { maxRequestBytes: 1 << 20, maxInbound: 10 };
    garbage.handle(
      PROTOCOL,
      async function* () {
        yield new Uint8Array([9, 9, 9, 9]);
      },
      opts,
    );
    refusing.handle(
      PROTOCOL,
      async function* () {
        yield encodeBlocksResponse({ kind: 'Failure', reason: { kind: 'StartBlockNotFound' } });
      },
      opts,
    );
    const sa = syncService(A.chain, na, syncConfig());
    const sb = syncService(B.chain, nb, syncConfig({ batch_size: 1000 }));
    try {
      const target = main[30]!;
      assert.equal(sb.enqueue(target), true);
      await sb.whenIdle();
      assert.equal(hex(B.chain.tip().id), hex(target));
      assert.deepEqual(
        nb.penalties.map((p) => p.peer),
        ['garbage-peer'],
        'only the garbage peer is penalized; a refusal is not an offence',
      );
    } finally {
      sa.close();
      sb.close();
      bus.close();
      B.close();
    }
  });

  test('an orphan downloads its missing chain from a peer; the tip poll picks the highest peer', async () => {
    const B = await chainService();
    const C = await chainService();
    const bus = new FakeNetworkBus();
    const [na, nb, nc] = bus.mesh(3);
    await grow(C.chain, 20);
    const sa = syncService(A.chain, na!, syncConfig());
    const sc = syncService(C.chain, nc!, syncConfig());
    const sb = syncService(B.chain, nb!, syncConfig());
    try {
      // Gossip hands B the tip of A (its parent is unknown to B): B fetches the chain.
      const tip = A.chain.tip();
      const parent = A.chain.blockRef(tip.id)!.parent;
      assert.equal(sb.enqueue(tip.id, parent), true);
      await sb.whenIdle();
      assert.equal(hex(B.chain.tip().id), hex(tip.id));
      // The tip poll of C (20 blocks, far behind the clock) finds A (and B) ahead and queues A's tip.
      const { TipPoll, tipPollParams } = await import('../../../src/sync/tip-poll.ts');
      const { SyncClient } = await import('../../../src/sync/client.ts');
      const client = new SyncClient(
        nc!,
        { protocol: PROTOCOL, frameTimeoutMs: 2000, maxConnectedPeers: 16, maxDiscoveredPeers: 16 },
        (await import('./helpers.ts')).logger,
      );
      const ac = new AbortController();
      const queued: string[] = [];
      const poll = TipPoll.start(tipPollParams({ num: 1n, den: 30n }, 3, 5), {
        chain: C.chain,
        clock: { currentSlot: () => 0n, msUntil: () => 1e9 } as never,
        sampleTips: (max, signal) => client.sampleTips(max, signal),
        sink: {
          enqueue: (id) => {
            queued.push(hex(id));
            return sc.enqueue(id);
          },
          markRejected: () => {},
          isRejected: () => false,
        },
        logger: (await import('./helpers.ts')).logger,
        signal: ac.signal,
      });
      assert.equal(await poll.check(31n), undefined, 'not a cadence slot');
      assert.equal(await poll.check(90n), undefined, 'lag of 70 slots is within 3 × 30');
      const got = await poll.check(300_000n);
      assert.equal(got && hex(got.tip), hex(tip.id));
      assert.deepEqual(queued, [hex(tip.id)]);
      await sc.whenIdle();
      assert.equal(hex(C.chain.tip().id), hex(tip.id), 'C switched to the longer chain');
      poll.close();
      ac.abort();
    } finally {
      sa.close();
      sb.close();
      sc.close();
      bus.close();
      B.close();
      C.close();
    }
  });
});
