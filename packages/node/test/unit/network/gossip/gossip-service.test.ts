/**
 * The gossip service against a fake chain and mempool on the in-memory network: what it does with each
 * outcome of a received proposal (LIB, applied, future, parent missing, invalid, node failure), what it
 * publishes (own blocks, local transactions, never network ones), its bounds and its stop.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pino } from 'pino';
import { type Block, blockBodyRoot } from '../../../../src/block/block.ts';
import { encodeHeader, type Header, headerId } from '../../../../src/block/header.ts';
import { BlockRejected } from '../../../../src/chain/index.ts';
import { bytesToHex } from '../../../../src/codec/hex.ts';
import { Ed25519Signer } from '../../../../src/crypto/ed25519.ts';
import { LedgerError } from '../../../../src/ledger/errors.ts';
import { Opcode } from '../../../../src/mantle/ops.ts';
import { type SignedMantleTx, txHash } from '../../../../src/mantle/tx.ts';
import { GossipService, gossipConfig } from '../../../../src/network/gossip/index.ts';
import { decodeProposal, encodeProposal, toProposal } from '../../../../src/network/wire/proposal.ts';
import { decodeTxGossip, encodeTxGossip } from '../../../../src/network/wire/tx-gossip.ts';
import { FakeChain } from '../../../mocks/chain.ts';
import { filled, SAMPLE_OPS, sampleSignedTx, seq } from '../../../mocks/fixtures.ts';
import { FakeMempool } from '../../../mocks/mempool.ts';
import { FakeNetworkBus } from '../../../mocks/network.ts';
import { waitUntil } from '../../../utils/api-node.ts';

const KEY = new Ed25519Signer(filled(32, 8));
const TX = sampleSignedTx(SAMPLE_OPS.slice(0, 1));
const BLOCKS = '/t/cryptarchia/1.0.0';
const TXS = '/t/mempool/1.0.0';
const silent = pino({ level: 'silent' });

function makeBlock(slot: bigint, txs: SignedMantleTx[] = [TX], key = KEY, parent = filled(32, 1)): Block {
  const header: Header = {
    parent_block: parent,
    slot,
    body_root: blockBodyRoot({ uncle_headers: [], transactions: txs }),
    proof_of_leadership: {
      proof: seq(128, 2),
      entropy_contribution: slot,
      leader_key: key.publicKey,
      voucher_cm: 1n,
    },
  };
  return { header, signature: key.sign(encodeHeader(header)), uncle_headers: [], transactions: txs };
}

/** The chain double whose `submit` answers with `outcome(block, attempt)`, its LIB at `libSlot`. */
function fakeChain(outcome: (b: Block, attempt: number) => Error | undefined, libSlot = 0n) {
  const chain = new FakeChain({
    submit: (b, attempt) => {
      const e = outcome(b, attempt);
      if (e) throw e;
    },
  });
  if (libSlot > 0n) {
    chain.put(filled(32, 0), { slot: libSlot });
    chain.finalize(filled(32, 0));
  }
  return { submitted: chain.submitted, chain };
}

function orphans() {
  return {
    enqueued: [] as string[],
    rejected: [] as string[],
    enqueue(id: Uint8Array, parent?: Uint8Array) {
      this.enqueued.push(`${bytesToHex(id)}<${parent ? bytesToHex(parent) : ''}`);
      return true;
    },
    markRejected(id: Uint8Array) {
      this.rejected.push(bytesToHex(id));
    },
  };
}

function setup(
  outcome: (b: Block, attempt: number) => Error | undefined = () => undefined,
  libSlot = 0n,
  ibd: Promise<unknown> = Promise.resolve(),
  logger = silent,
) {
  const bus = new FakeNetworkBus();
  const [net, peer] = bus.mesh(2) as [ReturnType<FakeNetworkBus['node']>, ReturnType<FakeNetworkBus['node']>];
  const fc = fakeChain(outcome, libSlot);
  const mempool = new FakeMempool([TX]);
  const sink = orphans();
  const gossip = GossipService.init(
    { ...gossipConfig({ blockTopic: BLOCKS, txTopic: TXS }), futureBlockRetryDelayMs: 5 },
    { network: net, chain: fc.chain, mempool, orphans: sink, ibd, logger },
  );
  return { bus, net, peer, ...fc, mempool, sink, gossip };
}

const idOf = (b: Block) => bytesToHex(headerId(b.header));

// F: `gossipsub_protocol` and `pubsub_topic` are any `String` (its tests use "my-custom-topic").
test('any string is a topic: empty, without a slash, or one topic for both kinds', async () => {
  for (const [blockTopic, txTopic] of [
    ['', 'my-custom-topic'],
    ['my-custom-topic', ''],
    ['shared topic', 'shared topic'],
  ] as const) {
    const bus = new FakeNetworkBus();
    const [net, peer] = bus.mesh(2) as [
      ReturnType<FakeNetworkBus['node']>,
      ReturnType<FakeNetworkBus['node']>,
    ];
    const fc = fakeChain(() => undefined);
    const mempool = new FakeMempool([TX]);
    const gossip = GossipService.init(gossipConfig({ blockTopic, txTopic }), {
      network: net,
      chain: fc.chain,
      mempool,
      orphans: orphans(),
      ibd: Promise.resolve(),
      logger: silent,
    });
    const b = makeBlock(5n);
    await peer.publish(blockTopic, encodeProposal(toProposal(b)));
    await peer.publish(txTopic, encodeTxGossip(TX));
    await waitUntil(
      () => gossip.counters.proposalsApplied === 1 && mempool.added.length === 1,
      2_000,
      `the proposal applied and the transaction added on ${JSON.stringify([blockTopic, txTopic])}`,
    );
    assert.deepEqual(fc.submitted, [idOf(b)]);
    assert.deepEqual(
      mempool.added.map((a) => a.origin),
      ['network'],
    );
    // On a shared topic each message is also tried as the other kind: that is no fault of the sender.
    assert.deepEqual(net.penalties, []);
    await gossip.close();
    bus.close();
  }
});

test('a received proposal is rebuilt from the mempool and applied', async () => {
  const s = setup();
  const b = makeBlock(5n);
  await s.peer.publish(BLOCKS, encodeProposal(toProposal(b)));
  await waitUntil(() => s.gossip.counters.proposalsApplied === 1, 2_000, 'the block applied');
  assert.deepEqual(s.submitted, [idOf(b)]);
  assert.deepEqual(s.net.penalties, []);
  await s.gossip.close();
});

test('proposals at or before the LIB are recorded as rejected, applied ones skipped, neither submitted', async () => {
  const s = setup(() => undefined, 10n);
  const old = makeBlock(10n);
  await s.peer.publish(BLOCKS, encodeProposal(toProposal(old)));
  const known = makeBlock(11n);
  s.chain.put(headerId(known.header), { block: known, makeTip: false });
  await s.peer.publish(BLOCKS, encodeProposal(toProposal(known)));
  // Proposals are handled one at a time in arrival order: once a third one (also before the LIB) is
  // recorded as rejected, the first two have been handled.
  const sentinel = makeBlock(9n);
  await s.peer.publish(BLOCKS, encodeProposal(toProposal(sentinel)));
  await waitUntil(() => s.sink.rejected.length === 2, 2_000, 'the proposals handled');
  assert.equal(s.gossip.counters.proposalsReceived, 3);
  assert.deepEqual(s.submitted, []);
  assert.deepEqual(s.sink.rejected, [idOf(old), idOf(sentinel)]);
  assert.deepEqual(s.net.penalties, []);
  await s.gossip.close();
});

test('proposals received before initial block download is over are dropped; transactions are not', async () => {
  let done: () => void = () => {};
  const s = setup(undefined, 0n, new Promise<void>((r) => (done = r)));
  await s.peer.publish(BLOCKS, encodeProposal(toProposal(makeBlock(5n))));
  await s.peer.publish(TXS, encodeTxGossip(TX));
  await waitUntil(() => s.gossip.counters.txsAdded === 1, 2_000, 'the transaction added');
  assert.equal(s.gossip.counters.proposalsReceived, 0);
  done();
  await Promise.resolve();
  await s.peer.publish(BLOCKS, encodeProposal(toProposal(makeBlock(6n))));
  await waitUntil(() => s.gossip.counters.proposalsApplied === 1, 2_000, 'the later proposal applied');
  await s.gossip.close();
});

test('a block from a future slot is tried again, then applied', async () => {
  const future = new BlockRejected('BLOCK_FUTURE', 'future', { meta: { boundSlot: 4n } });
  const s = setup((_b, attempt) => (attempt < 2 ? future : undefined));
  const b = makeBlock(5n);
  await s.peer.publish(BLOCKS, encodeProposal(toProposal(b)));
  await waitUntil(() => s.gossip.counters.proposalsApplied === 1, 2_000, 'the block applied');
  assert.equal(s.submitted.length, 3);
  await s.gossip.close();
});

test('a block still from the future after 3 retries is dropped without blame', async () => {
  const s = setup(() => new BlockRejected('BLOCK_FUTURE', 'future', { meta: { boundSlot: 4n } }));
  await s.peer.publish(BLOCKS, encodeProposal(toProposal(makeBlock(5n))));
  await waitUntil(() => s.submitted.length === 4, 2_000, 'four tries');
  await s.gossip.close();
  assert.deepEqual(s.net.penalties, []);
  assert.deepEqual(s.sink.rejected, []);
});

test('a block whose parent is missing goes to the orphan sink', async () => {
  const s = setup(
    (b) =>
      new BlockRejected('BLOCK_PARENT_MISSING', 'no parent', {
        meta: { parent: bytesToHex(b.header.parent_block) },
      }),
  );
  const b = makeBlock(5n);
  await s.peer.publish(BLOCKS, encodeProposal(toProposal(b)));
  await waitUntil(() => s.sink.enqueued.length === 1, 2_000, 'the orphan enqueued');
  assert.deepEqual(s.sink.enqueued, [`${idOf(b)}<${'01'.repeat(32)}`]);
  assert.equal(s.gossip.counters.orphansEnqueued, 1);
  assert.deepEqual(s.net.penalties, []);
  await s.gossip.close();
});

test('an invalid block is recorded as rejected and its sender penalised; a node failure blames nobody', async () => {
  const bad = makeBlock(5n);
  const failing = makeBlock(6n);
  const s = setup((b) =>
    idOf(b) === idOf(bad)
      ? new BlockRejected('BLOCK_LEDGER', 'ledger says no')
      : new BlockRejected('BLOCK_STORAGE', 'disk'),
  );
  await s.peer.publish(BLOCKS, encodeProposal(toProposal(bad)));
  await s.peer.publish(BLOCKS, encodeProposal(toProposal(failing)));
  await waitUntil(() => s.submitted.length === 2, 2_000, 'both submitted');
  await s.gossip.close();
  assert.deepEqual(s.sink.rejected, [idOf(bad)]);
  assert.deepEqual(s.net.penalties, [
    { peer: s.peer.peerId, offence: 'relayed', reason: 'gossip proposal BLOCK_LEDGER: ledger says no' },
  ]);
});

test('a proof of leadership that fails: its first deliverer is penalised as its author (major)', async () => {
  const bad = makeBlock(5n);
  const pol = new BlockRejected(
    'BLOCK_LEDGER',
    'InvalidLeaderProof: the proof of leadership does not verify',
    {
      cause: new LedgerError('InvalidLeaderProof', 'the proof of leadership does not verify'),
    },
  );
  const s = setup(() => pol);
  s.chain.put(bad.header.parent_block, { slot: 1n });
  await s.peer.publish(BLOCKS, encodeProposal(toProposal(bad)));
  await waitUntil(() => s.net.penalties.length === 1, 2_000, 'the penalty');
  assert.deepEqual(
    s.net.penalties.map((p) => [p.peer, p.offence]),
    [[s.peer.peerId, 'major']],
  );
  await s.gossip.close();
});

test('proposals past the cheap checks and budgets are dropped before any proof is verified', async () => {
  const s = setup();
  const parent = makeBlock(1n).header.parent_block;
  s.chain.put(parent, { slot: 1n });
  const other = new Ed25519Signer(filled(32, 9));
  // One leader key and slot: the second proposal is dropped (another parent, so another block).
  const first = makeBlock(5n);
  await s.peer.publish(BLOCKS, encodeProposal(toProposal(first)));
  await waitUntil(() => s.submitted.length === 1, 2_000, 'the first submitted');
  const again = makeBlock(5n, [TX], KEY, filled(32, 3));
  s.chain.put(again.header.parent_block, { slot: 2n, makeTip: false });
  await s.peer.publish(BLOCKS, encodeProposal(toProposal(again)));
  await waitUntil(() => s.gossip.counters.proposalsLimited === 1, 2_000, 'dropped');
  // The budget of proofs of leadership: 16 at once, then 2 a slot.
  for (let slot = 10n; slot < 40n; slot++)
    await s.peer.publish(BLOCKS, encodeProposal(toProposal(makeBlock(slot, [TX], other))));
  await waitUntil(() => s.gossip.counters.proposalsLimited >= 1 + 30 - 16, 5_000, 'the budget spent');
  assert.equal(s.submitted.length, 1 + 15, 'the burst, less the first');
  assert.deepEqual(s.net.penalties, [], 'no offence: the peer is only limited');
  await s.gossip.close();
});

test('a missing transaction drops the proposal without blame and without recording it', async () => {
  const s = setup();
  s.mempool.pending.clear();
  await s.peer.publish(BLOCKS, encodeProposal(toProposal(makeBlock(5n))));
  await waitUntil(() => s.gossip.counters.proposalsMissingTxs === 1, 2_000, 'the proposal dropped');
  await s.gossip.close();
  assert.deepEqual(s.submitted, []);
  assert.deepEqual(s.sink.rejected, []);
  assert.deepEqual(s.net.penalties, []);
});

test("the node's own messages are never penalised", async () => {
  const s = setup();
  await s.net.publish(BLOCKS, new Uint8Array([1, 2, 3]));
  await s.net.publish(TXS, new Uint8Array([1, 2, 3]));
  await waitUntil(() => s.gossip.counters.txsRejected === 1, 2_000, 'the garbage seen');
  await s.gossip.close();
  assert.deepEqual(s.net.penalties, []);
});

test('own blocks and local transactions are published; network ones are not', async () => {
  const s = setup();
  const b = makeBlock(5n);
  s.gossip.publishBlock(b);
  s.mempool.emit('added', { hash: txHash(TX.mantle_tx), tx: TX, origin: 'api' });
  s.mempool.emit('added', { hash: txHash(TX.mantle_tx), tx: TX, origin: 'network' });
  s.mempool.emit('resubmitted', { hash: txHash(TX.mantle_tx), tx: TX, origin: 'wallet' });
  const other = sampleSignedTx();
  s.mempool.emit('added', { hash: txHash(other.mantle_tx), tx: other, origin: 'reorg' });
  await waitUntil(() => s.gossip.counters.txsPublished === 3, 2_000, 'three transactions published');
  assert.equal(s.gossip.counters.proposalsPublished, 1);
  const pubs = s.net.published;
  assert.deepEqual(decodeProposal(pubs.find((p) => p.topic === BLOCKS)!.data), toProposal(b));
  assert.deepEqual(
    pubs.filter((p) => p.topic === TXS).map((p) => decodeTxGossip(p.data)),
    [TX, TX, other],
  );
  await s.gossip.close();
});

test('received transactions are added as network ones; a failed preverification is a minor offence', async () => {
  const lines: { msg: string; tx?: string; peer?: string }[] = [];
  const logger = pino({ level: 'debug' }, { write: (l: string) => void lines.push(JSON.parse(l)) });
  const s = setup(undefined, 0n, Promise.resolve(), logger);
  await s.peer.publish(TXS, encodeTxGossip(TX));
  await waitUntil(() => s.gossip.counters.txsAdded === 1, 2_000, 'the transaction added');
  assert.deepEqual(
    s.mempool.added.map((a) => a.origin),
    ['network'],
  );
  // The debug line of an admitted transaction names it (the network benchmarks time propagation by it).
  const added = lines.filter((l) => l.msg === 'gossiped transaction added');
  assert.deepEqual(
    added.map((l) => [l.tx, l.peer]),
    [[bytesToHex(txHash(TX.mantle_tx)), s.peer.peerId]],
  );
  s.mempool.failWith = new LedgerError('InvalidZkSignature', 'bad');
  await s.peer.publish(TXS, encodeTxGossip(sampleSignedTx()));
  await waitUntil(() => s.net.penalties.length === 1, 2_000, 'a penalty');
  assert.equal(s.net.penalties[0]!.offence, 'relayed');
  await s.gossip.close();
});

test('a peer that keeps sending transactions that fail is penalised as their source: past 32, each a minor offence', async () => {
  const s = setup();
  s.mempool.applies = false;
  const tx = (i: number): SignedMantleTx =>
    sampleSignedTx([
      { opcode: Opcode.Transfer, payload: { inputs: [BigInt(i + 1)], outputs: [{ value: 1n, pk: 2n }] } },
    ]);
  for (let i = 0; i < 32; i++) await s.peer.publish(TXS, encodeTxGossip(tx(i)));
  await waitUntil(() => s.gossip.counters.txsAdded === 32, 2_000, '32 added');
  assert.equal(
    s.net.penalties.length,
    0,
    'an honest peer may forward the odd transaction that does not apply',
  );
  s.mempool.failWith = new LedgerError('InvalidZkSignature', 'bad');
  for (let i = 32; i < 36; i++) await s.peer.publish(TXS, encodeTxGossip(tx(i)));
  await waitUntil(() => s.net.penalties.length === 4, 2_000, 'penalties');
  assert.deepEqual(
    s.net.penalties.map((p) => [p.peer, p.offence]),
    Array.from({ length: 4 }, () => [s.peer.peerId, 'minor']),
  );
  assert.match(s.net.penalties[0]!.reason, /keep failing/);
  await s.gossip.close();
});

test('proposals beyond the waiting bound: the oldest waiting are dropped, the newest kept; close stops the work', async () => {
  let release: () => void = () => {};
  const gate = new Promise<void>((r) => {
    release = r;
  });
  const s = setup();
  const slowSubmit = s.chain.submit.bind(s.chain);
  s.chain.submit = async (b: Block) => {
    await gate;
    return slowSubmit(b);
  };
  await Promise.resolve(); // initial block download is over
  const blocks = Array.from({ length: 300 }, (_, i) => makeBlock(5n + BigInt(i)));
  for (const b of blocks) s.net.inject(BLOCKS, encodeProposal(toProposal(b)), 'p');
  assert.equal(s.gossip.counters.dropped, 300 - 256 - 1);
  release();
  // The first was being handled; of the rest the 256 newest waited, the 43 oldest were dropped.
  await waitUntil(() => s.submitted.length === 257, 10_000, 'the waiting proposals handled');
  assert.deepEqual(s.submitted, [blocks[0]!, ...blocks.slice(44)].map(idOf), 'the newest kept');
  await s.gossip.close();
  const n = s.submitted.length;
  s.net.inject(BLOCKS, encodeProposal(toProposal(makeBlock(1000n))), 'p');
  // close() again waits for any proposal handling that injection could have started.
  await s.gossip.close();
  assert.equal(s.submitted.length, n);
  assert.ok(n < 300);
});

test('close ends a wait between retries at once', async () => {
  const bus = new FakeNetworkBus();
  const [net, peer] = bus.mesh(2);
  const fc = fakeChain(() => new BlockRejected('BLOCK_FUTURE', 'future', { meta: { boundSlot: 4n } }));
  const gossip = GossipService.init(
    { ...gossipConfig({ blockTopic: BLOCKS, txTopic: TXS }), futureBlockRetryDelayMs: 60_000 },
    {
      network: net!,
      chain: fc.chain,
      mempool: new FakeMempool([TX]),
      orphans: orphans(),
      ibd: Promise.resolve(),
      logger: silent,
    },
  );
  await Promise.resolve();
  await peer!.publish(BLOCKS, encodeProposal(toProposal(makeBlock(5n))));
  await waitUntil(() => fc.submitted.length === 1, 2_000, 'the first try');
  const t0 = Date.now();
  await gossip.close();
  assert.ok(Date.now() - t0 < 1_000);
  assert.equal(fc.submitted.length, 1);
});
