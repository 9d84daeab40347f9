/**
 * The Cryptarchia engine: the in-memory block tree above the latest immutable block (LIB), fork choice,
 * LIB tracking and uncle selection (reference/consensus.md §5, §6, §8; F: `consensus/cryptarchia-engine`).
 * Pure and synchronous: no I/O, no clocks, no ledger. Blocks are identified by lowercase hex header ids.
 *
 * Fork choice, run after every received block, is the reference's scan over all fork tips:
 *
 *     cmax = current tip
 *     for each fork tip F ≠ cmax, in order:
 *       L = lca(cmax, F); m = cmax.length − L.length
 *       Online (maxvalid_mc):        switch if m ≤ k and F.length > cmax.length
 *       Bootstrapping (maxvalid_bg): if m ≤ k: switch if F.length > cmax.length
 *                                    else:   switch if density(F) > density(cmax), where density(C) is the
 *                                            number of blocks of C with slot in (L.slot, L.slot + s_gen]
 *
 * Only the blocks of a chain count toward its density, not the uncles they reference (F: `maxvalid_bg`
 * walks the chain back; uncle slots serve uncle selection and stake inference only).
 *
 * Ties keep the current chain. The reference visits fork tips in hash-set order; here (open-questions Q22)
 * they are visited in **arrival order of the tip block**: the tip that has been a leaf the longest comes
 * first, and the block just received (always a tip) comes last. `forkTips()` returns this order.
 *
 * LIB: Online → the k-th ancestor of the tip, or the root of the tree (the oldest block held) when the
 * chain above it is shorter; Bootstrapping → stays where the engine started (genesis, or the LIB passed at
 * a restart). It never moves backwards. When it moves, every block not descending from the new LIB is
 * dropped from the tree: the canonical blocks below it (now immutable: the caller keeps them in storage)
 * and the forks hanging off them (stale: the caller may delete them).
 *
 * Cost: each node keeps one "skip" pointer (the scheme of Bitcoin Core's `CBlockIndex::pskip`), so the
 * ancestor at a given height is found in O(log n) steps, a lowest common ancestor and a density in
 * O(log² n), even for forks diverging deep below the tip while Bootstrapping (when nothing is pruned).
 * Each fork tip's comparison (its LCA with the chain, both densities) is cached and carried over in O(1)
 * while the tip merely grows, so a scan costs O(1) per fork except after a reorg. A tip change also walks
 * the diverging blocks it reports; a LIB move walks the pruned blocks. (100k blocks with 200 deep forks
 * while Bootstrapping: about 1 s.)
 * Heights are JS numbers (exact far beyond any chain length; the skip arithmetic needs < 2^31).
 */

import { LogosError } from '@logos-ts/shared/errors';

export type ConsensusState = 'Bootstrapping' | 'Online';

/** A block of the tree. `length` is the height (genesis 0). */
export interface BlockNode {
  readonly id: string;
  readonly parent: string;
  readonly slot: bigint;
  readonly length: number;
}

/** Why the engine refused: the reference's variant name. */
export type EngineErrorReason =
  /** `receive`: the parent is not in the tree (unknown, or pruned below the LIB). */
  | 'ParentMissing'
  /** `receive`: the block is already in the tree. */
  | 'AlreadyApplied'
  /** `receive`: the slot is before the parent's; `selectUncles`: the slot is not after the parent's. */
  | 'InvalidSlot'
  /** A query named a block that is not in the tree. */
  | 'UnknownBlock'
  /** `ancestors`: `until` is not an ancestor of `from`. */
  | 'NotAncestor'
  /** Constructor: bad parameters. */
  | 'InvalidParams';

/** The error code of each reason: `ENGINE_` + the reason in snake case (`ENGINE_PARENT_MISSING`). */
export type EngineErrorCode =
  | 'ENGINE_PARENT_MISSING'
  | 'ENGINE_ALREADY_APPLIED'
  | 'ENGINE_INVALID_SLOT'
  | 'ENGINE_UNKNOWN_BLOCK'
  | 'ENGINE_NOT_ANCESTOR'
  | 'ENGINE_INVALID_PARAMS';

export class EngineError extends LogosError<{ readonly reason: EngineErrorReason }> {
  declare readonly code: EngineErrorCode;

  constructor(reason: EngineErrorReason, message: string) {
    const code = `ENGINE_${reason.replace(/([a-z])([A-Z])/g, '$1_$2').toUpperCase()}` as EngineErrorCode;
    super(code, message, { meta: { reason } });
  }

  get reason(): EngineErrorReason {
    return this.meta.reason;
  }
}
LogosError.register(EngineError);

export interface ReceiveResult {
  /** Whether the tip moved. */
  readonly tipChanged: boolean;
  /** Blocks that left the canonical chain, oldest first (empty unless the tip switched forks). */
  readonly reverted: BlockNode[];
  /** Blocks that joined the canonical chain, oldest first (the new block when it extends the tip). */
  readonly applied: BlockNode[];
  /** Whether the LIB moved. */
  readonly libChanged: boolean;
  /**
   * Ids removed from the tree: all of `belowLib` and `stale`. Order: the blocks below the new LIB oldest
   * first, each followed by the fork blocks hanging off it (parents before children).
   */
  readonly pruned: string[];
  /** Canonical blocks that fell below the new LIB (the old LIB first): immutable, not to be deleted. */
  readonly belowLib: string[];
  /** Blocks of forks diverging below the new LIB (parents before children): dead, may be deleted. */
  readonly stale: string[];
  /** Blocks that became immutable, oldest first: the canonical chain in (old LIB, new LIB]. */
  readonly finalized: BlockNode[];
  /** The tip and the LIB after the call. */
  readonly tip: BlockNode;
  readonly lib: BlockNode;
}

export interface EngineOptions {
  /** The genesis block (height 0). `parent` defaults to 32 zero bytes. */
  readonly genesis: { readonly id: string; readonly slot: bigint; readonly parent?: string };
  /** Security parameter k (blocks). */
  readonly k: number;
  /** Density window s_gen = floor(k / (4f)) slots. */
  readonly sGen: bigint;
  readonly state: ConsensusState;
  /** On a restart: the known LIB, which becomes the root of the tree (and the first tip) instead of genesis. */
  readonly lib?: BlockNode;
  /** Slots of the uncles the LIB block references (kept for the uncle selection of the blocks above it). */
  readonly libUncleSlots?: readonly bigint[];
}

export interface UncleOptions {
  /** Maximum number of uncles (default `MAX_UNCLES`). */
  readonly max?: number;
}

/** `MAX_UNCLES` of the reference (`consensus/cryptarchia-engine/src/config.rs`). */
export const MAX_UNCLES = 4;

/** 32 zero bytes: the parent of genesis. */
export const ZERO_ID = '0'.repeat(64);

interface Rec {
  readonly node: BlockNode;
  /** Id of the ancestor at height `skipHeight(node.length)`, when that height was ≥ the root's at insertion. */
  readonly skip: string | undefined;
  /** Child ids, in arrival order. */
  readonly children: string[];
  /** Slots of the uncles the block references (slots the uncles of its descendants cannot take). */
  readonly uncles: readonly bigint[];
}

const cmp = <T extends bigint | string>(a: T, b: T): number => (a < b ? -1 : a > b ? 1 : 0);

/** Fork choice's comparison of a fork tip against the chain ending at `anchor` (see `#compare`). */
interface ForkCompare {
  anchor: Rec;
  /** lca(anchor, fork tip). */
  readonly lca: Rec;
  /** `#densityHeight` of the fork tip and of `anchor` relative to `lca`, once computed. */
  densFork: number | undefined;
  densAnchor: number | undefined;
}

/** Clears the lowest set bit. */
const invertLowestOne = (n: number): number => n & (n - 1);

/** Height the skip pointer of a block at `height` points to (Bitcoin Core `GetSkipHeight`). */
function skipHeight(height: number): number {
  if (height < 2) return 0;
  return height & 1 ? invertLowestOne(invertLowestOne(height - 1)) + 1 : invertLowestOne(height);
}

export class CryptarchiaEngine {
  readonly k: number;
  readonly sGen: bigint;
  readonly genesis: BlockNode;
  readonly #nodes = new Map<string, Rec>();
  /** Blocks without children, in arrival order (the fork-choice visiting order). */
  readonly #leaves = new Map<string, BlockNode>();
  /** Per fork tip: its last fork-choice comparison. */
  readonly #compareCache = new Map<string, ForkCompare>();
  #root: Rec;
  #tip: Rec;
  #state: ConsensusState;

  constructor(opts: EngineOptions) {
    if (!Number.isSafeInteger(opts.k) || opts.k < 1)
      throw new EngineError('InvalidParams', `k must be a positive integer, got ${opts.k}`);
    if (typeof opts.sGen !== 'bigint' || opts.sGen < 1n)
      throw new EngineError('InvalidParams', `sGen must be a positive bigint`);
    if (opts.state !== 'Bootstrapping' && opts.state !== 'Online')
      throw new EngineError('InvalidParams', `unknown state ${String(opts.state)}`);
    this.k = opts.k;
    this.sGen = opts.sGen;
    this.#state = opts.state;
    this.genesis = Object.freeze({
      id: opts.genesis.id,
      parent: opts.genesis.parent ?? ZERO_ID,
      slot: opts.genesis.slot,
      length: 0,
    });
    let root = this.genesis;
    if (opts.lib !== undefined) {
      const l = opts.lib;
      if (!Number.isSafeInteger(l.length) || l.length < 0)
        throw new EngineError('InvalidParams', `bad LIB height ${l.length}`);
      root = Object.freeze({ id: l.id, parent: l.parent, slot: l.slot, length: l.length });
    }
    const rec: Rec = { node: root, skip: undefined, children: [], uncles: [...(opts.libUncleSlots ?? [])] };
    this.#nodes.set(root.id, rec);
    this.#leaves.set(root.id, root);
    this.#root = rec;
    this.#tip = rec;
  }

  get state(): ConsensusState {
    return this.#state;
  }

  get tip(): BlockNode {
    return this.#tip.node;
  }

  /** The latest immutable block; also the root of the tree (the oldest block held). */
  get lib(): BlockNode {
    return this.#root.node;
  }

  /** Number of blocks in the tree (LIB included). */
  get size(): number {
    return this.#nodes.size;
  }

  has(id: string): boolean {
    return this.#nodes.has(id);
  }

  get(id: string): BlockNode | undefined {
    return this.#nodes.get(id)?.node;
  }

  /**
   * Adds a block whose parent is in the tree and whose slot is not before the parent's, then runs fork
   * choice and (Online) moves the LIB. `uncleSlots` are the slots of the uncles the block references.
   * Throws `EngineError` (ParentMissing, AlreadyApplied, InvalidSlot) without changing anything.
   * (F `apply_header` only rejects `parent.slot > slot`; the ledger, which runs first, requires a
   * strictly greater slot.)
   */
  receive(id: string, parent: string, slot: bigint, uncleSlots: readonly bigint[] = []): ReceiveResult {
    if (this.#nodes.has(id)) throw new EngineError('AlreadyApplied', `block ${id} is already in the tree`);
    const p = this.#nodes.get(parent);
    if (p === undefined)
      throw new EngineError('ParentMissing', `parent ${parent} of block ${id} is not in the tree`);
    if (typeof slot !== 'bigint' || slot < p.node.slot) {
      throw new EngineError(
        'InvalidSlot',
        `block ${id} has slot ${slot}, before its parent's slot ${p.node.slot}`,
      );
    }
    const length = p.node.length + 1;
    const sh = skipHeight(length);
    const skip = sh >= this.#root.node.length ? this.#ancestorRec(p, sh).node.id : undefined;
    const node: BlockNode = Object.freeze({ id, parent, slot, length });
    this.#nodes.set(id, { node, skip, children: [], uncles: [...uncleSlots] });
    p.children.push(id);
    this.#leaves.delete(parent);
    this.#compareCache.delete(parent);
    this.#leaves.set(id, node);

    const oldTip = this.#tip;
    const best = this.#forkChoice();
    let reverted: BlockNode[] = [];
    let applied: BlockNode[] = [];
    if (best !== oldTip) {
      const l = this.#lcaRec(oldTip, best);
      reverted = this.#branch(oldTip, l).reverse();
      applied = this.#branch(best, l).reverse();
      this.#tip = best;
    }
    return { tipChanged: best !== oldTip, reverted, applied, ...this.#updateLib() };
  }

  /** Switches to Online and recomputes the LIB (it may jump by ~k blocks or more at once). No-op if already Online. */
  setOnline(): ReceiveResult {
    this.#state = 'Online';
    return { tipChanged: false, reverted: [], applied: [], ...this.#updateLib() };
  }

  /**
   * The chain from `from` back to `until` (default: the LIB), both included, newest first. Throws
   * UnknownBlock / NotAncestor.
   */
  ancestors(from: string, until?: string): BlockNode[] {
    const f = this.#need(from);
    const u = until === undefined ? this.#root : this.#need(until);
    if (u.node.length > f.node.length || this.#ancestorRec(f, u.node.length) !== u) {
      throw new EngineError('NotAncestor', `${u.node.id} is not an ancestor of ${from}`);
    }
    const out = this.#branch(f, u);
    out.push(u.node);
    return out;
  }

  /** The ancestor (or self) of `id` at height `length`; undefined if out of [LIB height, height of `id`]. */
  ancestorAt(id: string, length: number): BlockNode | undefined {
    const r = this.#need(id);
    if (!Number.isInteger(length) || length < this.#root.node.length || length > r.node.length)
      return undefined;
    return this.#ancestorRec(r, length).node;
  }

  /** The canonical block at height `length`, if held (LIB height ≤ length ≤ tip height). */
  canonicalAt(length: number): BlockNode | undefined {
    return this.ancestorAt(this.#tip.node.id, length);
  }

  /** Tips of all forks (blocks without children), in fork-choice visiting order (arrival of the tip block). */
  forkTips(): BlockNode[] {
    return [...this.#leaves.values()];
  }

  /** Whether `id` is on the chain of the current tip (LIB to tip). */
  isCanonical(id: string): boolean {
    const r = this.#nodes.get(id);
    if (r === undefined || r.node.length > this.#tip.node.length) return false;
    return this.#ancestorRec(this.#tip, r.node.length) === r;
  }

  /** Slots of the uncles the block references, as received. Throws UnknownBlock. */
  uncleSlots(id: string): readonly bigint[] {
    return this.#need(id).uncles;
  }

  /**
   * The newest block of the chain ending at `id` whose slot is ≤ `slot`, or the oldest block of the tree
   * when every block of the chain held is after `slot` (F `walk_back_before`). Throws UnknownBlock.
   */
  walkBackBefore(id: string, slot: bigint): BlockNode {
    return this.#walkBackBefore(this.#need(id), slot).node;
  }

  /** Lowest common ancestor of two blocks of the tree. Throws UnknownBlock. */
  lca(a: string, b: string): BlockNode {
    return this.#lcaRec(this.#need(a), this.#need(b)).node;
  }

  /**
   * Uncles for a new block on `parent` at `slot` (F `select_uncles`): the first blocks of forks off the
   * parent's chain (their parent is on that chain, they are not) with `uncle.slot < slot`, a parent slot
   * ≥ `slot − windowSlots`, and a slot taken neither by a block of the parent's chain within the window
   * nor by an uncle those blocks reference. Ordered by (parent slot, slot, id); the first one per slot is
   * kept, at most `opts.max` (default 4). Throws UnknownBlock, InvalidSlot (slot ≤ parent's slot).
   */
  selectUncles(parent: string, slot: bigint, windowSlots: bigint, opts: UncleOptions = {}): BlockNode[] {
    const p = this.#need(parent);
    if (slot <= p.node.slot)
      throw new EngineError('InvalidSlot', `slot ${slot} is not after the parent's slot ${p.node.slot}`);
    // F: window_start = slot − window, saturating at 0.
    const windowStart = slot > windowSlots ? slot - windowSlots : 0n;
    const occupied = new Set<bigint>();
    const candidates: { node: BlockNode; parentSlot: bigint }[] = [];
    let cur: Rec = p;
    let onChain: string | undefined;
    while (cur.node.slot >= windowStart) {
      // The chain blocks within the window and their uncles occupy slots (F `collect_chain_within_window`).
      occupied.add(cur.node.slot);
      for (const u of cur.uncles) if (u >= windowStart) occupied.add(u);
      for (const c of cur.children) {
        if (c === onChain) continue;
        const u = this.#nodes.get(c)!.node;
        if (u.slot < slot) candidates.push({ node: u, parentSlot: cur.node.slot });
      }
      if (cur === this.#root) break;
      onChain = cur.node.id;
      cur = this.#nodes.get(cur.node.parent)!;
    }
    candidates.sort(
      (a, b) => cmp(a.parentSlot, b.parentSlot) || cmp(a.node.slot, b.node.slot) || cmp(a.node.id, b.node.id),
    );
    const max = opts.max ?? MAX_UNCLES;
    const taken = new Set<bigint>();
    const out: BlockNode[] = [];
    for (const { node } of candidates) {
      if (out.length >= max) break;
      if (occupied.has(node.slot) || taken.has(node.slot)) continue;
      taken.add(node.slot);
      out.push(node);
    }
    return out;
  }

  // ---- internals ----

  #need(id: string): Rec {
    const r = this.#nodes.get(id);
    if (r === undefined) throw new EngineError('UnknownBlock', `block ${id} is not in the tree`);
    return r;
  }

  #parentRec(r: Rec): Rec {
    return this.#nodes.get(r.node.parent)!;
  }

  /**
   * The ancestor-or-self of `r` at `height` (root height ≤ height ≤ r's height). Follows skip pointers
   * (Bitcoin Core `GetAncestor`): O(log n). A skip pointer below the current root is never followed,
   * since only heights ≥ the target are jumped to.
   */
  #ancestorRec(r: Rec, height: number): Rec {
    let walk = r;
    let h = r.node.length;
    while (h > height) {
      const hs = skipHeight(h);
      const hsPrev = skipHeight(h - 1);
      if (
        walk.skip !== undefined &&
        (hs === height || (hs > height && !(hsPrev < hs - 2 && hsPrev >= height)))
      ) {
        walk = this.#nodes.get(walk.skip)!;
        h = hs;
      } else {
        walk = this.#parentRec(walk);
        h--;
      }
    }
    return walk;
  }

  #lcaRec(a: Rec, b: Rec): Rec {
    const h = Math.min(a.node.length, b.node.length);
    let x = this.#ancestorRec(a, h);
    let y = this.#ancestorRec(b, h);
    // Near forks are the common case: a few plain steps first. (Two distinct blocks of the same height are
    // both above the root, so their parents are in the tree.)
    for (let i = 0; i < 16 && x !== y; i++) {
      x = this.#parentRec(x);
      y = this.#parentRec(y);
    }
    if (x === y) return x;
    // Binary search: the ancestors agree at `lo` and differ at `hi`.
    let lo = this.#root.node.length;
    let hi = x.node.length;
    while (hi - lo > 1) {
      const mid = lo + Math.floor((hi - lo) / 2);
      if (this.#ancestorRec(x, mid) === this.#ancestorRec(y, mid)) lo = mid;
      else hi = mid;
    }
    return this.#ancestorRec(x, lo);
  }

  /**
   * The newest ancestor-or-self of `chain` with slot ≤ `slot`, or the root when there is none. Slots never
   * decrease along a chain, so a binary search over heights finds it.
   */
  #walkBackBefore(chain: Rec, slot: bigint): Rec {
    if (chain.node.slot <= slot) return chain;
    if (this.#root.node.slot > slot) return this.#root;
    let lo = this.#root.node.length; // its slot ≤ `slot`
    let hi = chain.node.length; // its slot > `slot`
    while (hi - lo > 1) {
      const mid = lo + Math.floor((hi - lo) / 2);
      if (this.#ancestorRec(chain, mid).node.slot <= slot) lo = mid;
      else hi = mid;
    }
    return this.#ancestorRec(chain, lo);
  }

  /**
   * Height of the chain ending at `chain` "walked back to slot lca.slot + s_gen" (F `maxvalid_bg`); minus
   * lca's height it is the density of the chain after lca.
   */
  #densityHeight(chain: Rec, lca: Rec): number {
    return this.#walkBackBefore(chain, lca.node.slot + this.sGen).node.length;
  }

  #forkChoice(): Rec {
    let cmax = this.#tip;
    const online = this.#state === 'Online';
    // inferred: fork tips are visited in arrival order of the tip block; F iterates a hash set (docs/design/fidelity.md)
    for (const leaf of this.#leaves.values()) {
      if (leaf.id === cmax.node.id) continue;
      const f = this.#nodes.get(leaf.id)!;
      if (online && f.node.length <= cmax.node.length) continue; // cannot win: skip the LCA
      const c = this.#compare(cmax, f);
      const m = cmax.node.length - c.lca.node.length;
      if (m <= this.k) {
        if (f.node.length > cmax.node.length) cmax = f;
      } else if (!online) {
        c.densFork ??= this.#densityHeight(f, c.lca);
        c.densAnchor ??= this.#densityHeight(cmax, c.lca);
        if (c.densFork > c.densAnchor) cmax = f;
      }
    }
    return cmax;
  }

  /**
   * The comparison record of fork tip `f` against `cmax`. Reused when `cmax` is the block it was made for
   * or a child of it (the tip grew by one block): the LCA is then unchanged unless `f` descends from `cmax`,
   * the fork's density is unchanged, and the chain's density is updated in O(1). Otherwise recomputed.
   * This keeps a scan over many forks O(1) per fork while the tip just grows (Bootstrapping keeps every
   * fork since the starting LIB).
   */
  #compare(cmax: Rec, f: Rec): ForkCompare {
    let c = this.#compareCache.get(f.node.id);
    if (c !== undefined && c.anchor !== cmax) {
      const a = c.anchor;
      const grown =
        this.#nodes.get(cmax.node.parent) === a &&
        !(f.node.length > cmax.node.length && this.#ancestorRec(f, cmax.node.length) === cmax);
      if (grown) {
        if (c.densAnchor !== undefined) {
          const bound = c.lca.node.slot + this.sGen;
          if (cmax.node.slot <= bound) c.densAnchor = cmax.node.length;
          else if (a.node.slot <= bound) c.densAnchor = a.node.length;
        }
        c.anchor = cmax;
      } else {
        c = undefined;
      }
    }
    if (c === undefined) {
      c = { anchor: cmax, lca: this.#lcaRec(cmax, f), densFork: undefined, densAnchor: undefined };
      this.#compareCache.set(f.node.id, c);
    }
    return c;
  }

  /** Blocks from `from` (included) down to the ancestor `until` (excluded), newest first. */
  #branch(from: Rec, until: Rec): BlockNode[] {
    const out: BlockNode[] = [];
    for (let r = from; r !== until; r = this.#parentRec(r)) out.push(r.node);
    return out;
  }

  #updateLib(): Omit<ReceiveResult, 'tipChanged' | 'reverted' | 'applied'> {
    const none = {
      libChanged: false,
      pruned: [],
      belowLib: [],
      stale: [],
      finalized: [],
      tip: this.#tip.node,
      lib: this.#root.node,
    };
    if (this.#state !== 'Online') return none;
    const target = this.#tip.node.length - this.k;
    if (target <= this.#root.node.length) return none;
    // In Online every fork diverges at or above the LIB, so the tip descends from it and the LIB moves forward.
    const newLib = this.#ancestorRec(this.#tip, target);
    const path = this.#branch(newLib, this.#root).reverse(); // (old LIB, new LIB], oldest first
    const below: Rec[] = [this.#root];
    for (let i = 0; i < path.length - 1; i++) below.push(this.#nodes.get(path[i]!.id)!);
    const pruned: string[] = [];
    const belowLib: string[] = [];
    const stale: string[] = [];
    for (let i = 0; i < below.length; i++) {
      const r = below[i]!;
      const next = i + 1 < below.length ? below[i + 1]! : newLib;
      pruned.push(r.node.id);
      belowLib.push(r.node.id);
      this.#remove(r);
      for (const c of r.children) if (c !== next.node.id) this.#removeSubtree(c, pruned, stale);
    }
    this.#root = newLib;
    return {
      libChanged: true,
      pruned,
      belowLib,
      stale,
      finalized: path,
      tip: this.#tip.node,
      lib: newLib.node,
    };
  }

  #remove(r: Rec): void {
    this.#nodes.delete(r.node.id);
    this.#leaves.delete(r.node.id);
    this.#compareCache.delete(r.node.id);
  }

  /** Removes `id` and its descendants, recording them parents first (preorder, children in arrival order). */
  #removeSubtree(id: string, pruned: string[], stale: string[]): void {
    const stack = [id];
    while (stack.length > 0) {
      const r = this.#nodes.get(stack.pop()!)!;
      this.#remove(r);
      pruned.push(r.node.id);
      stale.push(r.node.id);
      for (let i = r.children.length - 1; i >= 0; i--) stack.push(r.children[i]!);
    }
  }
}
