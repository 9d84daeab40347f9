/**
 * One epoch's Blend processor on a membership of three core nodes (insecure test proofs): a message
 * wrapped by one node is valid for every node, opened by the node its proof of selection designates
 * only, and refused — so that the swarm blocks its sender — when a byte of it is changed, when its proof
 * of quota was made for another epoch's inputs, or when it claims a key index beyond the quota (the
 * last index within it is accepted and relayed, the one beyond neither delivered nor relayed); the
 * same proof of quota gives the same message id (a replay is a duplicate).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { blendEpochState } from '../../../src/blend/membership.ts';
import { encapsulatedMessageSize, PayloadType } from '../../../src/blend/message/index.ts';
import { EpochProcessor, type LayerProof } from '../../../src/blend/processor.ts';
import { EpochQuotaCounter } from '../../../src/blend/quota.ts';
import { ed25519PublicKey } from '../../../src/crypto/ed25519.ts';
import { frToBytes } from '../../../src/crypto/field.ts';
import { zkPublicKey } from '../../../src/crypto/zk-keys.ts';
import { devnetSecretKey } from '../../../src/ledger/devnet-keys.ts';
import type { Declaration, EpochState } from '../../../src/ledger/state.ts';
import { locatorFromString } from '../../../src/mantle/locator.ts';
import { INSECURE_TEST_PROOFS } from '../../../src/zk/insecure-test-proofs.ts';
import { stateWith } from '../../mocks/ledger.ts';
import { hubWithRaws, type RawPeer, stopAll, stopper, until } from './network/harness.ts';

const NODES = [0, 1, 2].map((i) => ({
  seed: frToBytes(devnetSecretKey(1002 + 3 * i)),
  zk: devnetSecretKey(1001 + 3 * i),
}));

function epochState(epoch: number, nonce: bigint): EpochState {
  return {
    ...stateWith({}).epoch_state,
    epoch,
    nonce,
    lottery: { t0: 3n, t1: 4n },
    blend_pow_difficulty: 1n << 240n,
  };
}

const declarations: Declaration[] = NODES.map((n, i) => ({
  service_type: 'BN',
  provider_id: ed25519PublicKey(n.seed),
  service_note_id: BigInt(i + 1),
  locators: [locatorFromString(`/ip4/127.0.0.1/udp/${4400 + i}/quic-v1`)],
  zk_id: zkPublicKey(n.zk),
  created: 0,
  active: 0,
  withdraw_at: null,
  nonce: 0n,
}));

function processors(layers: number, epoch = 5, nonce = 99n, core = 10n): EpochProcessor[] {
  return NODES.map((n) => {
    const state = blendEpochState(epochState(epoch, nonce), declarations, ed25519PublicKey(n.seed));
    return new EpochProcessor(
      state,
      layers,
      new EpochQuotaCounter(epoch, { core, leadership: 2n, pow: BigInt(layers) }),
      { signingSeed: n.seed, signingPublic: ed25519PublicKey(n.seed), zkSecret: n.zk },
      { prover: INSECURE_TEST_PROOFS, verifier: INSECURE_TEST_PROOFS },
    );
  });
}

/** The node a layer proof designates. */
function recipientOf(p: LayerProof, ps: EpochProcessor[]): number {
  return ps.findIndex((q) =>
    q.state.membership.members[q.state.membership.localIndex!]!.publicKey.every(
      (b, i) => b === p.input.recipientSigningKey[i],
    ),
  );
}

describe('Blend epoch processor', () => {
  test('a one-layer message is valid everywhere and opened by its designated node only', async () => {
    const ps = processors(1);
    const proof = (await ps[0]!.proveLayer('core', {}))!;
    const body = new TextEncoder().encode('a proposal');
    const bytes = ps[0]!.wrap(PayloadType.BlockProposal, body, [proof]);
    const r = recipientOf(proof, ps);
    assert.ok(r >= 0);
    for (const p of ps) assert.equal(await p.verify(bytes), 'valid');
    for (const [i, p] of ps.entries()) {
      const out = await p.unwrap(bytes);
      if (i !== r) {
        assert.equal(out.kind, 'not-for-us');
        continue;
      }
      assert.equal(out.kind, 'payload');
      if (out.kind !== 'payload') continue;
      assert.equal(out.payloadType, PayloadType.BlockProposal);
      assert.deepEqual(out.body, body);
      assert.equal(out.tokens.length, 1);
      assert.deepEqual(out.tokens[0]!.signing_key, ed25519PublicKey(proof.ephemeralSigningKey));
    }
  });

  /**
   * Layer proofs of node 1 (all its core quota) and the pairs of them whose first hops are two
   * different nodes and one same node: the designated node follows from the key index, so both kinds
   * are picked out rather than left to the first two proofs.
   */
  async function layerPairs(ps: EpochProcessor[]) {
    const proofs: LayerProof[] = [];
    for (let p = await ps[1]!.proveLayer('core', {}); p !== null; p = await ps[1]!.proveLayer('core', {}))
      proofs.push(p);
    assert.equal(proofs.length, 10, 'the whole core quota is proved');
    const pairs = proofs.flatMap((a, i) => proofs.slice(i + 1).map((b) => [a, b] as const));
    const apart = pairs.find(([a, b]) => recipientOf(a, ps) !== recipientOf(b, ps));
    // Ten proofs over three nodes: two of them designate the same node.
    const together = pairs.find(([a, b]) => recipientOf(a, ps) === recipientOf(b, ps));
    assert.ok(apart && together, 'the quota holds both kinds of pair');
    return { apart, together };
  }

  test('two layers: the first node forwards what the second opens', async () => {
    const ps = processors(2);
    const { apart } = await layerPairs(ps);
    const proofs = [...apart];
    const bytes = ps[1]!.wrap(PayloadType.Transaction, new Uint8Array([1, 2, 3]), proofs);
    // The last input is the first hop.
    const first = recipientOf(proofs[1]!, ps);
    const second = recipientOf(proofs[0]!, ps);
    assert.notEqual(first, second);
    assert.equal(
      await ps[second]!.unwrap(bytes).then((o) => o.kind),
      'not-for-us',
      'the second hop cannot open it yet',
    );
    const out = await ps[first]!.unwrap(bytes);
    assert.equal(out.kind, 'forward');
    if (out.kind !== 'forward') return;
    assert.equal(out.message.length, bytes.length, 'a forwarded message keeps its size');
    assert.equal(await ps[second]!.verify(out.message), 'valid');
    const last = await ps[second]!.unwrap(out.message);
    assert.equal(last.kind, 'payload');
    if (last.kind !== 'payload') return;
    assert.deepEqual(last.body, new Uint8Array([1, 2, 3]));
    assert.equal(last.payloadType, PayloadType.Transaction);
  });

  test('two layers for one node: it removes both at once', async () => {
    const ps = processors(2);
    const { together } = await layerPairs(ps);
    const bytes = ps[1]!.wrap(PayloadType.Transaction, new Uint8Array([1, 2, 3]), [...together]);
    const out = await ps[recipientOf(together[1], ps)]!.unwrap(bytes);
    assert.equal(out.kind, 'payload');
    if (out.kind !== 'payload') return;
    assert.equal(out.tokens.length, 2);
    assert.deepEqual(out.body, new Uint8Array([1, 2, 3]));
  });

  test('a changed byte, another epoch: refused; a replay has the same id', async () => {
    const ps = processors(1);
    const proof = (await ps[0]!.proveLayer('core', {}))!;
    const bytes = ps[0]!.wrap(PayloadType.Cover, new Uint8Array(0), [proof]);

    const tampered = bytes.slice();
    tampered[300] = tampered[300]! ^ 1;
    assert.equal(await ps[1]!.verify(tampered), 'invalid_header_signature');
    assert.equal(ps[1]!.messageId(new Uint8Array(10)), null, 'not a message of this size');

    const other = processors(1, 6, 100n);
    assert.equal(await other[1]!.verify(bytes), 'invalid_proof_of_quota', "another epoch's inputs");

    assert.equal(ps[1]!.messageId(bytes), ps[2]!.messageId(bytes));
    const again = ps[0]!.wrap(PayloadType.Cover, new Uint8Array(0), [proof]);
    assert.equal(ps[1]!.messageId(again), ps[1]!.messageId(bytes), 'one proof of quota, one message id');
  });

  test('the last message of the core quota is accepted and relayed; one beyond it is refused, blocks its sender and goes nowhere', async () => {
    // The epoch's core quota is 2: key indices 0 and 1. The sender's last message (index 1) is within
    // it; a sender that claims a quota of 3 makes a third (index 2), whose proof is for other public
    // inputs than the epoch's.
    const ps = processors(1, 5, 99n, 2n);
    const sender = ps[0]!;
    const first = (await sender.proveLayer('core', {}))!;
    assert.ok(first);
    const last = (await sender.proveLayer('core', {}))!;
    assert.equal(await sender.proveLayer('core', {}), null, 'an honest sender stops at its quota');
    assert.equal(await sender.proveLayer('core', {}, {}, 2), null, 'nor does it prove index 2 on request');
    const overSender = processors(1, 5, 99n, 3n)[0]!;
    for (let i = 0; i < 2; i++) assert.ok(await overSender.proveLayer('core', {}));
    const beyond = (await overSender.proveLayer('core', {}))!;
    const atQuota = sender.wrap(PayloadType.Cover, new Uint8Array(0), [last]);
    const overQuota = overSender.wrap(PayloadType.Cover, new Uint8Array(0), [beyond]);

    const receiver = ps[1]!;
    assert.equal(await receiver.verify(atQuota), 'valid');
    assert.equal(await receiver.verify(overQuota), 'invalid_proof_of_quota');

    // Through a core node's swarm: the sender and another core peer are raw peers of its.
    const { hub, raws, blocked } = await hubWithRaws(2, {
      messageBytes: encapsulatedMessageSize(1),
      validator: {
        messageId: (bytes) => receiver.messageId(bytes),
        verify: (bytes) => receiver.verify(bytes),
      },
    });
    const [from, other] = raws as [RawPeer, RawPeer];
    try {
      from.send(atQuota);
      await until(() => other.frames.length === 1, 3_000, 'the message at the quota relayed');
      assert.deepEqual(other.frames[0], atQuota);
      assert.deepEqual(
        hub.received.map((r) => r.from),
        [from.peerId],
      );

      from.send(overQuota);
      await until(() => blocked.length === 1, 3_000, 'the sender blocked');
      assert.deepEqual(blocked, [[from.peerId, 'invalid_proof_of_quota']]);
      assert.equal(hub.received.length, 1, 'the message beyond the quota is not delivered');
      // A message the hub sends now reaches `other` on the stream a relay of the refused one would
      // have taken before it: once it is there, nothing else came.
      const later = sender.wrap(PayloadType.Cover, new Uint8Array(0), [first]);
      assert.equal(hub.swarm.publish(later), 1);
      await until(() => other.frames.length === 2, 3_000, 'the later message');
      assert.deepEqual(other.frames, [atQuota, later], 'the message beyond the quota is not relayed');
      assert.deepEqual(from.frames, [], 'nothing goes back to the sender');
    } finally {
      await stopAll([stopper(hub), from, other]);
    }
  });

  test('the core quota hands out its key indices once per epoch', async () => {
    const ps = processors(1, 5, 99n, 2n);
    assert.ok(await ps[0]!.proveLayer('core', {}));
    assert.ok(await ps[0]!.proveLayer('core', {}));
    assert.equal(await ps[0]!.proveLayer('core', {}), null);
  });
});
