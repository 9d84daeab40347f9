import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  ChainStore,
  type ChainUpdate,
  type CommitBlock,
  type StoredBlockInfo,
} from '../../../src/storage/chain-store.ts';
import { StorageError } from '../../../src/storage/errors.ts';
import { type KvStore, LmdbKv, MemoryKv } from '../../../src/storage/kv.ts';
import { openStore } from '../../../src/storage/open.ts';
import { checkInvariants, dump, hex, sha256, tempDir } from '../../utils/storage.ts';

const enc = new TextEncoder();
const ZERO = new Uint8Array(32);
const txHash = (label: string) => sha256('tx', label);

function mkBlock(
  parent: StoredBlockInfo | undefined,
  slot: bigint,
  txLabels: string[],
  tag = '',
): CommitBlock {
  const height = parent ? parent.height + 1n : 0n;
  const id = sha256('block', parent?.id ?? ZERO, String(slot), tag);
  return {
    info: { id, parent: parent?.id ?? ZERO, slot, height },
    block: enc.encode(`block ${hex(id)} ${'x'.repeat(Number(slot % 50n))}`),
    events: enc.encode(`events of ${hex(id)}`),
    txHashes: txLabels.map(txHash),
  };
}

const canon = (b: CommitBlock) => ({ height: b.info.height, id: b.info.id, slot: b.info.slot });
const revert = (b: CommitBlock) => ({ id: b.info.id, slot: b.info.slot, txHashes: b.txHashes });
const extend = (b: CommitBlock, meta: ChainUpdate['meta'] = {}): ChainUpdate => ({
  blocks: [b],
  canonical: [canon(b)],
  meta: { tip: b.info.id, ...meta },
});

async function rejects(chain: ChainStore, kv: KvStore, update: ChainUpdate, match: RegExp): Promise<void> {
  const before = dump(kv);
  await assert.rejects(chain.commit(update), (e) => {
    assert.ok(e instanceof StorageError, String(e));
    assert.equal(e.code, 'STORAGE_INCONSISTENT_UPDATE');
    assert.match(e.message, match);
    return true;
  });
  assert.deepEqual(dump(kv), before, 'a rejected update writes nothing');
}

/** Builds a main chain b0..b10 (slot 2h, txs b{h}-{i}) and returns it. */
async function buildMain(chain: ChainStore, kv: KvStore): Promise<CommitBlock[]> {
  const main: CommitBlock[] = [];
  for (let h = 0; h <= 10; h++) {
    const txs = h === 0 ? [] : [`b${h}-0`, `b${h}-1`, `b${h}-2`];
    const b = mkBlock(main[h - 1]?.info, BigInt(h * 2), txs);
    main.push(b);
    await chain.commit(
      extend(b, h === 0 ? { state: 'Bootstrapping', genesisTimeMs: 1_700_000_000_000n } : {}),
    );
    const s = checkInvariants(kv, chain);
    assert.equal(s.top, BigInt(h));
  }
  return main;
}

const kvImpls: { name: string; make(t: { after(fn: () => void): void }): KvStore }[] = [
  { name: 'MemoryKv', make: () => new MemoryKv() },
  {
    name: 'lmdb',
    make: (t) => {
      const kv = LmdbKv.open(`${tempDir(t)}/chain.mdb`);
      t.after(() => kv.close());
      return kv;
    },
  },
];

for (const impl of kvImpls) {
  describe(`ChainStore on ${impl.name}`, () => {
    test('a growing chain: blocks, canonical indices, tx index, meta', async (t) => {
      const kv = impl.make(t);
      const chain = new ChainStore(kv);
      assert.equal(chain.tipHeight(), undefined);
      assert.deepEqual(chain.meta(), {});
      checkInvariants(kv, chain);
      const main = await buildMain(chain, kv);
      const b5 = main[5]!;

      assert.deepEqual(chain.block(b5.info.id), b5.block);
      assert.deepEqual(chain.events(b5.info.id), b5.events);
      assert.deepEqual(chain.info(b5.info.id), b5.info);
      assert.deepEqual(chain.blockTxHashes(b5.info.id), b5.txHashes);
      assert.deepEqual(chain.canonicalAt(5n), b5.info.id);
      assert.equal(chain.canonicalAt(11n), undefined);
      assert.equal(chain.canonicalAt(-1n), undefined);
      assert.equal(chain.block(sha256('nope')), undefined);
      assert.deepEqual(chain.txLocation(txHash('b5-2')), { block: b5.info.id, position: 2 });
      assert.equal(chain.txLocation(txHash('b11-0')), undefined);

      // Slot and height ranges are inclusive at both ends.
      const slots = (it: Iterable<{ slot: bigint; id: Uint8Array }>) => [...it].map((e) => e.slot);
      assert.deepEqual(slots(chain.canonicalBySlot(3n, 9n)), [4n, 6n, 8n]);
      assert.deepEqual(slots(chain.canonicalBySlot(4n, 8n)), [4n, 6n, 8n]);
      assert.deepEqual(slots(chain.canonicalBySlot(4n, 8n, { reverse: true })), [8n, 6n, 4n]);
      assert.deepEqual(slots(chain.canonicalBySlot(0n, 100n, { reverse: true, limit: 2 })), [20n, 18n]);
      assert.deepEqual(slots(chain.canonicalBySlot(9n, 3n)), []);
      assert.deepEqual(slots(chain.canonicalBySlot(0n, 0xffff_ffff_ffff_ffffn)).length, 11);
      assert.deepEqual(
        [...chain.canonicalBySlot(6n, 6n)].map((e) => hex(e.id)),
        [hex(main[3]!.info.id)],
      );
      const heights = [...chain.canonicalRange(8n, 20n)];
      assert.deepEqual(
        heights.map((e) => [e.height, hex(e.id)]),
        [8, 9, 10].map((h) => [BigInt(h), hex(main[h]!.info.id)]),
      );
      assert.deepEqual(
        [...chain.canonicalRange(0n, 10n, { reverse: true, limit: 3 })].map((e) => e.height),
        [10n, 9n, 8n],
      );

      const meta = chain.meta();
      assert.deepEqual(meta.tip, main[10]!.info.id);
      assert.equal(meta.state, 'Bootstrapping');
      assert.equal(meta.genesisTimeMs, 1_700_000_000_000n);
      assert.equal(meta.lib, undefined);
      await chain.commit({
        blocks: [],
        canonical: [],
        meta: { lib: main[4]!.info.id, state: 'Online', lastOnlineMs: 1_700_000_123_456n },
      });
      assert.deepEqual(chain.meta(), {
        tip: main[10]!.info.id,
        lib: main[4]!.info.id,
        state: 'Online',
        lastOnlineMs: 1_700_000_123_456n,
        genesisTimeMs: 1_700_000_000_000n,
      });

      // An import batch: three blocks and their canonical entries in one commit.
      const batch = [mkBlock(main[10]!.info, 21n, ['b11-0'])];
      batch.push(mkBlock(batch[0]!.info, 22n, ['b12-0', 'b12-1']));
      batch.push(mkBlock(batch[1]!.info, 25n, []));
      await chain.commit({ blocks: batch, canonical: batch.map(canon), meta: { tip: batch[2]!.info.id } });
      const s = checkInvariants(kv, chain);
      assert.equal(s.top, 13n);
      assert.equal(s.blocks, 14);
      assert.equal(s.txs, 33);
      assert.deepEqual(chain.txLocation(txHash('b12-1')), { block: batch[1]!.info.id, position: 1 });
      assert.deepEqual(
        [...chain.allBlocks()].map((i) => i.height),
        Array.from({ length: 14 }, (_, i) => BigInt(i)),
      );
      assert.deepEqual(
        [...chain.allBlocks(12n)].map((i) => hex(i.id)),
        [hex(batch[1]!.info.id), hex(batch[2]!.info.id)],
      );
    });

    test('forks, reorgs both ways, and pruning', async (t) => {
      const kv = impl.make(t);
      const chain = new ChainStore(kv);
      const main = await buildMain(chain, kv);

      // A fork from b7, stored but not canonical. f8 shares the tx b8-0 with b8.
      const f8 = mkBlock(main[7]!.info, 15n, ['b8-0', 'f8-1'], 'fork');
      const f9 = mkBlock(f8.info, 17n, ['f9-0'], 'fork');
      await chain.commit({ blocks: [f8, f9], canonical: [], meta: {} });
      let s = checkInvariants(kv, chain);
      assert.equal(s.top, 10n);
      assert.equal(s.blocks, 13);
      assert.equal(chain.txLocation(txHash('f8-1')), undefined, 'txs of fork blocks are not indexed');
      assert.deepEqual(chain.info(f9.info.id), f9.info);

      // Reorg: the fork grows to height 12 and becomes canonical; b8..b10 leave.
      const f10 = mkBlock(f9.info, 19n, ['f10-0', 'b9-1'], 'fork');
      const f11 = mkBlock(f10.info, 23n, [], 'fork');
      const f12 = mkBlock(f11.info, 24n, ['f12-0'], 'fork');
      const fork = [f8, f9, f10, f11, f12];
      await chain.commit({
        blocks: [f10, f11, f12],
        canonical: fork.map(canon),
        reverted: [main[8]!, main[9]!, main[10]!].map(revert),
        meta: { tip: f12.info.id },
      });
      s = checkInvariants(kv, chain);
      assert.equal(s.top, 12n);
      assert.deepEqual(
        s.canonical.slice(8),
        fork.map((b) => hex(b.info.id)),
      );
      assert.deepEqual(chain.txLocation(txHash('b8-0')), { block: f8.info.id, position: 0 });
      assert.deepEqual(chain.txLocation(txHash('b9-1')), { block: f10.info.id, position: 1 });
      assert.equal(chain.txLocation(txHash('b8-1')), undefined);
      assert.equal(chain.txLocation(txHash('b10-0')), undefined);
      assert.deepEqual(chain.txLocation(txHash('f12-0')), { block: f12.info.id, position: 0 });
      assert.deepEqual(
        [...chain.canonicalBySlot(14n, 30n)].map((e) => e.slot),
        [14n, 15n, 17n, 19n, 23n, 24n],
      );
      assert.ok(chain.block(main[9]!.info.id), 'reverted blocks stay stored');

      // Reorg back to the (stored) shorter main branch: heights above 10 leave, without `reverted`.
      await chain.commit({
        blocks: [],
        canonical: [8, 9, 10].map((h) => canon(main[h]!)),
        removeCanonicalAbove: 10n,
        meta: { tip: main[10]!.info.id },
      });
      s = checkInvariants(kv, chain);
      assert.equal(s.top, 10n);
      assert.deepEqual(
        s.canonical,
        main.map((b) => hex(b.info.id)),
      );
      assert.deepEqual(chain.txLocation(txHash('b8-0')), { block: main[8]!.info.id, position: 0 });
      assert.deepEqual(chain.txLocation(txHash('b9-1')), { block: main[9]!.info.id, position: 1 });
      assert.equal(chain.txLocation(txHash('f12-0')), undefined);
      assert.equal(chain.canonicalAt(11n), undefined);
      assert.deepEqual(
        [...chain.canonicalBySlot(14n, 30n)].map((e) => e.slot),
        [14n, 16n, 18n, 20n],
      );

      // Pruning the fork.
      await chain.commit({
        blocks: [],
        canonical: [],
        meta: { lib: main[8]!.info.id },
        prune: fork.map((b) => b.info.id),
      });
      s = checkInvariants(kv, chain);
      assert.equal(s.blocks, 11);
      for (const b of fork) {
        assert.equal(chain.block(b.info.id), undefined);
        assert.equal(chain.info(b.info.id), undefined);
        assert.equal(chain.events(b.info.id), undefined);
        assert.equal(chain.blockTxHashes(b.info.id), undefined);
      }
      assert.equal([...chain.allBlocks()].length, 11);

      // A reorg that also shortens the chain in one commit: a branch from b5 of length 2.
      const g6 = mkBlock(main[5]!.info, 13n, ['g6-0', 'b7-2'], 'g');
      const g7 = mkBlock(g6.info, 30n, [], 'g');
      await chain.commit({
        blocks: [g6, g7],
        canonical: [canon(g6), canon(g7)],
        removeCanonicalAbove: 7n,
        reverted: [6, 7, 8, 9, 10].map((h) => revert(main[h]!)),
        meta: { tip: g7.info.id, lib: main[5]!.info.id },
      });
      s = checkInvariants(kv, chain);
      assert.equal(s.top, 7n);
      assert.deepEqual(chain.txLocation(txHash('b7-2')), { block: g6.info.id, position: 1 });
    });

    test('inconsistent updates are rejected and write nothing', async (t) => {
      const kv = impl.make(t);
      const chain = new ChainStore(kv);
      const main = await buildMain(chain, kv);
      const tip = main[10]!;
      const next = mkBlock(tip.info, 30n, ['n-0']);

      await rejects(
        chain,
        kv,
        { blocks: [next], canonical: [{ ...canon(next), height: 12n }], meta: {} },
        /gap/,
      );
      await rejects(chain, kv, { ...extend(next), meta: {} }, /tip must be/);
      await rejects(chain, kv, { ...extend(next), meta: { tip: main[9]!.info.id } }, /tip must be/);
      await rejects(
        chain,
        kv,
        { blocks: [], canonical: [canon(next)], meta: { tip: next.info.id } },
        /not stored/,
      );
      const orphan = mkBlock(main[8]!.info, 31n, []);
      await rejects(
        chain,
        kv,
        { blocks: [orphan], canonical: [{ ...canon(orphan), height: 11n }], meta: { tip: orphan.info.id } },
        /has height 9, listed at 11/,
      );
      const wrongParent: CommitBlock = { ...next, info: { ...next.info, parent: main[9]!.info.id } };
      await rejects(chain, kv, extend(wrongParent), /not a child/);
      const sameSlot = mkBlock(tip.info, tip.info.slot, []);
      await rejects(chain, kv, extend(sameSlot), /not above its parent/);
      await rejects(
        chain,
        kv,
        { ...extend(next), canonical: [{ ...canon(next), slot: 99n }] },
        /listed with slot/,
      );
      await rejects(chain, kv, { ...extend(next), prune: [main[3]!.info.id] }, /cannot be pruned/);
      await rejects(chain, kv, { ...extend(next), meta: { tip: next.info.id, lib: sha256('x') } }, /lib/);
      await rejects(chain, kv, { blocks: [next, next], canonical: [], meta: {} }, /twice/);
      // A reorg whose `reverted` list does not match the blocks that leave.
      const f10 = mkBlock(main[9]!.info, 19n, [], 'f');
      await rejects(
        chain,
        kv,
        { blocks: [f10], canonical: [canon(f10)], reverted: [], meta: { tip: f10.info.id } },
        /differ from the canonical blocks that leave/,
      );
      // Overwriting a middle height without the heights above.
      await rejects(
        chain,
        kv,
        { blocks: [f10], canonical: [{ ...canon(f10), height: 10n }], meta: { tip: tip.info.id } },
        /not a child|tip must be/,
      );
      // After all that, a correct update still commits.
      await chain.commit(extend(next));
      assert.equal(checkInvariants(kv, chain).top, 11n);
    });

    test('concurrent commits are applied in order', async (t) => {
      const kv = impl.make(t);
      const chain = new ChainStore(kv);
      const blocks: CommitBlock[] = [];
      for (let h = 0; h < 30; h++) blocks.push(mkBlock(blocks[h - 1]?.info, BigInt(h), [`c${h}`]));
      // Issued without awaiting: each is validated against the state the previous one leaves.
      await Promise.all(blocks.map((b) => chain.commit(extend(b))));
      assert.equal(checkInvariants(kv, chain).top, 29n);
    });
  });
}

test('the chain store survives a reopen from disk', async (t) => {
  const dir = tempDir(t);
  let store = await openStore(dir);
  const main = await buildMain(store.chain, store.kv);
  const f8 = mkBlock(main[7]!.info, 15n, ['f8-0'], 'fork');
  await store.chain.commit({
    blocks: [f8],
    canonical: [],
    meta: { lib: main[6]!.info.id, lastOnlineMs: 42n },
  });
  const before = dump(store.kv);
  const summary = checkInvariants(store.kv, store.chain);
  await store.close();

  store = await openStore(dir);
  t.after(() => store.close());
  assert.deepEqual(dump(store.kv), before);
  assert.deepEqual(checkInvariants(store.kv, store.chain), summary);
  assert.deepEqual(store.chain.meta().lib, main[6]!.info.id);
  assert.equal(store.chain.meta().lastOnlineMs, 42n);
  assert.deepEqual(store.chain.block(f8.info.id), f8.block);
  assert.deepEqual(
    [...store.chain.allBlocks()].map((i) => hex(i.id)).sort(),
    [...main, f8].map((b) => hex(b.info.id)).sort(),
  );
  // And it keeps growing after the reopen.
  await store.chain.commit(extend(mkBlock(main[10]!.info, 40n, ['after'])));
  assert.equal(checkInvariants(store.kv, store.chain).top, 11n);
});

test('a store of another schema version is refused', async () => {
  const kv = new MemoryKv();
  await kv.transaction((tx) => tx.put(0, enc.encode('schema'), new Uint8Array([0, 0, 0, 0, 0, 0, 0, 9])));
  assert.throws(
    () => new ChainStore(kv),
    (e) =>
      e instanceof StorageError &&
      e.code === 'STORAGE_SCHEMA' &&
      /schema version 9, this node reads version \d+/.test(e.message) &&
      /Remove the data folder/.test(e.message),
  );
});

describe('a chain started at a checkpoint', () => {
  const genesis = mkBlock(undefined, 0n, []);
  // The checkpoint's block: height 500, its parent (height 499) never stored.
  const cp: CommitBlock = {
    ...mkBlock({ id: sha256('parent'), parent: ZERO, slot: 999n, height: 499n }, 1000n, ['cp-0']),
  };
  const state = enc.encode('the ledger state after the checkpoint');
  const update = (withGenesis: boolean): ChainUpdate => ({
    blocks: withGenesis ? [genesis, cp] : [cp],
    canonical: withGenesis ? [canon(genesis), canon(cp)] : [canon(cp)],
    meta: { tip: cp.info.id, lib: cp.info.id },
    checkpoint: true,
    snapshot: state,
  });

  test('on an empty store: genesis, the block above the gap and its snapshot in one commit', async () => {
    const kv = new MemoryKv();
    const chain = new ChainStore(kv);
    await chain.commit(update(true));
    assert.deepEqual(chain.canonicalAt(0n), genesis.info.id);
    assert.deepEqual(chain.canonicalAt(500n), cp.info.id);
    assert.equal(chain.canonicalAt(1n), undefined);
    assert.deepEqual(chain.latestSnapshot()?.bytes, state);
    assert.deepEqual(chain.latestSnapshot()?.info.id, cp.info.id);
    // The next block extends it as any block does.
    const next = mkBlock(cp.info, 1001n, []);
    await chain.commit(extend(next));
    assert.equal(chain.tipHeight(), 501n);
  });

  test('on a store of its genesis alone; refused on a longer chain, and a snapshot without a checkpoint', async () => {
    const kv = new MemoryKv();
    const chain = new ChainStore(kv);
    await chain.commit({
      blocks: [genesis],
      canonical: [canon(genesis)],
      meta: { tip: genesis.info.id, lib: genesis.info.id },
    });
    await chain.commit(update(false));
    assert.deepEqual(chain.latestSnapshot()?.info.id, cp.info.id);

    const longer = new MemoryKv();
    const other = new ChainStore(longer);
    await buildMain(other, longer);
    await rejects(
      other,
      longer,
      update(false),
      /a checkpoint starts a chain that holds its genesis block alone/,
    );
    const b = mkBlock(undefined, 0n, [], 'x');
    const emptyKv = new MemoryKv();
    await rejects(
      new ChainStore(emptyKv),
      emptyKv,
      { ...extend(b), snapshot: state },
      /a snapshot goes with a checkpoint only/,
    );
  });
});
