/**
 * Gossip between whole in-process nodes on the in-memory network: a leader and two followers (one
 * reached only through the other). A leader's blocks reach the followers as proposals and are applied;
 * a transaction submitted to a follower reaches the leader and is included; a forged proposal and
 * garbage on both topics penalise their sender and change nothing (a failed proof of leadership as the
 * sender's own work); a proposal whose transaction never
 * reached a follower is dropped without blame, and its child is handed to chain sync as an orphan.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { bodyRoot } from '../../../../src/block/block.ts';
import { encodeHeader, type Header, headerId } from '../../../../src/block/header.ts';
import { bytesEqual } from '../../../../src/codec/hex.ts';
import { txHash } from '../../../../src/mantle/tx.ts';
import { encodeProposal, toProposal } from '../../../../src/network/wire/proposal.ts';
import { encodeTxGossip } from '../../../../src/network/wire/tx-gossip.ts';
import { followerConfig } from '../../../mocks/chain-feed.ts';
import { fastDeployment } from '../../../mocks/fast-deployment.ts';
import { genesisNotes, signTx, TEST_LEADER, transfer } from '../../../mocks/ledger.ts';
import { type FakeNetwork, FakeNetworkBus } from '../../../mocks/network.ts';
import { startFastNode, type TestNode, waitUntil } from '../../../utils/api-node.ts';

const deployment = fastDeployment(100, 2, Math.floor(Date.now() / 1000));
const BLOCKS = deployment.network.block_topic;
const TXS = deployment.network.tx_topic;
const bus = new FakeNetworkBus();
const [netL, netF, netG] = [bus.node('leader'), bus.node('follower'), bus.node('far')] as [
  FakeNetwork,
  FakeNetwork,
  FakeNetwork,
];
bus.connect(netL, netF);
bus.connect(netF, netG); // G hears the leader only through F
let L: TestNode;
let F: TestNode;
let G: TestNode;

/** `peer:offence:code`, the code read from the reason (`gossip <what> <code>: <message>`). */
const penaltiesBy = (n: FakeNetwork) =>
  n.penalties.map(
    (p) => `${p.peer}:${p.offence}:${/^gossip (?:proposal|transaction) (\w+): /.exec(p.reason)?.[1]}`,
  );

before(async () => {
  // The followers first, so that they hear the leader's first block.
  F = await startFastNode({
    deployment,
    config: followerConfig(),
    network: netF,
  });
  G = await startFastNode({
    deployment,
    config: followerConfig(),
    network: netG,
  });
  L = await startFastNode({ deployment, network: netL });
});

after(async () => {
  await Promise.all([L?.stop(), F?.stop(), G?.stop()]);
  bus.close();
});

test("a leader's blocks reach the followers as proposals and are applied", async () => {
  await waitUntil(() => L.node.chain.tip().height >= 4, 10_000, 'the leader to make 4 blocks');
  const target = L.node.chain.tip().id;
  await waitUntil(
    () => F.node.chain.has(target) && G.node.chain.has(target),
    5_000,
    'the followers to apply it',
  );
  assert.ok(F.node.gossip!.counters.proposalsApplied >= 4);
  assert.ok(G.node.gossip!.counters.proposalsApplied >= 4);
  assert.ok(L.node.gossip!.counters.proposalsPublished >= 4);
  assert.deepEqual(bus.penalties(), []);
});

test("a transaction submitted to a follower reaches the leader's mempool and is included", async () => {
  const state = F.node.chain.tip().state;
  const note = genesisNotes(F.node.chain.genesis)[0]!;
  const { tx } = transfer(state, [note], [{ value: 1000n, pk: note.note.pk }], { tip: 5000n });
  const hash = txHash(tx.mantle_tx);
  await F.node.mempool.add(tx, 'api');
  await waitUntil(
    () => L.node.chain.transactionLocation(hash) !== undefined,
    10_000,
    'the leader to include it',
  );
  const at = L.node.chain.transactionLocation(hash)!;
  // It came through gossip: the follower published it, the leader admitted it as a network one.
  assert.ok(F.node.gossip!.counters.txsPublished >= 1);
  assert.ok(L.node.gossip!.counters.txsAdded >= 1);
  // The followers rebuild that block from their own mempools.
  await waitUntil(
    () => F.node.chain.has(at.block) && G.node.chain.has(at.block),
    5_000,
    'the followers to apply the block',
  );
  assert.ok(bytesEqual(F.node.chain.transactionLocation(hash)?.block ?? new Uint8Array(), at.block));
  // Included on the canonical chain: it leaves the followers' pools.
  await waitUntil(
    () => !F.node.mempool.has(hash) && !G.node.mempool.has(hash),
    2_000,
    'the pools to drop it',
  );
  assert.deepEqual(bus.penalties(), []);
});

test('a proposal with a forged signature penalises its sender and changes nothing', async () => {
  const block = L.node.chain.block(L.node.chain.tip().id)!;
  // Another header (another block id) under the original signature.
  const header: Header = {
    ...block.header,
    proof_of_leadership: { ...block.header.proof_of_leadership, entropy_contribution: 1n },
  };
  const forged = encodeProposal(toProposal({ ...block, header }));
  const heightBefore = F.node.chain.tip().height;
  netF.inject(BLOCKS, forged, 'mallory');
  await waitUntil(() => netF.penalties.length > 0, 2_000, 'a penalty');
  assert.deepEqual(penaltiesBy(netF), ['mallory:relayed:PROPOSAL_INVALID_HEADER']);
  assert.ok(F.node.sync.isRejected(headerId(header)));
  assert.ok(!F.node.chain.has(headerId(header)));
  assert.ok(F.node.chain.tip().height >= heightBefore);
  netF.penalties.length = 0;
});

test('a correctly signed proposal of an invalid block penalises its sender', async () => {
  const tip = F.node.chain.tip();
  const slot = F.node.clock.currentSlot();
  const header: Header = {
    parent_block: tip.id,
    slot: slot > tip.slot ? slot : tip.slot + 1n,
    body_root: bodyRoot([], []),
    proof_of_leadership: {
      proof: new Uint8Array(128), // not a proof of leadership
      entropy_contribution: 7n,
      leader_key: TEST_LEADER.publicKey,
      voucher_cm: 7n,
    },
  };
  const bytes = encodeProposal({
    header,
    uncle_headers: [],
    references: [],
    signature: TEST_LEADER.sign(encodeHeader(header)),
  });
  netF.inject(BLOCKS, bytes, 'mallory');
  await waitUntil(() => netF.penalties.length > 0, 5_000, 'a penalty');
  assert.equal(netF.penalties[0]!.peer, 'mallory');
  assert.equal(
    netF.penalties[0]!.offence,
    'major',
    'a proof of leadership that fails: its first deliverer is taken for its author',
  );
  assert.ok(F.node.sync.isRejected(headerId(header)));
  assert.ok(!F.node.chain.has(headerId(header)));
  netF.penalties.length = 0;
});

test('garbage on both topics penalises the sender and changes nothing', async () => {
  const tipBefore = F.node.chain.tip().height;
  const pendingBefore = F.node.mempool.metrics().pending_items;
  const note = genesisNotes(F.node.chain.genesis)[1]!;
  const { tx } = transfer(F.node.chain.tip().state, [note], [{ value: 1n, pk: note.note.pk }]);
  // The same transfer signed with a key that does not own the note: decodes, fails its checks.
  const forged = signTx(tx.mantle_tx.ops, [[12345n]]);
  netF.inject(BLOCKS, new Uint8Array([1, 2, 3]), 'mallory');
  netF.inject(TXS, new Uint8Array([9, 9, 9]), 'mallory');
  netF.inject(TXS, encodeTxGossip(tx).subarray(0, 40), 'mallory');
  netF.inject(TXS, encodeTxGossip(forged), 'mallory');
  await waitUntil(() => netF.penalties.length >= 4, 5_000, 'four penalties');
  assert.deepEqual(penaltiesBy(netF).sort(), [
    'mallory:relayed:LEDGER_INVALID_ZK_SIGNATURE',
    'mallory:relayed:WIRE_MALFORMED',
    'mallory:relayed:WIRE_MALFORMED',
    'mallory:relayed:WIRE_MALFORMED',
  ]);
  assert.ok(F.node.chain.tip().height >= tipBefore);
  assert.equal(F.node.mempool.metrics().pending_items, pendingBefore);
  netF.penalties.length = 0;
});

test('a proposal whose transaction is missing is dropped without blame; its child goes to sync', async () => {
  const state = L.node.chain.tip().state;
  const note = genesisNotes(L.node.chain.genesis)[2]!;
  const { tx } = transfer(state, [note], [{ value: 1000n, pk: note.note.pk }], { tip: 5000n });
  const hash = txHash(tx.mantle_tx);
  // The transaction never reaches F (nor G behind it).
  bus.filter = (_from, to, topic) => !(topic === TXS && to === netF.peerId);
  await L.node.mempool.add(tx, 'api');
  await waitUntil(
    () => L.node.chain.transactionLocation(hash) !== undefined,
    10_000,
    'the leader to include it',
  );
  const missing = L.node.chain.transactionLocation(hash)!.block;
  await waitUntil(() => F.node.gossip!.counters.proposalsMissingTxs > 0, 5_000, 'the proposal to be dropped');
  assert.ok(!F.node.chain.has(missing));
  assert.ok(!F.node.sync.isRejected(missing), 'not recorded as rejected');
  // The next block builds on the missing one: its parent is unknown, it is handed to sync, which
  // downloads the missing block from the leader.
  await waitUntil(
    () => F.node.chain.has(missing),
    10_000,
    'sync to download the missing block from the leader',
  );
  assert.deepEqual(bus.penalties(), []);
  bus.filter = undefined;
});
