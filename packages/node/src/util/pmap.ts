/**
 * A persistent (immutable, structurally shared) hash map: a CHAMP-style hash array mapped trie.
 *
 * Layout. A branch node holds two 32-bit bitmaps over the 32 possible 5-bit hash fragments at its
 * level: `datamap` marks fragments holding one entry inline, `nodemap` fragments holding a child node.
 * Its `content` array stores the inline entries first, as `key, value` pairs in fragment order, then
 * the children in fragment order. Levels consume the hash from the low bits up (shifts 0, 5, ..., 30;
 * the last level has only 2 bits); keys whose full 32-bit hashes are equal end up, below the last
 * level, in a collision node: a flat `key, value, key, value, ...` array searched linearly.
 *
 * Canonical form. An entry is inline exactly when no other key of the node's subtree shares its
 * fragment; a child node always holds at least two entries (deleting down to one entry moves that
 * entry back up into the parent, repeatedly). So the trie's shape is a function of the set of keys,
 * and iteration (per node: inline entries in fragment order, then children in fragment order) is a
 * function of the map's contents only — except inside a collision node, which keeps its entries in
 * insertion order (of the keys currently present; overwriting a value keeps the position).
 *
 * Updates copy only the nodes on the path to the changed entry (at most 8). `withMutations` runs a
 * batch with an owner token: nodes created by the batch carry the token and are then updated in place
 * (the array is still reallocated when its length changes, so no array keeps growth slack); nodes of
 * the source map never carry it, so the source map is never modified, even when the batch throws.
 */

export interface KeyKind<K> {
  /** A 32-bit integer hash (only the low 32 bits are used). */
  hash(key: K): number;
  equals(a: K, b: K): boolean;
}

/** Final avalanche step (a bijection on 32-bit integers), so that structured keys spread over the trie. */
function mix32(x: number): number {
  let h = x | 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h;
}

/** Keys are bigints (field elements); the hash is a bijective mix of their low 32 bits. */
export const bigintKeys: KeyKind<bigint> = {
  // asIntN(32) is the cheapest way to read the low 32 bits (a small bigint, no heap digits).
  hash: (key) => mix32(Number(BigInt.asIntN(32, key))),
  equals: (a, b) => a === b,
};

/** FNV-1a over the UTF-16 code units, followed by an avalanche step. */
export function fnv1a32(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h;
}

export const stringKeys: KeyKind<string> = {
  hash: (key) => mix32(fnv1a32(key)),
  equals: (a, b) => a === b,
};

export interface MutablePMap<K, V> {
  readonly size: number;
  get(key: K): V | undefined;
  has(key: K): boolean;
  set(key: K, value: V): void;
  delete(key: K): void;
}

// ---------------------------------------------------------------------------------------------------
// Nodes

/** Identity token of one `withMutations` batch. */
class Owner {}

class BranchNode {
  constructor(
    public datamap: number,
    public nodemap: number,
    /** Inline `key, value` pairs in fragment order, then child nodes in fragment order. */
    public content: unknown[],
    public owner: Owner | null,
  ) {}
}

class CollisionNode {
  constructor(
    /** The full hash shared by every key of the node. */
    readonly hash: number,
    /** `key, value` pairs in insertion order. */
    public content: unknown[],
    public owner: Owner | null,
  ) {}
}

type Child = BranchNode | CollisionNode;

const BITS = 5;
/** Shift of the last branch level; below it the whole 32-bit hash has been consumed. */
const LAST_SHIFT = 30;
const EMPTY_ROOT = new BranchNode(0, 0, [], null);
const NOT_FOUND: unique symbol = Symbol('pmap.notFound');

/** Number of set bits of a 32-bit integer. */
function bitCount(v: number): number {
  let x = v | 0;
  x = (x - ((x >>> 1) & 0x55555555)) | 0;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  x = (x + (x >>> 4)) & 0x0f0f0f0f;
  return Math.imul(x, 0x01010101) >>> 24;
}

/** Bits strictly below position `frag`. */
function below(frag: number): number {
  return ~(-1 << frag);
}

/** Per-operation record of the size change (a fresh one per persistent update; one per batch). */
class Effect {
  delta = 0;
}

type AnyKind = KeyKind<unknown>;

function isOwned(node: Child, owner: Owner | null): boolean {
  return owner !== null && node.owner === owner;
}

function withBranch(
  node: BranchNode,
  datamap: number,
  nodemap: number,
  content: unknown[],
  owner: Owner | null,
): BranchNode {
  if (isOwned(node, owner)) {
    node.datamap = datamap;
    node.nodemap = nodemap;
    node.content = content;
    return node;
  }
  return new BranchNode(datamap, nodemap, content, owner);
}

function lookup(root: BranchNode, hash: number, key: unknown, kind: AnyKind): unknown {
  let node = root;
  let shift = 0;
  for (;;) {
    const frag = (hash >>> shift) & 31;
    const bit = 1 << frag;
    const datamap = node.datamap;
    if ((datamap & bit) !== 0) {
      const i = 2 * bitCount(datamap & below(frag));
      const c = node.content;
      return kind.equals(c[i], key) ? c[i + 1] : NOT_FOUND;
    }
    const nodemap = node.nodemap;
    if ((nodemap & bit) === 0) return NOT_FOUND;
    const child = node.content[2 * bitCount(datamap) + bitCount(nodemap & below(frag))] as Child;
    if (child instanceof CollisionNode) {
      const c = child.content;
      for (let i = 0; i < c.length; i += 2) if (kind.equals(c[i], key)) return c[i + 1];
      return NOT_FOUND;
    }
    node = child;
    shift += BITS;
  }
}

/** The subtree holding exactly the two given entries (distinct keys) at level `shift`. */
function mergeTwo(
  k1: unknown,
  v1: unknown,
  h1: number,
  k2: unknown,
  v2: unknown,
  h2: number,
  shift: number,
  owner: Owner | null,
): Child {
  if (shift > LAST_SHIFT) return new CollisionNode(h1, [k1, v1, k2, v2], owner);
  const f1 = (h1 >>> shift) & 31;
  const f2 = (h2 >>> shift) & 31;
  if (f1 === f2)
    return new BranchNode(0, 1 << f1, [mergeTwo(k1, v1, h1, k2, v2, h2, shift + BITS, owner)], owner);
  return new BranchNode((1 << f1) | (1 << f2), 0, f1 < f2 ? [k1, v1, k2, v2] : [k2, v2, k1, v1], owner);
}

function branchSet(
  node: BranchNode,
  shift: number,
  hash: number,
  key: unknown,
  value: unknown,
  kind: AnyKind,
  owner: Owner | null,
  eff: Effect,
): BranchNode {
  const frag = (hash >>> shift) & 31;
  const bit = 1 << frag;
  const { datamap, nodemap, content } = node;
  if ((datamap & bit) !== 0) {
    const i = 2 * bitCount(datamap & below(frag));
    const k0 = content[i];
    if (kind.equals(k0, key)) {
      if (content[i + 1] === value) return node;
      if (isOwned(node, owner)) {
        content[i + 1] = value;
        return node;
      }
      const c = content.slice();
      c[i + 1] = value;
      return new BranchNode(datamap, nodemap, c, owner);
    }
    // Another key holds this fragment: both move down into a new child.
    eff.delta = 1;
    const sub = mergeTwo(k0, content[i + 1], kind.hash(k0) | 0, key, value, hash, shift + BITS, owner);
    const dataEnd = 2 * bitCount(datamap);
    const at = dataEnd - 2 + bitCount(nodemap & below(frag));
    const c = new Array<unknown>(content.length - 1);
    let w = 0;
    for (let r = 0; r < i; r++) c[w++] = content[r];
    let r = i + 2;
    while (w < at) c[w++] = content[r++];
    c[w++] = sub;
    while (r < content.length) c[w++] = content[r++];
    return withBranch(node, datamap ^ bit, nodemap | bit, c, owner);
  }
  if ((nodemap & bit) !== 0) {
    const j = 2 * bitCount(datamap) + bitCount(nodemap & below(frag));
    const child = content[j] as Child;
    const updated =
      child instanceof BranchNode
        ? branchSet(child, shift + BITS, hash, key, value, kind, owner, eff)
        : collisionSet(child, key, value, kind, owner, eff);
    if (updated === child) return node;
    if (isOwned(node, owner)) {
      content[j] = updated;
      return node;
    }
    const c = content.slice();
    c[j] = updated;
    return new BranchNode(datamap, nodemap, c, owner);
  }
  eff.delta = 1;
  const i = 2 * bitCount(datamap & below(frag));
  const c = new Array<unknown>(content.length + 2);
  for (let r = 0; r < i; r++) c[r] = content[r];
  c[i] = key;
  c[i + 1] = value;
  for (let r = i; r < content.length; r++) c[r + 2] = content[r];
  return withBranch(node, datamap | bit, nodemap, c, owner);
}

function collisionSet(
  node: CollisionNode,
  key: unknown,
  value: unknown,
  kind: AnyKind,
  owner: Owner | null,
  eff: Effect,
): CollisionNode {
  const content = node.content;
  for (let i = 0; i < content.length; i += 2) {
    if (!kind.equals(content[i], key)) continue;
    if (content[i + 1] === value) return node;
    if (isOwned(node, owner)) {
      content[i + 1] = value;
      return node;
    }
    const c = content.slice();
    c[i + 1] = value;
    return new CollisionNode(node.hash, c, owner);
  }
  eff.delta = 1;
  const c = new Array<unknown>(content.length + 2);
  for (let r = 0; r < content.length; r++) c[r] = content[r];
  c[content.length] = key;
  c[content.length + 1] = value;
  if (isOwned(node, owner)) {
    node.content = c;
    return node;
  }
  return new CollisionNode(node.hash, c, owner);
}

/** A child holding a single entry, which its parent must take back inline. */
function isSingleton(node: Child): boolean {
  return node.content.length === 2 && (node instanceof CollisionNode || node.nodemap === 0);
}

function branchDelete(
  node: BranchNode,
  shift: number,
  hash: number,
  key: unknown,
  kind: AnyKind,
  owner: Owner | null,
  eff: Effect,
): BranchNode {
  const frag = (hash >>> shift) & 31;
  const bit = 1 << frag;
  const { datamap, nodemap, content } = node;
  if ((datamap & bit) !== 0) {
    const i = 2 * bitCount(datamap & below(frag));
    if (!kind.equals(content[i], key)) return node;
    eff.delta = -1;
    const c = new Array<unknown>(content.length - 2);
    for (let r = 0; r < i; r++) c[r] = content[r];
    for (let r = i + 2; r < content.length; r++) c[r - 2] = content[r];
    return withBranch(node, datamap ^ bit, nodemap, c, owner);
  }
  if ((nodemap & bit) === 0) return node;
  const dataEnd = 2 * bitCount(datamap);
  const j = dataEnd + bitCount(nodemap & below(frag));
  const child = content[j] as Child;
  const updated =
    child instanceof BranchNode
      ? branchDelete(child, shift + BITS, hash, key, kind, owner, eff)
      : collisionDelete(child, key, kind, owner, eff);
  // An owned child may have been changed in place, so test the effect rather than the identity.
  if (eff.delta === 0) return node;
  if (isSingleton(updated)) {
    // Take the child's last entry inline, at this fragment's place among the inline entries.
    const i = 2 * bitCount(datamap & below(frag));
    const c = new Array<unknown>(content.length + 1);
    for (let r = 0; r < i; r++) c[r] = content[r];
    c[i] = updated.content[0];
    c[i + 1] = updated.content[1];
    for (let r = i; r < j; r++) c[r + 2] = content[r];
    for (let r = j + 1; r < content.length; r++) c[r + 1] = content[r];
    return withBranch(node, datamap | bit, nodemap ^ bit, c, owner);
  }
  if (updated === child) return node;
  if (isOwned(node, owner)) {
    content[j] = updated;
    return node;
  }
  const c = content.slice();
  c[j] = updated;
  return new BranchNode(datamap, nodemap, c, owner);
}

function collisionDelete(
  node: CollisionNode,
  key: unknown,
  kind: AnyKind,
  owner: Owner | null,
  eff: Effect,
): CollisionNode {
  const content = node.content;
  for (let i = 0; i < content.length; i += 2) {
    if (!kind.equals(content[i], key)) continue;
    eff.delta = -1;
    const c = new Array<unknown>(content.length - 2);
    for (let r = 0; r < i; r++) c[r] = content[r];
    for (let r = i + 2; r < content.length; r++) c[r - 2] = content[r];
    if (isOwned(node, owner)) {
      node.content = c;
      return node;
    }
    return new CollisionNode(node.hash, c, owner);
  }
  return node;
}

function forEachEntry(node: Child, fn: (key: unknown, value: unknown) => void): void {
  const c = node.content;
  if (node instanceof CollisionNode) {
    for (let i = 0; i < c.length; i += 2) fn(c[i], c[i + 1]);
    return;
  }
  const dataEnd = 2 * bitCount(node.datamap);
  for (let i = 0; i < dataEnd; i += 2) fn(c[i], c[i + 1]);
  for (let i = dataEnd; i < c.length; i++) forEachEntry(c[i] as Child, fn);
}

function collectNodes(node: Child, out: object[]): void {
  out.push(node);
  if (node instanceof CollisionNode) return;
  const c = node.content;
  for (let i = 2 * bitCount(node.datamap); i < c.length; i++) collectNodes(c[i] as Child, out);
}

/** Calls `fn` for every entry of a node's subtree (undefined: none). */
function entriesOf(node: Child | undefined, out: unknown[]): void {
  if (node !== undefined) forEachEntry(node, (k, v) => out.push(k, v));
}

/**
 * Reports the differences between two flat `key, value` lists: keys only in `a` (removed), only in `b`
 * (added), or in both with different values (===). Used where at least one side is small.
 */
function diffLists(a: unknown[], b: unknown[], kind: AnyKind, fn: DiffFn): void {
  const matched = new Array<boolean>(b.length / 2).fill(false);
  for (let i = 0; i < a.length; i += 2) {
    let j = 0;
    while (j < b.length && !kind.equals(a[i], b[j])) j += 2;
    if (j >= b.length) fn(a[i], a[i + 1], undefined);
    else {
      matched[j / 2] = true;
      if (a[i + 1] !== b[j + 1]) fn(a[i], a[i + 1], b[j + 1]);
    }
  }
  for (let j = 0; j < b.length; j += 2) if (!matched[j / 2]) fn(b[j], undefined, b[j + 1]);
}

type DiffFn = (key: unknown, before: unknown, after: unknown) => void;

/**
 * Walks two subtrees at the same level together, skipping every pair of identical node references:
 * two maps derived from one another by k updates cost O(k × depth), whatever their size.
 */
function diffNodes(a: Child | undefined, b: Child | undefined, kind: AnyKind, fn: DiffFn): void {
  if (a === b) return;
  if (!(a instanceof BranchNode) || !(b instanceof BranchNode)) {
    const ea: unknown[] = [];
    const eb: unknown[] = [];
    entriesOf(a, ea);
    entriesOf(b, eb);
    diffLists(ea, eb, kind, fn);
    return;
  }
  const bits = a.datamap | a.nodemap | b.datamap | b.nodemap;
  for (let frag = 0; frag < 32; frag++) {
    const bit = 1 << frag;
    if ((bits & bit) === 0) continue;
    const sa = slotOf(a, frag, bit);
    const sb = slotOf(b, frag, bit);
    if (sa instanceof BranchNode || sa instanceof CollisionNode) {
      if (sb instanceof BranchNode || sb instanceof CollisionNode) diffNodes(sa, sb, kind, fn);
      else {
        const ea: unknown[] = [];
        entriesOf(sa, ea);
        diffLists(ea, sb ?? [], kind, fn);
      }
    } else if (sb instanceof BranchNode || sb instanceof CollisionNode) {
      const eb: unknown[] = [];
      entriesOf(sb, eb);
      diffLists(sa ?? [], eb, kind, fn);
    } else diffLists(sa ?? [], sb ?? [], kind, fn);
  }
}

/** What a branch holds at a fragment: an inline `[key, value]`, a child node, or nothing. */
function slotOf(node: BranchNode, frag: number, bit: number): unknown[] | Child | undefined {
  if ((node.datamap & bit) !== 0) {
    const i = 2 * bitCount(node.datamap & below(frag));
    return [node.content[i], node.content[i + 1]];
  }
  if ((node.nodemap & bit) !== 0)
    return node.content[2 * bitCount(node.datamap) + bitCount(node.nodemap & below(frag))] as Child;
  return undefined;
}

const ENTRIES = 0;
const KEYS = 1;
const VALUES = 2;
/** Branch levels (7) plus a collision node, plus one spare. */
const MAX_DEPTH = 9;

/** Depth-first iterator over the trie with an explicit stack (faster than nested generators). */
class TrieIterator<T> implements IterableIterator<T> {
  private readonly contents: unknown[][] = new Array(MAX_DEPTH);
  private readonly positions: number[] = new Array(MAX_DEPTH).fill(0);
  private readonly dataEnds: number[] = new Array(MAX_DEPTH).fill(0);
  private depth = 0;

  constructor(
    root: BranchNode,
    private readonly mode: number,
  ) {
    this.contents[0] = root.content;
    this.dataEnds[0] = 2 * bitCount(root.datamap);
  }

  next(): IteratorResult<T> {
    while (this.depth >= 0) {
      const d = this.depth;
      const c = this.contents[d]!;
      const i = this.positions[d]!;
      if (i < this.dataEnds[d]!) {
        this.positions[d] = i + 2;
        const value = this.mode === KEYS ? c[i] : this.mode === VALUES ? c[i + 1] : [c[i], c[i + 1]];
        return { done: false, value: value as T };
      }
      if (i < c.length) {
        this.positions[d] = i + 1;
        const child = c[i] as Child;
        this.depth = d + 1;
        this.contents[d + 1] = child.content;
        this.positions[d + 1] = 0;
        this.dataEnds[d + 1] =
          child instanceof CollisionNode ? child.content.length : 2 * bitCount(child.datamap);
        continue;
      }
      this.depth = d - 1;
    }
    return { done: true, value: undefined };
  }

  [Symbol.iterator](): IterableIterator<T> {
    return this;
  }
}

// ---------------------------------------------------------------------------------------------------
// Public classes

export class PMap<K, V> {
  readonly size: number;
  private readonly kind: KeyKind<K>;
  private readonly root: BranchNode;

  private constructor(kind: KeyKind<K>, root: BranchNode, size: number) {
    this.kind = kind;
    this.root = root;
    this.size = size;
  }

  static empty<K, V>(kind: KeyKind<K>): PMap<K, V> {
    return new PMap<K, V>(kind, EMPTY_ROOT, 0);
  }

  /** A map of the given entries (a later entry overwrites an earlier one with an equal key). */
  static from<K, V>(kind: KeyKind<K>, entries: Iterable<readonly [K, V]>): PMap<K, V> {
    return PMap.empty<K, V>(kind).withMutations((m) => {
      for (const [k, v] of entries) m.set(k, v);
    });
  }

  get keyKind(): KeyKind<K> {
    return this.kind;
  }

  get(key: K): V | undefined {
    const v = lookup(this.root, this.kind.hash(key) | 0, key, this.kind as AnyKind);
    return v === NOT_FOUND ? undefined : (v as V);
  }

  has(key: K): boolean {
    return lookup(this.root, this.kind.hash(key) | 0, key, this.kind as AnyKind) !== NOT_FOUND;
  }

  /** The map with `key` bound to `value`; this map itself if `value` is already bound (===). */
  set(key: K, value: V): PMap<K, V> {
    const eff = new Effect();
    const root = branchSet(
      this.root,
      0,
      this.kind.hash(key) | 0,
      key,
      value,
      this.kind as AnyKind,
      null,
      eff,
    );
    return root === this.root ? this : new PMap<K, V>(this.kind, root, this.size + eff.delta);
  }

  /** The map without `key`; this map itself if `key` is absent. */
  delete(key: K): PMap<K, V> {
    const eff = new Effect();
    const root = branchDelete(this.root, 0, this.kind.hash(key) | 0, key, this.kind as AnyKind, null, eff);
    return root === this.root ? this : new PMap<K, V>(this.kind, root, this.size + eff.delta);
  }

  /**
   * Applies a batch of updates with in-place mutation of the nodes the batch itself created. This map
   * is never modified; if `fn` throws, the exception propagates and the partial batch is discarded.
   * The `MutablePMap` must not escape: every use of it after `fn` returns throws. Returns this map
   * itself if the batch changed nothing.
   */
  withMutations(fn: (m: MutablePMap<K, V>) => void): PMap<K, V> {
    const t = new TransientPMap<K, V>(this.kind, this.root, this.size);
    try {
      fn(t);
    } finally {
      t.end();
    }
    const root = t.finalRoot();
    return root === this.root ? this : new PMap<K, V>(this.kind, root, t.finalSize());
  }

  /** Entries in trie order: a function of the contents, except within a collision bucket (see top). */
  entries(): IterableIterator<[K, V]> {
    return new TrieIterator<[K, V]>(this.root, ENTRIES);
  }

  keys(): IterableIterator<K> {
    return new TrieIterator<K>(this.root, KEYS);
  }

  values(): IterableIterator<V> {
    return new TrieIterator<V>(this.root, VALUES);
  }

  [Symbol.iterator](): IterableIterator<[K, V]> {
    return this.entries();
  }

  /** Calls `fn` for every entry, in the same order as `entries()`. */
  forEach(fn: (value: V, key: K) => void): void {
    forEachEntry(this.root, (k, v) => fn(v as V, k as K));
  }

  /** Entries sorted by a caller comparator — use where an order must be deterministic. */
  sortedEntries(compare: (a: K, b: K) => number): [K, V][] {
    const out: [K, V][] = [];
    forEachEntry(this.root, (k, v) => {
      out.push([k as K, v as V]);
    });
    return out.sort((a, b) => compare(a[0], b[0]));
  }

  /**
   * Calls `fn` for every key whose binding differs between this map (`before`) and `other` (`after`):
   * absent on one side, or bound to different values (compared with ===). Subtrees the two maps share
   * are skipped, so maps derived from one another by k updates are compared in O(k × depth). Both
   * maps must use the same key kind. Order: trie order (unspecified).
   */
  diff(other: PMap<K, V>, fn: (key: K, before: V | undefined, after: V | undefined) => void): void {
    diffNodes(this.root, other.root, this.kind as AnyKind, fn as DiffFn);
  }

  /**
   * Diagnostics and tests: every node of the trie, as opaque objects. Two maps share a node exactly
   * when the same object appears in both lists.
   */
  debugNodes(): object[] {
    const out: object[] = [];
    collectNodes(this.root, out);
    return out;
  }
}

class TransientPMap<K, V> implements MutablePMap<K, V> {
  private owner: Owner | null = new Owner();
  private readonly eff = new Effect();
  private root: BranchNode;
  private count: number;

  constructor(
    private readonly kind: KeyKind<K>,
    root: BranchNode,
    size: number,
  ) {
    this.root = root;
    this.count = size;
  }

  private live(): Owner {
    if (this.owner === null) throw new Error('MutablePMap used after its withMutations batch ended');
    return this.owner;
  }

  get size(): number {
    this.live();
    return this.count;
  }

  get(key: K): V | undefined {
    this.live();
    const v = lookup(this.root, this.kind.hash(key) | 0, key, this.kind as AnyKind);
    return v === NOT_FOUND ? undefined : (v as V);
  }

  has(key: K): boolean {
    this.live();
    return lookup(this.root, this.kind.hash(key) | 0, key, this.kind as AnyKind) !== NOT_FOUND;
  }

  set(key: K, value: V): void {
    const owner = this.live();
    const eff = this.eff;
    eff.delta = 0;
    this.root = branchSet(
      this.root,
      0,
      this.kind.hash(key) | 0,
      key,
      value,
      this.kind as AnyKind,
      owner,
      eff,
    );
    this.count += eff.delta;
  }

  delete(key: K): void {
    const owner = this.live();
    const eff = this.eff;
    eff.delta = 0;
    this.root = branchDelete(this.root, 0, this.kind.hash(key) | 0, key, this.kind as AnyKind, owner, eff);
    this.count += eff.delta;
  }

  end(): void {
    this.owner = null;
  }

  /** Diagnostics and tests (not part of `MutablePMap`): the current trie nodes, as in `PMap.debugNodes`. */
  debugNodes(): object[] {
    this.live();
    const out: object[] = [];
    collectNodes(this.root, out);
    return out;
  }

  finalRoot(): BranchNode {
    return this.root;
  }

  finalSize(): number {
    return this.count;
  }
}
