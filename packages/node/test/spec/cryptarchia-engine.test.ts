/**
 * The unit tests of the reference engine (`consensus/cryptarchia-engine/src/lib.rs` at F), ported with the
 * same trees and expectations. Block ids: the reference uses `hash(i)` of integers (opaque) or the integers
 * themselves (uncle tests, where the id order matters); here both are the 32-byte big-endian hex of the
 * integer, so the id order is the integer order. The reference's `Config` is built from (k, f = 1/10) or,
 * in the uncle tests, from a window in slots; this engine takes k, s_gen = floor(k / (4f)) and the window
 * in slots directly.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type BlockNode, CryptarchiaEngine, EngineError, MAX_UNCLES } from '../../src/consensus/engine.ts';
import { DEFAULT_CONSENSUS, epochSchedule } from '../../src/ledger/parameters.ts';

/** The id of integer `n` (32 bytes, big-endian hex). */
const id = (n: number | bigint): string => BigInt(n).toString(16).padStart(64, '0');
/** The id of a name (its UTF-8 hex, padded): for the blocks the reference names by a string. */
const named = (s: string): string => Buffer.from(s, 'utf8').toString('hex').padStart(64, '0');

/** `config_with(k)`: f = 1/10, so s_gen = floor(k / 0.4). */
function engineWith(k: number, state: 'Bootstrapping' | 'Online' = 'Bootstrapping'): CryptarchiaEngine {
  return new CryptarchiaEngine({
    genesis: { id: id(0), slot: 0n },
    k,
    sGen: BigInt(Math.floor((k * 10) / 4)),
    state,
  });
}

/** `create_canonical_chain(length, config_with(k))`: b0 (LIB) … b(length−1), block i at slot i. */
function canonicalChain(length: number, k = 1): CryptarchiaEngine {
  const e = engineWith(k);
  for (let i = 1; i < length; i++) {
    const r = e.receive(id(i), id(i - 1), BigInt(i));
    assert.deepEqual(r.reverted, [], 'no reorgs should happen in a canonical chain');
  }
  return e;
}

function assertEngineError(fn: () => unknown, code: string): void {
  assert.throws(fn, (err: unknown) => err instanceof EngineError && err.code === code);
}

const tipIds = (e: CryptarchiaEngine): Set<string> => new Set(e.forkTips().map((t) => t.id));
const range = (from: number, to: number): string[] =>
  Array.from({ length: to - from + 1 }, (_, i) => id(from + i));

describe('cryptarchia-engine lib.rs tests', () => {
  test('test_slot_increasing (consensus/cryptarchia-engine/src/lib.rs)', () => {
    const e = engineWith(1);
    e.receive(id(1), id(0), 2n);
    assertEngineError(() => e.receive(id(2), id(1), 1n), 'ENGINE_INVALID_SLOT');
  });

  test('lca_with_branch_outside_the_tree (consensus/cryptarchia-engine/src/lib.rs)', () => {
    // b0(LIB) - b1 - b2      c0 (a separate tree): no common ancestor in this tree.
    const e = canonicalChain(3);
    const other = new CryptarchiaEngine({
      genesis: { id: id(100), slot: 0n },
      k: 1,
      sGen: 2n,
      state: 'Bootstrapping',
    });
    assert.equal(other.has(id(100)), true);
    assertEngineError(() => e.lca(id(2), id(100)), 'ENGINE_UNKNOWN_BLOCK');
  });

  test('walk_back_before_stops_at_the_oldest_block (consensus/cryptarchia-engine/src/lib.rs)', () => {
    // b0(LIB, slot 5) - b1(slot 6)
    const e = new CryptarchiaEngine({
      genesis: { id: id(0), slot: 0n },
      k: 1,
      sGen: 2n,
      state: 'Bootstrapping',
      lib: { id: id(0), parent: id(0), slot: 5n, length: 0 },
    });
    e.receive(id(1), id(0), 6n);
    // Slot 0 precedes the oldest block, so the walk stops there.
    assert.equal(e.walkBackBefore(id(1), 0n).id, id(0));
  });

  test('walk_back_to_block_outside_the_tree (consensus/cryptarchia-engine/src/lib.rs)', () => {
    // b0(LIB) - b1 - b2: walking back from b2 ends at the oldest block.
    const e = canonicalChain(3);
    assert.deepEqual(
      e.ancestors(id(2)).map((n) => n.id),
      [id(2), id(1), id(0)],
    );
    // This engine reports a target outside the tree instead of walking to the oldest block.
    assertEngineError(() => e.ancestors(id(2), id(100)), 'ENGINE_UNKNOWN_BLOCK');
  });

  test('test_immutable_fork (consensus/cryptarchia-engine/src/lib.rs)', () => {
    // b0(LIB) - b1 - b2, then Online: b1(LIB) - b2.
    const e = canonicalChain(3, 1);
    const r = e.setOnline();
    assert.equal(e.lib.id, id(1));
    assert.deepEqual(r.belowLib, [id(0)]);
    // A fork from the pruned b0 fails with ParentMissing.
    assertEngineError(() => e.receive(id(3), id(0), 1n), 'ENGINE_PARENT_MISSING');
  });

  test('test_fork_choice (consensus/cryptarchia-engine/src/lib.rs)', () => {
    // A low k triggers the density rule, and the shorter chain is denser after the fork.
    const k = 10;
    const sGen = 25; // floor(10 / (4 · 1/10))
    const initialHeight = 49;
    const e = canonicalChain(initialHeight + 1, k);
    const origTip = e.tip.id;
    /** Every block received after the canonical chain, in order (to replay them). */
    const received: [string, string, bigint][] = [];
    const receive = (bid: string, parent: string, slot: number) => {
      received.push([bid, parent, BigInt(slot)]);
      return e.receive(bid, parent, BigInt(slot));
    };
    let longP = origTip;
    let shortP = origTip;
    // The node first sees the short chain (not too dense: a denser one comes later).
    for (let slot = initialHeight; slot < initialHeight + sGen; slot++) {
      if (slot % 2 === 0) {
        const b = named(`short-${slot}`);
        assert.deepEqual(receive(b, shortP, slot).reverted, []);
        shortP = b;
      }
    }
    assert.equal(e.tip.id, shortP);
    // Then a longer chain, which is however less dense after the fork.
    for (let slot = initialHeight; slot < initialHeight + sGen; slot++) {
      if (slot % 3 === 0) {
        const b = named(`long-${slot}`);
        assert.deepEqual(receive(b, longP, slot).reverted, []);
        longP = b;
      }
      assert.equal(e.tip.id, shortP);
    }
    // However long it grows, the long chain is never accepted: it is not dense enough.
    for (let slot = initialHeight + sGen; slot < initialHeight + 2 * sGen; slot++) {
      const b = named(`long-${slot}`);
      assert.deepEqual(receive(b, longP, slot).reverted, []);
      longP = b;
      assert.equal(e.tip.id, shortP);
    }

    // With k set to the fork's length it is accepted: maxvalid_bg from the short chain over the same
    // tree picks the long chain (here: the same blocks received by an engine with that k).
    const longLength = e.get(longP)!.length;
    const wide = engineWith(longLength);
    for (let i = 1; i <= initialHeight; i++) wide.receive(id(i), id(i - 1), BigInt(i));
    for (const [b, p, s] of received) wide.receive(b, p, s);
    assert.equal(wide.tip.id, longP);

    // A new denser chain becomes the tip (its first block is at the slot of its parent b49).
    let parent = origTip;
    const tipHeight = e.tip.length;
    for (let slot = initialHeight; slot <= tipHeight; slot++) {
      const b = named(`dense-${slot}`);
      const r = e.receive(b, parent, BigInt(slot));
      if (slot < tipHeight) {
        assert.deepEqual(r.reverted, []);
      } else {
        // The last block triggers the reorg: the short chain, newest (its tip) first in the reference.
        const reorged = [...r.reverted].reverse();
        assert.equal(reorged[0]!.id, shortP);
        assert.equal(reorged.length, tipHeight - initialHeight);
        let expectedParent = origTip;
        for (const n of r.reverted) {
          assert.equal(n.parent, expectedParent);
          expectedParent = n.id;
        }
      }
      parent = b;
    }
    assert.equal(e.tip.id, parent);
  });

  test('test_getters (consensus/cryptarchia-engine/src/lib.rs)', () => {
    const e = engineWith(1);
    const id0 = e.lib.id;
    const b = e.get(id0);
    assert.ok(b);
    assert.deepEqual(b, e.lib);
    assert.equal(b.id, id(0));
    assert.equal(b.slot, 0n);
    assert.equal(b.length, 0);
    assert.equal(0n + 10n, 10n); // Slot::genesis().strict_add(10) == 10
    assert.equal(e.get(id(100)), undefined, 'id_100 should not be related to this branch');
  });

  test('pruning_too_back_in_time (consensus/cryptarchia-engine/src/lib.rs)', () => {
    // b0(LIB) - b1 - ... - b49, k = 50, and a fork b100 from genesis.
    const e = canonicalChain(50, 50);
    const r0 = e.receive(id(100), id(0), 1n);
    assert.deepEqual(r0.pruned, [], 'no block is pruned during Bootstrapping');
    // Online: the LIB stays (the chain is shorter than k), nothing is pruned.
    const r1 = e.setOnline();
    assert.equal(e.lib.id, id(0));
    assert.deepEqual(r1.pruned, []);
    assert.ok(tipIds(e).has(id(100)));
    assert.ok(e.has(id(100)));
    // Two new blocks on the honest chain: the LIB moves to b1 and blocks are pruned.
    const r2 = e.receive(id(50), id(49), 50n);
    assert.deepEqual(r2.pruned, []);
    const r3 = e.receive(id(51), id(50), 51n);
    assert.equal(e.lib.id, id(1));
    assert.deepEqual(new Set(r3.stale), new Set([id(100)]));
    assert.ok(!tipIds(e).has(id(100)));
    assert.ok(!e.has(id(100)));
    assert.deepEqual(r3.belowLib, [id(0)]);
    assert.ok(!tipIds(e).has(id(0)));
    assert.ok(!e.has(id(0)));
  });

  test('pruning_with_no_stale_fork (consensus/cryptarchia-engine/src/lib.rs)', () => {
    // b0(LIB) - ... - b40 - ... - b49, k = 10, and b100 on b40.
    const e = canonicalChain(50, 10);
    const r0 = e.receive(id(100), id(40), 41n);
    assert.deepEqual(r0.pruned, []);
    const r = e.setOnline();
    assert.equal(e.lib.id, id(39));
    assert.deepEqual(r.stale, []);
    assert.ok(tipIds(e).has(id(100)));
    assert.ok(e.has(id(100)));
    assert.deepEqual(new Set(r.belowLib), new Set(range(0, 38)));
  });

  test('pruning_with_no_forks (consensus/cryptarchia-engine/src/lib.rs)', () => {
    // b0 - ... - b48(LIB) - b49, k = 1.
    const e = canonicalChain(50, 1);
    const r = e.setOnline();
    assert.equal(e.lib.id, id(48));
    assert.deepEqual(r.stale, []);
    assert.deepEqual(new Set(r.belowLib), new Set(range(0, 47)));
  });

  test('pruning_with_single_stale_fork (consensus/cryptarchia-engine/src/lib.rs)', () => {
    // b0(LIB) - ... - b38 - b39 - b40 - ... - b49, k = 10; forks b100 on b38, b101 on b39, b102 on b40.
    const e = canonicalChain(50, 10);
    e.receive(id(100), id(38), 39n);
    e.receive(id(101), id(39), 40n);
    const r0 = e.receive(id(102), id(40), 41n);
    assert.deepEqual(r0.pruned, []);
    const r = e.setOnline();
    assert.equal(e.lib.id, id(39));
    assert.deepEqual(new Set(r.stale), new Set([id(100)]));
    assert.ok(!tipIds(e).has(id(100)));
    assert.ok(!e.has(id(100)));
    for (const x of [101, 102]) {
      assert.ok(tipIds(e).has(id(x)));
      assert.ok(e.has(id(x)));
    }
    assert.deepEqual(new Set(r.belowLib), new Set(range(0, 38)));
  });

  test('pruning_with_multiple_stale_forks (consensus/cryptarchia-engine/src/lib.rs)', () => {
    // b100 and b200 on b38, b101 on b39; k = 10.
    const e = canonicalChain(50, 10);
    e.receive(id(100), id(38), 39n);
    e.receive(id(200), id(38), 39n);
    const r0 = e.receive(id(101), id(39), 40n);
    assert.deepEqual(r0.pruned, []);
    const r = e.setOnline();
    assert.equal(e.lib.id, id(39));
    assert.deepEqual(new Set(r.stale), new Set([id(100), id(200)]));
    for (const x of [100, 200]) {
      assert.ok(!tipIds(e).has(id(x)));
      assert.ok(!e.has(id(x)));
    }
    assert.ok(tipIds(e).has(id(101)));
    assert.ok(e.has(id(101)));
    assert.deepEqual(new Set(r.belowLib), new Set(range(0, 38)));
  });

  test('pruning_stale_fork_with_multiple_tips (consensus/cryptarchia-engine/src/lib.rs)', () => {
    // b100 on b38, b101 and b200 on b100; k = 10.
    const e = canonicalChain(50, 10);
    e.receive(id(100), id(38), 39n);
    e.receive(id(101), id(100), 40n);
    const r0 = e.receive(id(200), id(100), 41n);
    assert.deepEqual(r0.pruned, []);
    const r = e.setOnline();
    assert.equal(e.lib.id, id(39));
    assert.deepEqual(new Set(r.stale), new Set([id(100), id(101), id(200)]));
    assert.ok(!tipIds(e).has(id(101)));
    assert.ok(!e.has(id(100)));
    assert.ok(!e.has(id(101)));
    assert.ok(!tipIds(e).has(id(200)));
    assert.ok(!e.has(id(200)));
    assert.deepEqual(new Set(r.belowLib), new Set(range(0, 38)));
  });

  test('pruning_forks_when_receive_block (consensus/cryptarchia-engine/src/lib.rs)', () => {
    // Online chain b0 - ... - b7(LIB) - b8 - b9 with k = 2.
    const e = canonicalChain(10, 2);
    const r0 = e.setOnline();
    assert.equal(e.lib.id, id(7));
    assert.deepEqual(r0.stale, []);
    assert.deepEqual(new Set(r0.belowLib), new Set(range(0, 6)));
    // A fork at the LIB: nothing pruned.
    const r1 = e.receive(id(100), e.lib.id, e.lib.slot + 1n);
    assert.equal(e.lib.id, id(7));
    assert.deepEqual(r1.pruned, []);
    assert.ok(tipIds(e).has(id(100)) && e.has(id(100)));
    // A fork above the LIB, at the tip's slot: nothing pruned.
    const r2 = e.receive(id(101), e.tip.parent, e.tip.slot);
    assert.equal(e.lib.id, id(7));
    assert.deepEqual(r2.pruned, []);
    assert.ok(tipIds(e).has(id(100)) && e.has(id(100)));
    assert.ok(tipIds(e).has(id(101)) && e.has(id(101)));
    // A block on the tip moves the LIB to b8: the fork b100 goes.
    const r3 = e.receive(id(102), e.tip.id, e.tip.slot + 1n);
    assert.equal(e.lib.id, id(8));
    assert.deepEqual(new Set(r3.stale), new Set([id(100)]));
    assert.ok(!tipIds(e).has(id(100)) && !e.has(id(100)));
    assert.ok(tipIds(e).has(id(101)) && e.has(id(101)));
    assert.ok(tipIds(e).has(id(102)) && e.has(id(102)));
    assert.deepEqual(r3.belowLib, [id(7)]);
  });
});

describe('cryptarchia-engine lib.rs uncle_tests', () => {
  type Spec = readonly [id: number, parent: number, slot: number, uncleSlots?: readonly number[]];

  /** `build_tree_with_uncle_slots(window, genesis, blocks)`: Bootstrapping, genesis at slot 0. */
  function buildTree(genesis: number, blocks: readonly Spec[]): CryptarchiaEngine {
    const e = new CryptarchiaEngine({
      genesis: { id: id(genesis), slot: 0n },
      k: 10,
      sGen: 25n,
      state: 'Bootstrapping',
    });
    for (const [b, p, s, u] of blocks) e.receive(id(b), id(p), BigInt(s), (u ?? []).map(BigInt));
    return e;
  }

  const select = (e: CryptarchiaEngine, parent: number, slot: number, window: number): string[] =>
    e.selectUncles(id(parent), BigInt(slot), BigInt(window)).map((n: BlockNode) => n.id);

  test('select_uncles_honors_the_window (consensus/cryptarchia-engine/src/lib.rs)', () => {
    const [g, b1, b2, u1, u2, u3, u4] = [0, 1, 2, 3, 4, 5, 6];
    const e = buildTree(g, [
      [b1, g, 8],
      [b2, b1, 10],
      [u1, g, 7],
      [u2, g, 8],
      [u3, b1, 9],
      [u4, b1, 11],
    ]);
    assert.deepEqual(select(e, b2, 11, 3), [id(u3)]);
  });

  test('select_uncles_selects_nothing_with_the_minimum_window (consensus/cryptarchia-engine/src/lib.rs)', () => {
    const [g, b1, b2, u1, u2, u3] = [0, 1, 2, 3, 4, 5];
    const e = buildTree(g, [
      [b1, g, 9],
      [b2, b1, 10],
      [u1, g, 9],
      [u2, b1, 10],
      [u3, b2, 11],
    ]);
    assert.deepEqual(select(e, b1, 11, 1), []);
  });

  test('select_uncles_takes_at_most_max_uncles (consensus/cryptarchia-engine/src/lib.rs)', () => {
    const [g, b1, u1, u2, u3, u4, u5] = [0, 1, 2, 3, 4, 5, 6];
    const e = buildTree(g, [
      [b1, g, 6],
      [u1, g, 1],
      [u2, g, 2],
      [u3, g, 3],
      [u4, g, 4],
      [u5, g, 5],
    ]);
    assert.equal(MAX_UNCLES, 4);
    assert.deepEqual(select(e, b1, 7, 10), [id(u1), id(u2), id(u3), id(u4)]);
  });

  test('select_uncles_takes_only_first_block_of_forks (consensus/cryptarchia-engine/src/lib.rs)', () => {
    const [g, b1, u1, u2] = [0, 1, 2, 3];
    const e = buildTree(g, [
      [b1, g, 6],
      [u1, g, 1],
      [u2, u1, 2],
    ]);
    assert.deepEqual(select(e, b1, 7, 10), [id(u1)]);
  });

  test('select_uncles_skips_occupied_slots (consensus/cryptarchia-engine/src/lib.rs)', () => {
    const [g, b1, b3, b4, u1, u2, u3, u4] = [0, 1, 2, 3, 4, 5, 6, 7];
    const e = buildTree(g, [
      [b1, g, 5],
      [b3, b1, 7, [6]],
      [b4, b3, 8],
      [u1, b1, 6],
      [u2, b1, 7],
      [u3, b3, 8],
      [u4, b4, 9],
    ]);
    assert.deepEqual(select(e, b4, 10, 5), [id(u4)]);
  });

  test('select_uncles_takes_one_uncle_per_slot (consensus/cryptarchia-engine/src/lib.rs)', () => {
    const [g, b1, b2, u1, u2, u3] = [0, 1, 2, 3, 4, 5];
    const e = buildTree(g, [
      [b1, g, 6],
      [b2, b1, 8],
      [u1, b1, 10],
      [u2, b2, 9],
      [u3, b2, 10],
    ]);
    assert.deepEqual(select(e, b2, 11, 15), [id(u1), id(u2)]);
  });

  test('select_uncles_ordering (consensus/cryptarchia-engine/src/lib.rs)', () => {
    const [g, b1, b2, u1, u2, u3, u4] = [0, 1, 2, 3, 4, 5, 6];
    const e = buildTree(g, [
      [b1, g, 3],
      [b2, b1, 4],
      [u1, b1, 6],
      [u2, b1, 5],
      [u3, b2, 7],
      [u4, b2, 7],
    ]);
    assert.deepEqual(select(e, b2, 8, 10), [id(u2), id(u1), id(u3)]);
  });
});

test('test_config (consensus/cryptarchia-engine/src/config.rs)', () => {
  const s = epochSchedule({
    ...DEFAULT_CONSENSUS,
    security_param: 10,
    active_slot_coeff: { num: 1n, den: 5n },
    stake_inference_learning_rate: { num: 1n, den: 10n },
    uncle_reference_window_in_blocks: 12,
  });
  assert.equal(s.base_period, 50n);
  assert.equal(s.uncle_window_slots, 60n);
  assert.equal(s.s_gen, 12n);
});
