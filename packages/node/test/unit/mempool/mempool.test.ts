/**
 * The mempool service on a test chain (insecure proofs, an in-memory store): admission (duplicates,
 * size, bounds, preverification and proofs, nothing added on failure), the FIFO view on the tip with
 * dependent transactions, block candidates and eviction, removal on inclusion, re-insertion after a
 * reorg, the TTL on removal, persistence (reload in FIFO order with ages; removed stays removed), and
 * the recently included transactions that proposal references still resolve to.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { pino } from 'pino';
import { bytesToHex } from '../../../src/codec/hex.ts';
import { selectTransactions } from '../../../src/leader/block-builder.ts';
import { LedgerError } from '../../../src/ledger/errors.ts';
import { PROOFS_ALREADY_VERIFIED } from '../../../src/ledger/proof-system.ts';
import { MAX_INSCRIPTION_BYTES } from '../../../src/mantle/ops.ts';
import { type SignedMantleTx, txHash } from '../../../src/mantle/tx.ts';
import {
  Mempool,
  type MempoolConfig,
  MempoolError,
  PREFIX_BYTES,
  type TxOrigin,
} from '../../../src/mempool/index.ts';
import { UNAPPLIED_TTL_MS } from '../../../src/mempool/mempool.ts';
import { INCLUDED_KEPT_MS, RecentlyIncluded } from '../../../src/mempool/recently-included.ts';
import { MemoryKv } from '../../../src/storage/kv.ts';
import { MempoolStore } from '../../../src/storage/mempool-store.ts';
import { INSECURE_TEST_PROOFS } from '../../../src/zk/insecure-test-proofs.ts';
import { FakeChain } from '../../mocks/chain.ts';
import { genesisNotes, KEYS, transfer } from '../../mocks/ledger.ts';
import { waitUntil } from '../../utils/api-node.ts';
import { inscriptionsTx } from './inscriptions.ts';

const CONFIG: MempoolConfig = {
  maxPendingTxs: 1000,
  maxPendingBytes: 64 * 1024 * 1024,
  maxUnappliedTxs: 100,
  txTtlMs: 60_000,
};
const quiet = pino({ level: 'silent' });

async function setup(config: MempoolConfig = CONFIG, kv = new MemoryKv(), chain = new FakeChain()) {
  const clock = { now: 1_000_000 };
  const store = new MempoolStore(kv);
  const m = await Mempool.init(config, {
    chain,
    proofs: INSECURE_TEST_PROOFS,
    store,
    logger: quiet,
    now: () => clock.now,
  });
  const pk = KEYS[1]!.publicKey;
  const notes = genesisNotes(chain.genesis);
  return { m, chain, kv, clock, pk, notes, store };
}

const hex = (tx: SignedMantleTx) => bytesToHex(txHash(tx.mantle_tx));
const hexes = (hs: Uint8Array[]) => hs.map(bytesToHex);

describe('Mempool', () => {
  test('add: a valid transaction is pending, stored and announced; a second submission is a duplicate', async () => {
    const { m, chain, pk, notes, store } = await setup();
    const tx = transfer(chain.tip().state, [notes[0]!], [{ value: 5n, pk }]).tx;
    const added: TxOrigin[] = [];
    const again: TxOrigin[] = [];
    m.on('added', (e) => added.push(e.origin));
    m.on('resubmitted', (e) => again.push(e.origin));
    assert.equal((await m.add(tx, 'api')).outcome, 'added');
    assert.equal(m.has(txHash(tx.mantle_tx)), true);
    assert.deepEqual(m.metrics(), { pending_items: 1, last_item_timestamp: 1_000_000 });
    assert.equal(store.load().txs.length, 1);
    assert.equal((await m.add(tx, 'api')).outcome, 'duplicate');
    assert.equal((await m.add(tx, 'network')).outcome, 'duplicate');
    assert.deepEqual(added, ['api']);
    assert.deepEqual(again, ['api'], 'an added duplicate is shared again, a gossiped one is not');
    assert.equal(m.metrics().pending_items, 1);
  });

  test('add: a duplicate from every origin but gossip is shared again (F handle_add_message ExistingItem)', async () => {
    // F: every `MempoolMsg::Add` (API, wallet, reorg re-insertion, Blend exit) re-gossips a pending
    // transaction; the network stream (gossip) only traces it.
    const { m, chain, pk, notes } = await setup();
    const tx = transfer(chain.tip().state, [notes[0]!], [{ value: 5n, pk }]).tx;
    const again: TxOrigin[] = [];
    m.on('resubmitted', (e) => again.push(e.origin));
    await m.add(tx, 'network');
    for (const origin of ['api', 'wallet', 'reorg', 'blend', 'network'] as const)
      assert.equal((await m.add(tx, origin)).outcome, 'duplicate');
    assert.deepEqual(again, ['api', 'wallet', 'reorg', 'blend']);
  });

  test('add: concurrent submissions of one transaction add it once', async () => {
    const { m, chain, pk, notes } = await setup();
    const tx = transfer(chain.tip().state, [notes[0]!], [{ value: 5n, pk }]).tx;
    const out = await Promise.all([m.add(tx, 'api'), m.add(tx, 'wallet'), m.add(tx, 'network')]);
    assert.deepEqual(
      out.map((r) => r.outcome),
      ['added', 'duplicate', 'duplicate'],
    );
    assert.equal(m.metrics().pending_items, 1);
  });

  test('add: a transaction over 2 MiB is refused with the reference text; nothing changes', async () => {
    const { m, store } = await setup();
    const big = inscriptionsTx(MAX_INSCRIPTION_BYTES);
    await assert.rejects(m.add(big, 'api'), (e: unknown) => {
      assert.ok(e instanceof MempoolError);
      assert.equal(e.code, 'MEMPOOL_ITEM_TOO_LARGE');
      assert.match(e.message, /^Item is too large: \d+ bytes exceeds maximum 2097152 bytes$/);
      return true;
    });
    assert.equal(m.metrics().pending_items, 0);
    assert.equal(store.load().txs.length, 0);
  });

  test('add: a full pool refuses (MEMPOOL_FULL); nothing is stored', async () => {
    const { m, chain, pk, notes, store } = await setup({ ...CONFIG, maxPendingTxs: 1 });
    const s = chain.tip().state;
    await m.add(transfer(s, [notes[0]!], [{ value: 5n, pk }]).tx, 'api');
    await assert.rejects(m.add(transfer(s, [notes[1]!], [{ value: 5n, pk }]).tx, 'api'), {
      code: 'MEMPOOL_FULL',
    });
    assert.equal(m.metrics().pending_items, 1);
    assert.equal(store.load().txs.length, 1);
  });

  test('add: a forged ZK signature or Ed25519 signature fails preverification; nothing is added', async () => {
    const { m, chain, pk, notes, store } = await setup();
    const forged = transfer(chain.tip().state, [{ ...notes[0]!, sk: 12345n }], [{ value: 5n, pk }]).tx;
    await assert.rejects(m.add(forged, 'api'), (e: unknown) => {
      assert.ok(e instanceof LedgerError);
      assert.equal(e.ledgerCode, 'InvalidZkSignature');
      return true;
    });
    const small = inscriptionsTx(10);
    const sig = (small.ops_proofs[1] as { signature: Uint8Array }).signature.slice();
    sig[0]! ^= 1;
    const badSig: SignedMantleTx = {
      ...small,
      ops_proofs: [small.ops_proofs[0]!, { type: 'Ed25519Sig', signature: sig }],
    };
    await assert.rejects(m.add(badSig, 'api'), { ledgerCode: 'InvalidEd25519Signature' });
    assert.equal(m.metrics().pending_items, 0);
    assert.equal(m.metrics().last_item_timestamp, 0);
    assert.equal(store.load().txs.length, 0);
    // The hash does not cover the proofs: the same transaction pending does not let a forged copy through.
    await m.add(small, 'api');
    await assert.rejects(m.add(badSig, 'api'), { ledgerCode: 'InvalidEd25519Signature' });
    assert.equal((await m.add(small, 'api')).outcome, 'duplicate');
  });

  test('view: FIFO, only what applies on the tip; a dependent transaction joins once its parent is pending', async () => {
    const { m, chain, pk, notes } = await setup();
    const s = chain.tip().state;
    const parent = transfer(s, [notes[0]!], [{ value: 1_000_000n, pk }]);
    const child = transfer(s, [parent.outputs[0]!], [{ value: 1n, pk }]).tx;
    const other = transfer(s, [notes[1]!], [{ value: 2n, pk }]).tx;
    const conflicting = transfer(s, [notes[1]!], [{ value: 3n, pk }]).tx; // spends what `other` spends
    await m.add(child, 'api'); // its input does not exist yet: pending, not in the view
    assert.deepEqual(hexes(m.view()), []);
    await m.add(other, 'api');
    await m.add(conflicting, 'api');
    await m.add(parent.tx, 'api');
    // The child's ZkSig proof is verified once it applies on the view, then it joins (FIFO order).
    await waitUntil(() => m.view().length === 3, 2000, 'the child in the view');
    assert.deepEqual(hexes(m.view()), [hex(child), hex(other), hex(parent.tx)]);
    assert.equal(m.metrics().pending_items, 4, 'the conflicting one stays pending');
  });

  test('candidates and block building: FIFO rounds; the never-applicable are evicted', async () => {
    // `b` does not apply on the view when it arrives (its input is spent by `a`): it is pending but no
    // candidate (its proof is unchecked), and goes when the builder evicts what never applied.
    const { m, chain, pk, notes } = await setup();
    const s = chain.tip().state;
    const a = transfer(s, [notes[0]!], [{ value: 5n, pk }]).tx;
    const b = transfer(s, [notes[0]!], [{ value: 6n, pk }]).tx; // double spend of a's input
    const c = transfer(s, [notes[2]!], [{ value: 7n, pk }]).tx;
    for (const tx of [a, b, c]) await m.add(tx, 'api');
    const tip = chain.tip();
    const sel = selectTransactions(
      tip.state,
      { config: chain.config, proofs: PROOFS_ALREADY_VERIFIED },
      tip.slot + 1n,
      m.candidates(),
    );
    assert.deepEqual(sel.txs, [a, c]);
    assert.equal(sel.invalid.length, 0);
    assert.equal(m.metrics().pending_items, 3);
    m.evict([]);
    assert.equal(m.has(txHash(b.mantle_tx)), false);
    assert.equal(m.metrics().pending_items, 2);
  });

  test('chain: included transactions leave the pool; a side-branch block leaves them pending', async () => {
    const { m, chain, pk, notes, store } = await setup();
    const s = chain.tip().state;
    const a = transfer(s, [notes[0]!], [{ value: 5n, pk }]).tx;
    const b = transfer(s, [notes[1]!], [{ value: 6n, pk }]).tx;
    await m.add(a, 'api');
    await m.add(b, 'api');
    chain.extend([b], { makeTip: false }); // a fork that does not win
    assert.equal(m.metrics().pending_items, 2);
    chain.extend([a]);
    assert.deepEqual(hexes(m.view()), [hex(b)]);
    assert.equal(m.has(txHash(a.mantle_tx)), false);
    await waitUntil(() => store.load().txs.length === 1, 1000, 'the removal stored');
  });

  test('chain: a block of transactions the view applied moves the view onto it; a block with others does not', async () => {
    const lines: { msg: string }[] = [];
    const logger = pino({ level: 'debug' }, { write: (l: string) => void lines.push(JSON.parse(l)) });
    const chain = new FakeChain();
    const m = await Mempool.init(CONFIG, {
      chain,
      proofs: INSECURE_TEST_PROOFS,
      store: new MempoolStore(new MemoryKv()),
      logger,
    });
    const pk = KEYS[1]!.publicKey;
    const notes = genesisNotes(chain.genesis);
    const s = chain.tip().state;
    const a = transfer(s, [notes[0]!], [{ value: 5n, pk }]);
    const child = transfer(s, [a.outputs[1]!], [{ value: 1n, pk }]).tx;
    const b = transfer(s, [notes[1]!], [{ value: 6n, pk }]).tx;
    for (const tx of [a.tx, child, b]) await m.add(tx, 'api');
    const moved = () => lines.filter((l) => l.msg === 'mempool view moved to the new tip').length;
    chain.extend([a.tx]);
    assert.equal(moved(), 1, 'moved, not computed again');
    assert.deepEqual(hexes(m.view()), [hex(child), hex(b)]);
    // A block with a transaction the view never held: computed again on the next use.
    const c = transfer(chain.tip().state, [notes[2]!], [{ value: 7n, pk }]).tx;
    chain.extend([c]);
    assert.equal(moved(), 1);
    assert.deepEqual(hexes(m.view()), [hex(child), hex(b)]);
  });

  test('proposals: a transaction a canonical block included still resolves its reference for 10 minutes', async () => {
    const { m, chain, pk, notes, clock } = await setup();
    const s = chain.tip().state;
    const a = transfer(s, [notes[0]!], [{ value: 5n, pk }]).tx;
    const prefix = txHash(a.mantle_tx).subarray(0, PREFIX_BYTES);
    await m.add(a, 'api');
    assert.deepEqual(m.byPrefix(prefix).map(hex), [hex(a)], 'pending');
    // A block includes it: no longer pending, but a sibling block naming it still rebuilds.
    chain.extend([a]);
    assert.equal(m.has(txHash(a.mantle_tx)), false);
    assert.deepEqual(m.byPrefix(prefix).map(hex), [hex(a)], 'included a moment ago');
    // A block of someone else including a transaction this pool never held: kept as well.
    const b = transfer(s, [notes[1]!], [{ value: 6n, pk }]).tx;
    chain.extend([b]);
    assert.deepEqual(m.byPrefix(txHash(b.mantle_tx).subarray(0, PREFIX_BYTES)).map(hex), [hex(b)]);
    clock.now += INCLUDED_KEPT_MS;
    assert.deepEqual(m.byPrefix(prefix), [], 'gone after 10 minutes');
    assert.equal(m.metrics().pending_items, 0, 'never pending again');
  });

  test('proposals: the included transactions kept are bounded; the oldest go first', () => {
    const kept = new RecentlyIncluded(60_000, 2);
    const txs = [0, 1, 2].map((i) => ({ hash: Uint8Array.of(i, ...new Uint8Array(31)), tx: { i } as never }));
    for (const t of txs) kept.add(t.hash, t.tx, 1000);
    assert.equal(kept.size, 2);
    assert.deepEqual(
      kept.byHashPrefix(txs[0]!.hash.subarray(0, PREFIX_BYTES), 1000),
      [],
      'the oldest dropped',
    );
    assert.deepEqual(kept.byHashPrefix(txs[2]!.hash.subarray(0, PREFIX_BYTES), 1000), [txs[2]!.tx]);
    kept.remove(txs[2]!.hash);
    assert.deepEqual(kept.byHashPrefix(txs[2]!.hash.subarray(0, PREFIX_BYTES), 1000), [], 'pending again');
    assert.deepEqual(kept.byHashPrefix(txs[1]!.hash.subarray(0, PREFIX_BYTES), 61_000), [], 'expired');
    assert.equal(kept.size, 0);
  });

  test('chain: after a reorg the transactions of the abandoned blocks are pending again', async () => {
    const { m, chain, pk, notes } = await setup();
    const s = chain.tip().state;
    const genesis = chain.tip().id;
    const a = transfer(s, [notes[0]!], [{ value: 5n, pk }]).tx;
    const both = transfer(s, [notes[1]!], [{ value: 6n, pk }]).tx;
    await m.add(a, 'api');
    await m.add(both, 'api');
    chain.extend([a, both]);
    assert.equal(m.metrics().pending_items, 0);
    // A heavier fork from genesis includes `both` only.
    const f1 = chain.extend([both], { parent: genesis, makeTip: false });
    const f2 = chain.extend([], { parent: f1, makeTip: false });
    chain.switchTo(f2);
    await waitUntil(() => m.has(txHash(a.mantle_tx)), 2000, 'a re-added');
    assert.equal(m.has(txHash(both.mantle_tx)), false, 'still included on the new branch');
    assert.deepEqual(hexes(m.view()), [hex(a)]);
  });

  test("chain: after a reorg, a block built at once keeps what spends an abandoned block's outputs", async () => {
    const { m, chain, pk, notes } = await setup();
    const s = chain.tip().state;
    const genesis = chain.tip().id;
    const parent = transfer(s, [notes[0]!], [{ value: 1_000_000n, pk }]);
    await m.add(parent.tx, 'api');
    chain.extend([parent.tx]);
    const child = transfer(chain.tip().state, [parent.outputs[0]!], [{ value: 1n, pk }]).tx;
    assert.equal((await m.add(child, 'wallet')).applies, true);
    const f1 = chain.extend([], { parent: genesis, makeTip: false });
    const f2 = chain.extend([], { parent: f1, makeTip: false });
    chain.switchTo(f2);
    // The parent is pending again at once (its proofs were verified with its block): a block built
    // right after the switch does not take the child for a transaction that can never apply.
    assert.equal(m.has(txHash(parent.tx.mantle_tx)), true);
    m.evict([]);
    assert.equal(m.has(txHash(child.mantle_tx)), true);
    assert.deepEqual(hexes(m.view()), [hex(child), hex(parent.tx)]);
  });

  test('chain: the abandoned blocks are re-inserted even when the switch deletes them (a reorg k deep)', async () => {
    const { m, chain, pk, notes } = await setup();
    const s = chain.tip().state;
    const genesis = chain.tip().id;
    const a = transfer(s, [notes[0]!], [{ value: 5n, pk }]).tx;
    const b = transfer(s, [notes[1]!], [{ value: 6n, pk }]).tx;
    await m.add(a, 'api');
    await m.add(b, 'api');
    const a1 = chain.extend([a]);
    chain.extend([b]);
    assert.equal(m.metrics().pending_items, 0);
    const f1 = chain.extend([], { parent: genesis, makeTip: false });
    const f2 = chain.extend([], { parent: f1, makeTip: false });
    const f3 = chain.extend([], { parent: f2, makeTip: false });
    // The new LIB passes the fork point: the old branch is a dead fork, gone from the chain's storage.
    chain.switchTo(f3, { deleteAbandoned: true });
    assert.equal(chain.block(a1), undefined);
    await waitUntil(() => m.metrics().pending_items === 2, 2000, 'both re-added');
    assert.deepEqual(hexes(m.view()), [hex(a), hex(b)], 'oldest block first');
  });

  test('TTL: expired transactions are evicted when a block changes the tip, not before', async () => {
    const { m, chain, pk, notes, clock } = await setup({ ...CONFIG, txTtlMs: 1000 });
    const s = chain.tip().state;
    const old = transfer(s, [notes[0]!], [{ value: 5n, pk }]).tx;
    const young = transfer(s, [notes[1]!], [{ value: 6n, pk }]).tx;
    await m.add(old, 'api');
    clock.now += 600;
    await m.add(young, 'api');
    clock.now += 600;
    assert.equal(m.metrics().pending_items, 2, 'no eviction without a block');
    chain.extend([]);
    assert.equal(m.has(txHash(old.mantle_tx)), false);
    assert.equal(m.has(txHash(young.mantle_tx)), true);
  });

  test('unapplied: what does not apply is kept apart, at most maxUnapplied, the oldest first out; what applies stays', async () => {
    const { m, chain, pk, notes, store } = await setup({ ...CONFIG, maxUnappliedTxs: 3 });
    const s = chain.tip().state;
    const honest = transfer(s, [notes[0]!], [{ value: 5n, pk }]).tx;
    assert.equal((await m.add(honest, 'api')).applies, true);
    // Junk: each spends the output of a transaction that is nowhere.
    const junk = Array.from({ length: 6 }, (_, i) => {
      const ghost = transfer(s, [notes[1]!], [{ value: BigInt(i + 1), pk }]);
      return transfer(s, [ghost.outputs[1]!], [{ value: 1n, pk }]).tx;
    });
    for (const j of junk) {
      const r = await m.add(j, 'network');
      assert.deepEqual([r.outcome, r.applies], ['added', false]);
    }
    assert.deepEqual(
      junk.map((j) => m.has(txHash(j.mantle_tx))),
      [false, false, false, true, true, true],
      'the newest 3 stay',
    );
    assert.equal(m.unappliedCount, 3);
    await waitUntil(() => store.load().txs.length === 4, 1000, 'the dropped ones deleted from storage');
    const more = transfer(s, [notes[2]!], [{ value: 6n, pk }]).tx;
    assert.equal((await m.add(more, 'api')).applies, true);
    assert.deepEqual(hexes(m.view()), [hex(honest), hex(more)]);
    assert.equal(m.metrics().pending_items, 5);
  });

  test('unapplied: they leave past their age limit at the next tip change, and whenever this node builds a block', async () => {
    const { m, chain, pk, notes, clock } = await setup({ ...CONFIG, txTtlMs: null });
    const s = chain.tip().state;
    const honest = transfer(s, [notes[0]!], [{ value: 5n, pk }]).tx;
    const ghost = transfer(s, [notes[1]!], [{ value: 1n, pk }]);
    const junk = transfer(s, [ghost.outputs[1]!], [{ value: 1n, pk }]).tx;
    await m.add(honest, 'api');
    await m.add(junk, 'api');
    clock.now += UNAPPLIED_TTL_MS - 1;
    chain.extend([]);
    assert.equal(m.has(txHash(junk.mantle_tx)), true, 'young enough');
    clock.now += 1;
    chain.extend([]);
    assert.equal(m.has(txHash(junk.mantle_tx)), false, 'too old: gone with the tip change');
    assert.equal(m.has(txHash(honest.mantle_tx)), true, 'what applies has no such limit');
    const ghost2 = transfer(s, [notes[1]!], [{ value: 2n, pk }]);
    const junk2 = transfer(s, [ghost2.outputs[1]!], [{ value: 1n, pk }]).tx;
    await m.add(junk2, 'api');
    m.evict([]);
    assert.equal(m.has(txHash(junk2.mantle_tx)), false, 'gone when a block is built');
    assert.equal(m.has(txHash(honest.mantle_tx)), true);
  });

  test('unapplied: a child that came first is released by its parent; its proof is then verified', async () => {
    const { m, chain, pk, notes } = await setup();
    const s = chain.tip().state;
    const parent = transfer(s, [notes[0]!], [{ value: 1_000_000n, pk }]);
    const child = transfer(s, [parent.outputs[0]!], [{ value: 1n, pk }]).tx;
    const forgedChild = transfer(s, [{ ...parent.outputs[1]!, sk: 999n }], [{ value: 2n, pk }]).tx;
    assert.equal((await m.add(child, 'network')).applies, false);
    assert.equal((await m.add(forgedChild, 'network')).applies, false, 'its proof cannot be checked yet');
    assert.equal(m.unverifiedCount, 2);
    assert.equal((await m.add(parent.tx, 'network')).applies, true);
    await waitUntil(() => m.view().length === 2, 2000, 'the child in the view');
    await waitUntil(() => !m.has(txHash(forgedChild.mantle_tx)), 2000, 'the forged child dropped');
    assert.deepEqual(hexes(m.view()), [hex(child), hex(parent.tx)]);
    assert.equal(m.unverifiedCount, 0);
  });

  test('persistence: a restart reloads in FIFO order with the ages; a removed transaction stays removed', async () => {
    const kv = new MemoryKv();
    const first = await setup({ ...CONFIG, txTtlMs: 1000 }, kv);
    const { m, chain, pk, notes, clock } = first;
    const s = chain.tip().state;
    const t1 = transfer(s, [notes[0]!], [{ value: 5n, pk }]).tx;
    const t2 = transfer(s, [notes[1]!], [{ value: 6n, pk }]).tx;
    const t3 = transfer(s, [notes[2]!], [{ value: 7n, pk }]).tx;
    await m.add(t1, 'api');
    clock.now += 600;
    await m.add(t2, 'api');
    await m.add(t3, 'api');
    m.evict([txHash(t3.mantle_tx)]);
    await waitUntil(() => first.store.load().txs.length === 2, 1000, 'the eviction stored');
    m.close();

    const again = await setup({ ...CONFIG, txTtlMs: 1000 }, kv, chain);
    assert.equal(again.m.metrics().last_item_timestamp, clock.now, 'the latest addition (t3, evicted since)');
    again.m.evict([]); // a block built at once does not drop what waits for its proofs
    assert.equal(again.m.metrics().pending_items, 2);
    again.clock.now = clock.now + 500; // t1 is 1,100 ms old, t2 500 ms
    assert.equal(again.m.metrics().pending_items, 2);
    assert.equal(again.m.has(txHash(t3.mantle_tx)), false);
    await waitUntil(() => again.m.view().length === 2, 2000, 'the reloaded transactions verified');
    assert.deepEqual(hexes(again.m.view()), [hex(t1), hex(t2)]);
    assert.deepEqual([...again.m.candidates()], [t1, t2]);
    chain.extend([]);
    assert.equal(again.m.has(txHash(t1.mantle_tx)), false, 't1 kept its age and expired');
    assert.equal(again.m.has(txHash(t2.mantle_tx)), true);
  });

  test('persistence: transactions the chain included while the node was down are dropped on start', async () => {
    const kv = new MemoryKv();
    const first = await setup(CONFIG, kv);
    const t1 = transfer(first.chain.tip().state, [first.notes[0]!], [{ value: 5n, pk: first.pk }]).tx;
    await first.m.add(t1, 'api');
    first.m.close();
    first.chain.extend([t1]);
    const again = await setup(CONFIG, kv, first.chain);
    assert.equal(again.m.metrics().pending_items, 0);
    assert.equal(again.store.load().txs.length, 0);
  });
});
