/**
 * The Blend membership of an epoch: the tests of F blend/scheduling/src/membership.rs and
 * services/blend/src/membership/node_id/libp2p.rs, plus the membership taken from the SDP snapshot
 * (services/blend/src/membership/service.rs) and the epoch state.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { generateKeyPair } from '@libp2p/crypto/keys';
import { peerIdFromPrivateKey } from '@libp2p/peer-id';
import {
  BlendMembership,
  BlendMembershipError,
  type BlendNodeInput,
  blendEpochState,
  epochPoqInputs,
  peerIdOfProvider,
} from '../../../src/blend/membership.ts';
import { ed25519PublicKey } from '../../../src/crypto/ed25519.ts';
import { membershipOf } from '../../../src/ledger/sdp-rewards.ts';
import type { Declaration, EpochState } from '../../../src/ledger/state.ts';
import { locatorFromString } from '../../../src/mantle/locator.ts';
import { stateWith } from '../../mocks/ledger.ts';
import { Pcg32 } from './pcg32.ts';

/** F's test keys: `UnsecuredEd25519Key::from_bytes(&[seed; 32]).public_key()`. */
const key = (seed: number): Uint8Array => ed25519PublicKey(new Uint8Array(32).fill(seed));
const node = (seed: number, zkId = BigInt(seed)): BlendNodeInput => ({
  publicKey: key(seed),
  zkId,
  locators: [],
});
const peer = (seed: number): string => peerIdOfProvider(key(seed));
const rng = (): Pcg32 => Pcg32.randTest(1n);

// F: blend/scheduling/src/membership.rs::test_membership_new_with_local_node
test('test_membership_new_with_local_node: membership with the local node: its index', () => {
  const m = BlendMembership.fromNodes([node(1), node(2), node(3)], key(2));
  assert.equal(m.size, 3);
  assert.deepEqual(
    m.members.map((x) => x.peerId),
    [peer(1), peer(2), peer(3)],
  );
  assert.equal(m.localIndex, 1);
  assert.ok(m.containsLocal);
});

// F: blend/scheduling/src/membership.rs::test_membership_new_without_local_node
test('test_membership_new_without_local_node: membership without the local node', () => {
  const m = BlendMembership.fromNodes([node(1), node(2), node(3)], key(99));
  assert.equal(m.size, 3);
  assert.deepEqual(
    m.members.map((x) => x.index),
    [0, 1, 2],
  );
  assert.equal(m.localIndex, null);
  assert.ok(!m.containsLocal);
});

// F: blend/scheduling/src/membership.rs::test_membership_new_empty
test('test_membership_new_empty: empty membership', () => {
  const m = BlendMembership.fromNodes([], key(99));
  assert.equal(m.size, 0);
  assert.ok(m.isEmpty);
  assert.equal(m.localIndex, null);
  assert.ok(!m.containsLocal);
});

// F: blend/scheduling/src/membership.rs::test_choose_remote_nodes
test('test_choose_remote_nodes: choose 2 remote nodes of 4: distinct', () => {
  const m = BlendMembership.fromNodes([node(1), node(2), node(3), node(4)], key(99));
  const chosen = new Set(m.chooseRemoteNodes(2, new Set(), rng()).map((x) => x.peerId));
  assert.equal(chosen.size, 2);
});

// F: blend/scheduling/src/membership.rs::test_choose_remote_nodes_more_than_available
test('test_choose_remote_nodes_more_than_available: choose 5 remote nodes of 2: both', () => {
  const m = BlendMembership.fromNodes([node(1), node(2)], key(99));
  const chosen = new Set(m.chooseRemoteNodes(5, new Set(), rng()).map((x) => x.peerId));
  assert.equal(chosen.size, 2);
});

// F: blend/scheduling/src/membership.rs::test_choose_remote_nodes_zero
test('test_choose_remote_nodes_zero: choose no remote node', () => {
  const m = BlendMembership.fromNodes([node(1), node(2)], key(99));
  assert.deepEqual(m.chooseRemoteNodes(0, new Set(), rng()), []);
});

// F: blend/scheduling/src/membership.rs::test_filter_and_choose_remote_nodes
test('test_filter_and_choose_remote_nodes: choose 2 remote nodes of 3 with one excluded: the other two', () => {
  const m = BlendMembership.fromNodes([node(1), node(2), node(3)], key(99));
  const chosen = new Set(m.chooseRemoteNodes(2, new Set([peer(3)]), rng()).map((x) => x.peerId));
  assert.deepEqual(chosen, new Set([peer(1), peer(2)]));
});

// F: blend/scheduling/src/membership.rs::test_filter_and_choose_remote_nodes_all_excluded
test('test_filter_and_choose_remote_nodes_all_excluded: choose remote nodes when all are excluded: none', () => {
  const m = BlendMembership.fromNodes([node(1), node(2)], key(99));
  assert.deepEqual(m.chooseRemoteNodes(2, new Set([peer(1), peer(2)]), rng()), []);
});

// F: blend/scheduling/src/membership.rs::test_contains
test('test_contains: contains a member by peer id', () => {
  const m = BlendMembership.fromNodes([node(1)], key(99));
  assert.ok(m.contains(peer(1)));
  assert.ok(!m.contains(peer(2)));
});

// F: blend/scheduling/src/membership.rs::get_node_at
test('get_node_at: node at an index', () => {
  const m = BlendMembership.fromNodes([node(1)], key(99));
  assert.equal(m.getNodeAt(0)?.peerId, peer(1));
  assert.equal(m.getNodeAt(1), undefined);
});

// F: blend/scheduling/src/membership.rs::duplicate_remote_node
test('duplicate_remote_node: a duplicate node is refused', () => {
  assert.throws(() => BlendMembership.fromNodes([node(1), node(1, 2n)], key(99)), BlendMembershipError);
});

// F: services/blend/src/membership/node_id/libp2p.rs::test_try_from_provider_id
test('test_try_from_provider_id: the peer id of a provider id is the libp2p peer id of that Ed25519 key', async () => {
  const keypair = await generateKeyPair('Ed25519');
  assert.equal(peerIdOfProvider(keypair.publicKey.raw), peerIdFromPrivateKey(keypair).toString());
});

test("the local node is never chosen; the draw is rand's reservoir over the other members in order", () => {
  const m = BlendMembership.fromNodes([node(1), node(2), node(3), node(4), node(5)], key(3));
  for (let seed = 0n; seed < 20n; seed++) {
    const chosen = m.chooseRemoteNodes(2, new Set(), Pcg32.randTest(seed));
    assert.equal(chosen.length, 2);
    assert.ok(chosen.every((c) => c.index !== 2));
    assert.notEqual(chosen[0]!.index, chosen[1]!.index);
  }
  // 4 candidates (indices 0, 1, 3, 4), amount 3: one draw in 0..4 for the last candidate.
  // gen_index(4) with the word w draws floor(w · 4 / 2^32); w = 2^31 gives 2: candidate 4 replaces slot 2.
  const scripted = { nextU32: () => 2 ** 31, nextU64: () => 0n };
  assert.deepEqual(
    m.chooseRemoteNodes(3, new Set(), scripted).map((c) => c.index),
    [0, 1, 4],
  );
});

test("layer nodes: the members at the proofs of selection's indices, repeated and local ones included", () => {
  const m = BlendMembership.fromNodes([node(1), node(2), node(3)], key(2));
  assert.deepEqual(
    m.layerNodes([1, 1n, 0]).map((x) => x.peerId),
    [peer(2), peer(2), peer(1)],
  );
  assert.throws(() => m.layerNodes([3]), BlendMembershipError);
  assert.throws(() => m.layerNodes([-1n]), BlendMembershipError);
});

// ---------- from the epoch's declarations (F: services/blend/src/membership/service.rs) ----------

const LOCATOR = locatorFromString('/ip4/10.0.0.1/udp/3000/quic-v1');

function declaration(seed: number, zkId: bigint, locators = [LOCATOR]): Declaration {
  return {
    service_type: 'BN',
    provider_id: key(seed),
    service_note_id: 0n,
    locators,
    zk_id: zkId,
    created: 0,
    active: 0,
    withdraw_at: null,
    nonce: 0n,
  };
}

test("membership from declarations: sorted by zk id, indices as the ledger's membershipOf", () => {
  const decls = [declaration(1, 30n), declaration(2, 10n), declaration(3, 20n)];
  const { membership, dropped } = BlendMembership.fromDeclarations(decls, key(1));
  assert.deepEqual(dropped, []);
  assert.deepEqual(membership.zkIds, [10n, 20n, 30n]);
  assert.deepEqual(
    membership.members.map((m) => m.peerId),
    [peer(2), peer(3), peer(1)],
  );
  assert.equal(membership.localIndex, 2);
  assert.deepEqual(
    membershipOf(decls).map((p) => p.zk_id),
    membership.zkIds,
  );
  assert.deepEqual(membership.members[0]!.locators, ['/ip4/10.0.0.1/udp/3000/quic-v1']);
});

test('membership from declarations: a provider id off the curve or no locator is left out before indexing', () => {
  const offCurve = new Uint8Array(32);
  offCurve[0] = 2;
  const bad = { ...declaration(4, 5n), provider_id: offCurve };
  const { membership, dropped } = BlendMembership.fromDeclarations(
    [declaration(1, 30n), bad, declaration(2, 10n, [])],
    null,
  );
  assert.deepEqual(
    membership.members.map((m) => [m.index, m.zkId]),
    [[0, 30n]],
  );
  assert.deepEqual(
    dropped.map((d) => d.reason),
    ['provider id is not an Ed25519 point', 'no locator'],
  );
});

test('membership from declarations: two declarations with one zk id are refused', () => {
  assert.throws(
    () => BlendMembership.fromDeclarations([declaration(1, 7n), declaration(2, 7n)], null),
    BlendMembershipError,
  );
});

test('peerIdOfProvider refuses bytes that are not an Ed25519 key', () => {
  assert.throws(() => peerIdOfProvider(new Uint8Array(31)), BlendMembershipError);
  const offCurve = new Uint8Array(32);
  offCurve[0] = 2;
  assert.throws(() => peerIdOfProvider(offCurve), BlendMembershipError);
});

test("the Blend epoch state takes the epoch state's nonce, aged root, lottery values and PoW threshold", () => {
  const epochState: EpochState = {
    ...stateWith({}).epoch_state,
    epoch: 7,
    nonce: 11n,
    lottery: { t0: 17n, t1: 19n },
    blend_pow_difficulty: 23n,
  };
  const s = blendEpochState(epochState, [declaration(1, 2n)], key(1));
  assert.deepEqual(
    [s.epoch, s.nonce, s.aged, s.lottery0, s.lottery1, s.powDifficulty],
    [7, 11n, epochState.utxos.root(), 17n, 19n, 23n],
  );
  assert.equal(s.membership.localIndex, 0);
  assert.deepEqual(epochPoqInputs(s, { core: 9n, leadership: 2n, pow: 1n }, 29n), {
    core: { zk_root: 29n, quota: 9n },
    leader: {
      pol_ledger_aged: epochState.utxos.root(),
      pol_epoch_nonce: 11n,
      message_quota: 2n,
      lottery_0: 17n,
      lottery_1: 19n,
    },
    pow: { pow_blend_difficulty: 23n, pow_quota: 1n },
  });
});
