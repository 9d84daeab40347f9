import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  type BlockNode,
  type ConsensusState,
  CryptarchiaEngine,
  EngineError,
  MAX_UNCLES,
  type ReceiveResult,
  ZERO_ID,
} from '../../../src/consensus/engine.ts';

/** Readable lowercase-hex ids: the hex of a short name. */
const h = (name: string): string => Buffer.from(name, 'utf8').toString('hex');
const G = h('g');

function engine(k: number, state: ConsensusState, sGen = 1000n): CryptarchiaEngine {
  return new CryptarchiaEngine({ genesis: { id: G, slot: 0n }, k, sGen, state });
}

/** Receives `name` on `parent` (names, not ids). */
function add(e: CryptarchiaEngine, name: string, parent: string, slot: number): ReceiveResult {
  return e.receive(h(name), parent === 'g' ? G : h(parent), BigInt(slot));
}

/** Receives a chain of blocks `${prefix}${i}` for i in [from, to], slot = i + slotOffset, on `parent`. */
function chain(
  e: CryptarchiaEngine,
  prefix: string,
  parent: string,
  from: number,
  to: number,
  slotOffset = 0,
): void {
  let p = parent;
  for (let i = from; i <= to; i++) {
    add(e, `${prefix}${i}`, p, i + slotOffset);
    p = `${prefix}${i}`;
  }
}

const names = (nodes: readonly BlockNode[]): string[] =>
  nodes.map((n) => Buffer.from(n.id, 'hex').toString('utf8'));
const idNames = (ids: readonly string[]): string[] =>
  ids.map((id) => Buffer.from(id, 'hex').toString('utf8'));
const tipName = (e: CryptarchiaEngine): string => names([e.tip])[0]!;
const libName = (e: CryptarchiaEngine): string => names([e.lib])[0]!;

function assertEngineError(fn: () => unknown, code: string): void {
  assert.throws(fn, (err: unknown) => err instanceof EngineError && err.code === code);
}

describe('CryptarchiaEngine basics', () => {
  test('starts at genesis', () => {
    const e = engine(3, 'Online');
    assert.deepEqual(e.tip, { id: G, parent: ZERO_ID, slot: 0n, length: 0 });
    assert.equal(e.lib, e.tip);
    assert.equal(e.state, 'Online');
    assert.equal(e.size, 1);
    assert.deepEqual(e.forkTips(), [e.tip]);
  });

  test('extending the tip', () => {
    const e = engine(10, 'Online');
    const r = add(e, 'a1', 'g', 1);
    assert.equal(r.tipChanged, true);
    assert.deepEqual(names(r.applied), ['a1']);
    assert.deepEqual(r.reverted, []);
    assert.equal(r.libChanged, false);
    assert.deepEqual(r.pruned, []);
    assert.deepEqual(e.get(h('a1')), { id: h('a1'), parent: G, slot: 1n, length: 1 });
    assert.equal(r.tip, e.tip);
    assert.equal(r.lib, e.lib);
  });

  test('errors change nothing', () => {
    const e = engine(2, 'Online');
    chain(e, 'a', 'g', 1, 5);
    add(e, 'b5', 'a4', 7);
    const before = { tip: e.tip, lib: e.lib, size: e.size, tips: e.forkTips() };
    assertEngineError(() => add(e, 'x', 'nope', 10), 'ENGINE_PARENT_MISSING');
    assertEngineError(() => add(e, 'x', 'a1', 10), 'ENGINE_PARENT_MISSING'); // a1 is below the LIB: pruned
    assertEngineError(() => add(e, 'a5', 'a4', 9), 'ENGINE_ALREADY_APPLIED');
    assertEngineError(() => add(e, 'a3', 'a5', 9), 'ENGINE_ALREADY_APPLIED'); // checked before the parent
    assertEngineError(() => add(e, 'x', 'a5', 4), 'ENGINE_INVALID_SLOT');
    assertEngineError(() => add(e, 'x', 'a5', 0), 'ENGINE_INVALID_SLOT');
    assert.deepEqual({ tip: e.tip, lib: e.lib, size: e.size, tips: e.forkTips() }, before);
    assert.equal(e.has(h('x')), false);
    assertEngineError(() => e.lca(h('x'), G), 'ENGINE_UNKNOWN_BLOCK');
    assertEngineError(() => e.ancestors(h('a5'), h('b5')), 'ENGINE_NOT_ANCESTOR');
    assertEngineError(
      () => new CryptarchiaEngine({ genesis: { id: G, slot: 0n }, k: 0, sGen: 1n, state: 'Online' }),
      'ENGINE_INVALID_PARAMS',
    );
  });

  test('queries: ancestors, lca, isCanonical, forkTips order, ancestorAt', () => {
    const e = engine(10, 'Online');
    chain(e, 'a', 'g', 1, 5);
    add(e, 'b3', 'a2', 13);
    add(e, 'c4', 'a3', 24);
    add(e, 'b4', 'b3', 14);
    assert.deepEqual(names(e.ancestors(h('a5'))), ['a5', 'a4', 'a3', 'a2', 'a1', 'g']);
    assert.deepEqual(names(e.ancestors(h('b4'), h('a1'))), ['b4', 'b3', 'a2', 'a1']);
    assert.deepEqual(names(e.ancestors(h('a2'), h('a2'))), ['a2']);
    assert.deepEqual(names([e.lca(h('b4'), h('c4'))]), ['a2']);
    assert.deepEqual(names([e.lca(h('a5'), h('c4'))]), ['a3']);
    assert.deepEqual(names([e.lca(h('a5'), h('a2'))]), ['a2']);
    assert.deepEqual(names([e.lca(h('a5'), h('a5'))]), ['a5']);
    assert.equal(e.isCanonical(h('a3')), true);
    assert.equal(e.isCanonical(G), true);
    assert.equal(e.isCanonical(h('b3')), false);
    assert.equal(e.isCanonical(h('zz')), false);
    // Arrival order of the tip block: a5 (leaf since its arrival), c4, b4.
    assert.deepEqual(names(e.forkTips()), ['a5', 'c4', 'b4']);
    assert.deepEqual(names([e.ancestorAt(h('b4'), 2)!]), ['a2']);
    assert.equal(e.ancestorAt(h('b4'), 5), undefined);
    assert.deepEqual(names([e.canonicalAt(4)!]), ['a4']);
  });

  test('ancestorAt and lca on long chains (skip pointers) agree with walking', () => {
    const e = engine(5000, 'Bootstrapping', 10n);
    chain(e, 'a', 'g', 1, 3000);
    add(e, 'f', 'a7', 3001);
    chain(e, 'b', 'a1234', 1235, 2500, 5000);
    const walk = e.ancestors(h('a3000')); // newest first
    for (const len of [0, 1, 2, 3, 7, 64, 1023, 1024, 1025, 2047, 2999, 3000]) {
      assert.equal(e.ancestorAt(h('a3000'), len), walk[3000 - len]);
    }
    assert.deepEqual(names([e.lca(h('a3000'), h('b2500'))]), ['a1234']);
    assert.deepEqual(names([e.lca(h('b2500'), h('f'))]), ['a7']);
    assert.deepEqual(names([e.lca(h('b1500'), h('a2999'))]), ['a1234']);
  });
});

describe('fork choice, Online (maxvalid_mc)', () => {
  test('the longer chain wins within k; reverted/applied oldest first', () => {
    const e = engine(10, 'Online');
    chain(e, 'a', 'g', 1, 5);
    chain(e, 'b', 'a3', 4, 5, 10); // b4, b5: as long as a5 → tie keeps a5
    assert.equal(tipName(e), 'a5');
    const r = add(e, 'b6', 'b5', 16);
    assert.equal(r.tipChanged, true);
    assert.equal(tipName(e), 'b6');
    assert.deepEqual(names(r.reverted), ['a4', 'a5']);
    assert.deepEqual(names(r.applied), ['b4', 'b5', 'b6']);
    assert.equal(e.isCanonical(h('a4')), false);
    assert.equal(e.isCanonical(h('b4')), true);
    // Back to the a branch once it is longer again.
    add(e, 'a6', 'a5', 17);
    const r2 = add(e, 'a7', 'a6', 18);
    assert.deepEqual(names(r2.reverted), ['b4', 'b5', 'b6']);
    assert.deepEqual(names(r2.applied), ['a4', 'a5', 'a6', 'a7']);
  });

  test('ties keep the current tip', () => {
    const e = engine(10, 'Online');
    chain(e, 'a', 'g', 1, 3);
    const r = add(e, 'b3', 'a2', 30);
    assert.equal(r.tipChanged, false);
    assert.deepEqual(r.applied, []);
    assert.equal(tipName(e), 'a3');
    add(e, 'c1', 'g', 40);
    add(e, 'c2', 'c1', 41);
    add(e, 'c3', 'c2', 42);
    assert.equal(tipName(e), 'a3');
    assert.deepEqual(names(e.forkTips()), ['a3', 'b3', 'c3']);
  });

  test('a fork diverging exactly k blocks below the tip (at the LIB) can win; deeper forks are gone', () => {
    const k = 3;
    const e = engine(k, 'Online');
    chain(e, 'a', 'g', 1, 6); // LIB = a3
    assert.equal(libName(e), 'a3');
    // Fork off the LIB: m = 6 − 3 = 3 = k → adopted once longer.
    chain(e, 'b', 'a3', 4, 6, 10);
    assert.equal(tipName(e), 'a6');
    const r = add(e, 'b7', 'b6', 17);
    assert.equal(tipName(e), 'b7');
    assert.deepEqual(names(r.reverted), ['a4', 'a5', 'a6']);
    assert.equal(libName(e), 'b4');
    assert.deepEqual(idNames(r.stale), ['a4', 'a5', 'a6']);
    // A fork below the LIB: its parent was pruned, so the block cannot even attach.
    assertEngineError(() => add(e, 'c3', 'a2', 50), 'ENGINE_PARENT_MISSING');
    assertEngineError(() => add(e, 'a7', 'a6', 50), 'ENGINE_PARENT_MISSING');
  });

  test('a fork deeper than k that is longer is not adopted once Online (pruned at the switch)', () => {
    // Bootstrapping keeps the deep fork; it is denser for the dense chain, so the dense chain is kept.
    const e = engine(2, 'Bootstrapping', 10n);
    chain(e, 'a', 'g', 1, 6); // slots 1..6: dense
    chain(e, 'b', 'g', 1, 8, 20); // slots 21..28: longer, empty window (0, 10]
    assert.equal(tipName(e), 'a6');
    const r = e.setOnline();
    assert.equal(libName(e), 'a4');
    assert.deepEqual(idNames(r.stale), ['b1', 'b2', 'b3', 'b4', 'b5', 'b6', 'b7', 'b8']);
    assertEngineError(() => add(e, 'b9', 'b8', 29), 'ENGINE_PARENT_MISSING');
    assert.equal(tipName(e), 'a6');
  });
});

describe('fork choice, Bootstrapping (maxvalid_bg)', () => {
  test('beyond k a longer but sparser fork loses to the denser chain', () => {
    const e = engine(2, 'Bootstrapping', 10n);
    chain(e, 'a', 'g', 1, 5); // slots 1..5 → 5 blocks in (0, 10]
    chain(e, 'b', 'g', 1, 2, 8); // slots 9, 10 → 2 in window
    chain(e, 'b', 'b2', 3, 9, 20); // slots 23..29 → still 2 in window; length 9 > 5
    assert.equal(tipName(e), 'a5');
    assert.equal(e.lib.id, G);
  });

  test('beyond k a shorter but denser fork wins', () => {
    const e = engine(2, 'Bootstrapping', 10n);
    chain(e, 's', 'g', 1, 6, 9); // slots 10..15: one block (slot 10) in (0, 10]
    assert.equal(tipName(e), 's6');
    const r1 = add(e, 'd1', 'g', 1); // density 1 vs 1: tie keeps s6
    assert.equal(r1.tipChanged, false);
    const r2 = add(e, 'd2', 'd1', 2); // density 2 > 1: switch although 2 < 6
    assert.equal(r2.tipChanged, true);
    assert.equal(tipName(e), 'd2');
    assert.deepEqual(names(r2.reverted), ['s1', 's2', 's3', 's4', 's5', 's6']);
    assert.deepEqual(names(r2.applied), ['d1', 'd2']);
  });

  test('the density window is (lca.slot, lca.slot + sGen]', () => {
    const e = engine(1, 'Bootstrapping', 10n);
    chain(e, 'a', 'g', 1, 2, 100); // base: a1 (101), a2 (102)
    add(e, 'x1', 'a2', 103);
    add(e, 'x2', 'x1', 112); // lca a2: window (102, 112] holds x1, x2
    add(e, 'x3', 'x2', 113); // outside
    add(e, 'y1', 'a2', 104);
    add(e, 'y2', 'y1', 105); // y: 2 in window, shorter: m = 3 > 1, tie on density → keep x
    assert.equal(tipName(e), 'x3');
    add(e, 'y3', 'y2', 106); // y: 3 > 2 → switch
    assert.equal(tipName(e), 'y3');
  });

  test('within k the longest chain wins, density aside', () => {
    const e = engine(10, 'Bootstrapping', 10n);
    chain(e, 'a', 'g', 1, 5);
    chain(e, 'b', 'g', 1, 6, 20);
    assert.equal(tipName(e), 'b6');
  });

  test('ties keep the current tip', () => {
    const e = engine(10, 'Bootstrapping', 10n);
    chain(e, 'a', 'g', 1, 4);
    chain(e, 'b', 'g', 1, 4, 10);
    assert.equal(tipName(e), 'a4');
  });
});

describe('latest immutable block', () => {
  test('Online: the k-th ancestor of the tip, pruning the blocks below it', () => {
    const e = engine(3, 'Online');
    for (let i = 1; i <= 3; i++) {
      const r = add(e, `a${i}`, i === 1 ? 'g' : `a${i - 1}`, i);
      assert.equal(r.libChanged, false);
      assert.equal(e.lib.id, G);
    }
    const r4 = add(e, 'a4', 'a3', 4);
    assert.equal(r4.libChanged, true);
    assert.equal(libName(e), 'a1');
    assert.deepEqual(r4.pruned, [G]);
    assert.deepEqual(r4.belowLib, [G]);
    assert.deepEqual(names(r4.finalized), ['a1']);
    assert.equal(e.has(G), false);
    assert.deepEqual(names(e.ancestors(h('a4'))), ['a4', 'a3', 'a2', 'a1']);
    chain(e, 'a', 'a4', 5, 9);
    assert.equal(libName(e), 'a6');
    assert.equal(e.size, 4);
  });

  test('Online: forks diverging below the new LIB are pruned, parents first', () => {
    const e = engine(3, 'Online');
    chain(e, 'a', 'g', 1, 3);
    add(e, 'b2', 'a1', 12);
    add(e, 'c3', 'b2', 13);
    add(e, 'd3', 'b2', 14);
    add(e, 'f2', 'a1', 16);
    add(e, 'x1', 'g', 17);
    assert.equal(tipName(e), 'a3');
    const r4 = add(e, 'a4', 'a3', 4); // LIB a1: x1 (off genesis) goes, the forks off a1 stay
    assert.deepEqual(idNames(r4.pruned), ['g', 'x1']);
    assert.deepEqual(idNames(r4.stale), ['x1']);
    assert.equal(e.has(h('b2')), true);
    add(e, 'e4', 'c3', 15); // as long as a4: a4 stays
    assert.equal(tipName(e), 'a4');
    const r5 = add(e, 'a5', 'a4', 5); // LIB a2
    assert.deepEqual(idNames(r5.pruned), ['a1', 'b2', 'c3', 'e4', 'd3', 'f2']);
    assert.deepEqual(idNames(r5.belowLib), ['a1']);
    assert.deepEqual(idNames(r5.stale), ['b2', 'c3', 'e4', 'd3', 'f2']);
    assert.deepEqual(names(r5.finalized), ['a2']);
    assert.deepEqual(names(e.forkTips()), ['a5']);
    assert.equal(e.size, 4);
  });

  test('Bootstrapping: stays put; setOnline jumps to the k-th ancestor and prunes', () => {
    const e = engine(3, 'Bootstrapping');
    chain(e, 'a', 'g', 1, 10);
    add(e, 'b2', 'a1', 20);
    add(e, 'c8', 'a7', 21);
    assert.equal(e.lib.id, G);
    assert.equal(e.size, 13);
    const r = e.setOnline();
    assert.equal(e.state, 'Online');
    assert.equal(r.tipChanged, false);
    assert.equal(r.libChanged, true);
    assert.equal(libName(e), 'a7');
    assert.deepEqual(idNames(r.pruned), ['g', 'a1', 'b2', 'a2', 'a3', 'a4', 'a5', 'a6']);
    assert.deepEqual(idNames(r.stale), ['b2']);
    assert.deepEqual(names(r.finalized), ['a1', 'a2', 'a3', 'a4', 'a5', 'a6', 'a7']);
    assert.equal(e.has(h('c8')), true); // diverges at the LIB
    // Idempotent.
    const again = e.setOnline();
    assert.equal(again.libChanged, false);
    assert.deepEqual(again.pruned, []);
  });

  test('setOnline with a chain shorter than k keeps the root', () => {
    const e = engine(5, 'Bootstrapping');
    chain(e, 'a', 'g', 1, 4);
    const r = e.setOnline();
    assert.equal(r.libChanged, false);
    assert.equal(e.lib.id, G);
  });

  test('restart from a known LIB', () => {
    const lib: BlockNode = { id: h('L'), parent: h('P'), slot: 500n, length: 100 };
    const e = new CryptarchiaEngine({ genesis: { id: G, slot: 0n }, k: 2, sGen: 10n, state: 'Online', lib });
    assert.deepEqual(e.tip, lib);
    assert.deepEqual(e.lib, lib);
    assert.equal(e.genesis.id, G);
    chain(e, 'a', 'L', 101, 102, 400);
    assert.equal(e.tip.length, 102);
    assert.equal(libName(e), 'L');
    const r = add(e, 'a103', 'a102', 503);
    assert.deepEqual(idNames(r.pruned), ['L']);
    assert.equal(libName(e), 'a101');
    assert.equal(e.ancestorAt(e.tip.id, 100), undefined);
    assert.deepEqual(names([e.canonicalAt(101)!]), ['a101']);
    assertEngineError(() => add(e, 'x', 'P', 600), 'ENGINE_PARENT_MISSING');
  });
});

describe('uncles', () => {
  // Canonical chain g(0) a1(10) a2(20) a3(30) a4(40), and forks off it.
  function tree(): CryptarchiaEngine {
    const e = engine(100, 'Online');
    for (let i = 1; i <= 4; i++) add(e, `a${i}`, i === 1 ? 'g' : `a${i - 1}`, i * 10);
    add(e, 'u1', 'g', 5);
    add(e, 'u2b', 'a1', 15);
    add(e, 'u2a', 'a1', 15); // same slot as u2b, smaller id
    add(e, 'u3', 'a2', 25);
    add(e, 'u3c', 'u3', 28); // not the first block of its fork
    add(e, 'u4', 'a3', 36);
    add(e, 'u5', 'a3', 34);
    add(e, 'x', 'a1', 30); // slot taken by a3
    assert.equal(tipName(e), 'a4');
    return e;
  }

  test('window, ordering, one per slot, at most 4', () => {
    const e = tree();
    // Window 40 from slot 50: uncle parents need slot ≥ 10, so u1 (parent g at 0) is out.
    assert.deepEqual(names(e.selectUncles(h('a4'), 50n, 40n)), ['u2a', 'u3', 'u5', 'u4']);
    // Window 50 lets u1 in first; the limit drops the last one.
    assert.deepEqual(names(e.selectUncles(h('a4'), 50n, 50n)), ['u1', 'u2a', 'u3', 'u5']);
    assert.equal(MAX_UNCLES, 4);
    assert.deepEqual(names(e.selectUncles(h('a4'), 50n, 50n, { max: 10 })), ['u1', 'u2a', 'u3', 'u5', 'u4']);
    // Window 20: only parents at slot ≥ 30 (a3, a4).
    assert.deepEqual(names(e.selectUncles(h('a4'), 50n, 20n)), ['u5', 'u4']);
    // Window boundary: slot − parent.slot ≤ window.
    assert.deepEqual(names(e.selectUncles(h('a4'), 50n, 19n)), []);
  });

  test('slots occupied by uncles of ancestors within the window are skipped', () => {
    const e = tree();
    e.receive(h('a5'), h('a4'), 45n, [5n, 25n]);
    assert.deepEqual(e.uncleSlots(h('a5')), [5n, 25n]);
    assert.deepEqual(names(e.selectUncles(h('a5'), 50n, 50n)), ['u2a', 'u5', 'u4']);
    // Window 30 from slot 50: a1 (slot 10) is before the window, so its child u2a is not a candidate.
    const f = tree();
    f.receive(h('a5'), h('a4'), 45n);
    assert.deepEqual(names(f.selectUncles(h('a5'), 50n, 30n)), ['u3', 'u5', 'u4']);
  });

  test('uncles are older than the new block, never on its chain, and siblings count', () => {
    const e = tree();
    add(e, 's', 'a3', 45); // a sibling of a4
    // A new block on a3 at slot 35: u4 (36) is not older; a4 and s are too new; u5 is in.
    assert.deepEqual(names(e.selectUncles(h('a3'), 35n, 100n, { max: 10 })), ['u1', 'u2a', 'u3', 'u5']);
    // A new block on a4 at slot 50 sees the sibling s.
    assert.deepEqual(names(e.selectUncles(h('a4'), 50n, 30n, { max: 10 })), ['u3', 'u5', 'u4', 's']);
    // Building on a fork block: the canonical a2.. become uncle candidates of that chain.
    // (x at slot 30 is off this chain now, and comes before a3 at the same slot.)
    assert.deepEqual(names(e.selectUncles(h('u3c'), 50n, 100n, { max: 10 })), ['u1', 'u2a', 'x']);
    assertEngineError(() => e.selectUncles(h('a4'), 40n, 10n), 'ENGINE_INVALID_SLOT');
    assertEngineError(() => e.selectUncles(h('zz'), 40n, 10n), 'ENGINE_UNKNOWN_BLOCK');
  });
});

// ---- randomized differential test against a naive model ----

/** splitmix64-style PRNG over 32-bit state (mulberry32): reproducible. */
function rng(seed: number): (n: number) => number {
  let a = seed >>> 0;
  return (n: number) => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (((t ^ (t >>> 14)) >>> 0) / 4294967296) * n;
  };
}

interface MNode {
  id: string;
  parent: string;
  slot: bigint;
  length: number;
}

/** A deliberately naive engine: plain parent walks, full scans, pruning by reachability. */
class Model {
  nodes = new Map<string, MNode>();
  leaves: string[] = [];
  root: MNode;
  tip: MNode;
  constructor(
    readonly k: number,
    readonly sGen: bigint,
    public state: ConsensusState,
  ) {
    this.root = { id: G, parent: ZERO_ID, slot: 0n, length: 0 };
    this.nodes.set(G, this.root);
    this.leaves = [G];
    this.tip = this.root;
  }
  chain(id: string): MNode[] {
    const out: MNode[] = [];
    for (let n: MNode | undefined = this.nodes.get(id); n; n = this.nodes.get(n.parent)) out.push(n);
    return out; // newest first, down to the root
  }
  lca(a: string, b: string): MNode {
    const ids = new Set(this.chain(a).map((n) => n.id));
    return this.chain(b).find((n) => ids.has(n.id))!;
  }
  density(tip: string, l: MNode): number {
    return this.chain(tip).filter((n) => n.slot > l.slot && n.slot <= l.slot + this.sGen).length;
  }
  receive(id: string, parent: string, slot: bigint): void {
    const p = this.nodes.get(parent)!;
    this.nodes.set(id, { id, parent, slot, length: p.length + 1 });
    this.leaves = this.leaves.filter((x) => x !== parent);
    this.leaves.push(id);
    let cmax = this.tip;
    for (const leaf of this.leaves) {
      if (leaf === cmax.id) continue;
      const f = this.nodes.get(leaf)!;
      const l = this.lca(cmax.id, leaf);
      const m = cmax.length - l.length;
      if (m <= this.k) {
        if (f.length > cmax.length) cmax = f;
      } else if (this.state === 'Bootstrapping' && this.density(leaf, l) > this.density(cmax.id, l)) {
        cmax = f;
      }
    }
    this.tip = cmax;
    this.updateLib();
  }
  updateLib(): void {
    if (this.state !== 'Online') return;
    const c = this.chain(this.tip.id);
    const target = this.tip.length - this.k;
    if (target <= this.root.length) return;
    const lib = c.find((n) => n.length === target)!;
    const keep = new Set<string>();
    for (const n of this.nodes.values()) if (this.chain(n.id).some((x) => x.id === lib.id)) keep.add(n.id);
    for (const id of [...this.nodes.keys()]) if (!keep.has(id)) this.nodes.delete(id);
    this.leaves = this.leaves.filter((x) => keep.has(x));
    this.root = lib;
  }
}

function checkInvariants(e: CryptarchiaEngine, startLib: number): void {
  const tips = e.forkTips();
  assert.ok(
    tips.some((t) => t.id === e.tip.id),
    'the tip is a leaf',
  );
  assert.equal(e.ancestors(e.tip.id).at(-1)!.id, e.lib.id, 'the LIB is an ancestor of the tip');
  for (const t of tips) {
    const anc = e.ancestors(t.id); // throws unless the LIB is an ancestor
    assert.equal(anc.at(-1)!.id, e.lib.id);
  }
  if (e.state === 'Online') {
    for (const t of tips) {
      const l = e.lca(e.tip.id, t.id);
      assert.ok(e.tip.length - l.length <= e.k, 'every fork is within k of the tip');
      assert.ok(t.length <= e.tip.length, 'no longer fork within k');
    }
    assert.equal(e.lib.length, Math.max(startLib, e.tip.length - e.k));
  } else {
    assert.equal(e.lib.length, startLib);
  }
}

describe('randomized', () => {
  // 24 short runs (either state, switching Online at a random step), then 4 long Bootstrapping runs
  // (deep trees: skip pointers, cached comparisons, density reorgs far down).
  const runs = [
    ...Array.from({ length: 24 }, (_, i) => ({ seed: i + 1, steps: 300, long: false })),
    ...Array.from({ length: 4 }, (_, i) => ({ seed: 1000 + i, steps: 600, long: true })),
  ];
  for (const { seed, steps, long } of runs) {
    test(`random trees and arrivals, seed ${seed}, ${steps} steps`, () => {
      const r = rng(seed);
      const k = 1 + Math.floor(r(long ? 40 : 6));
      const sGen = BigInt(2 + Math.floor(r(long ? 60 : 20)));
      const startState: ConsensusState = long || r(3) >= 1 ? 'Bootstrapping' : 'Online';
      const goOnlineAt = startState === 'Bootstrapping' ? Math.floor(r(long ? steps : 250)) : -1;
      const e = new CryptarchiaEngine({ genesis: { id: G, slot: 0n }, k, sGen, state: startState });
      const model = new Model(k, sGen, startState);
      const canonical = new Set<string>([G]); // maintained from reverted/applied
      const held = new Set<string>([G]); // maintained from pruned
      let lib = e.lib;
      let next = 0;
      for (let step = 0; step < steps; step++) {
        if (step === goOnlineAt) {
          const res = e.setOnline();
          model.state = 'Online';
          model.updateLib();
          for (const p of res.pruned) {
            assert.ok(held.delete(p));
            canonical.delete(p);
          }
          if (res.libChanged) assert.equal(res.finalized.length, e.lib.length - lib.length);
          lib = e.lib;
          assert.equal(e.lib.id, model.root.id);
        }
        const all = [...model.nodes.values()];
        // Mostly extend the tip or a recent block; sometimes any block (deep forks).
        const pick = r(10);
        const [tipBelow, recentBelow] = long ? [6, 9.6] : [4, 8];
        const parent =
          pick < tipBelow
            ? model.tip
            : pick < recentBelow
              ? all[Math.max(0, all.length - 1 - Math.floor(r(6)))]!
              : all[Math.floor(r(all.length))]!;
        const slot = parent.slot + 1n + BigInt(Math.floor(r(pick < recentBelow ? 3 : 12)));
        const id = (++next).toString(16).padStart(8, '0');
        // Bad inputs now and then: nothing changes.
        if (r(10) < 1) {
          const snapshot = { tip: e.tip, lib: e.lib, size: e.size };
          assertEngineError(() => e.receive(id, parent.id, parent.slot - 1n), 'ENGINE_INVALID_SLOT');
          assertEngineError(() => e.receive(parent.id, parent.id, slot), 'ENGINE_ALREADY_APPLIED');
          assertEngineError(() => e.receive(id, 'ffff', slot), 'ENGINE_PARENT_MISSING');
          assert.deepEqual({ tip: e.tip, lib: e.lib, size: e.size }, snapshot);
        }
        const oldTip = e.tip;
        const res = e.receive(id, parent.id, slot);
        model.receive(id, parent.id, slot);
        held.add(id);
        // Same tip, LIB and node set as the naive model.
        assert.equal(e.tip.id, model.tip.id, `tip at step ${step}`);
        assert.equal(e.lib.id, model.root.id, `lib at step ${step}`);
        assert.deepEqual(
          e.forkTips().map((t) => t.id),
          model.leaves,
        );
        // Reorg lists reproduce the canonical chain.
        assert.equal(res.tipChanged, oldTip.id !== e.tip.id);
        for (const b of res.reverted) assert.ok(canonical.delete(b.id));
        for (const b of res.applied) canonical.add(b.id);
        for (const p of res.pruned) {
          assert.ok(held.delete(p));
          canonical.delete(p);
        }
        assert.deepEqual(new Set(res.pruned), new Set([...res.belowLib, ...res.stale]));
        assert.equal(held.size, e.size);
        const full = !long || step % 50 === 0 || step === steps - 1; // whole-tree checks
        if (full) {
          for (const x of held) assert.ok(e.has(x));
          assert.deepEqual(new Set(e.ancestors(e.tip.id).map((n) => n.id)), canonical);
          for (const x of held) assert.equal(e.isCanonical(x), canonical.has(x));
        }
        // The LIB never moves backwards.
        assert.ok(e.lib.length >= lib.length);
        if (res.libChanged) {
          assert.equal(res.finalized.at(-1)!.id, e.lib.id);
          assert.equal(res.finalized.length, e.lib.length - lib.length);
        } else assert.equal(e.lib.id, lib.id);
        lib = e.lib;
        if (full) checkInvariants(e, 0);
        // Spot-check the skip-pointer queries against the naive model.
        const any = [...held][Math.floor(r(held.size))]!;
        assert.equal(e.lca(any, e.tip.id).id, model.lca(any, model.tip.id).id);
      }
    });
  }
});

describe('uncles do not count toward density', () => {
  test('beyond k while Bootstrapping, uncle slots do not make a fork denser (F maxvalid_bg)', () => {
    const build = (withUncle: boolean) => {
      const e = new CryptarchiaEngine({
        genesis: { id: 'g', slot: 0n },
        k: 2,
        sGen: 100n,
        state: 'Bootstrapping',
      });
      e.receive('a1', 'g', 1n);
      e.receive('a2', 'a1', 2n);
      e.receive('a3', 'a2', 3n);
      e.receive('a4', 'a3', 4n);
      e.receive('b1', 'g', 5n);
      e.receive('b2', 'b1', 6n);
      e.receive('b3', 'b2', 7n);
      e.receive('b4', 'b3', 10n, withUncle ? [9n] : []);
      return e.tip.id;
    };
    assert.equal(build(false), 'a4', 'equal density keeps the current chain');
    assert.equal(build(true), 'a4', 'an uncle slot in the window does not count');
  });
});
