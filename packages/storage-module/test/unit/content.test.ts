/**
 * The storage module's content engine (operator.md §3.1; logos-storage-nim `codex/node.nim` `store`,
 * `codex/merkletree/*`, `codex/manifest/coders.nim`): chunking with a zero-padded last block, block
 * CIDs (codec 0xcd02 over the sha2-256 of the bytes), the tree root as the reference's tree tests
 * build it, manifest bytes and CIDs (`zDvZ…`), and the fs block store's quota.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { sha256 } from '@noble/hashes/sha2.js';
import { CID } from 'multiformats/cid';
import { BlockStore } from '../../src/blockstore.ts';
import {
  BLOCK_CODEC,
  cidOf,
  cidOfDigest,
  cidText,
  MANIFEST_CODEC,
  parseCid,
  ROOT_CODEC,
} from '../../src/cid.ts';
import { DatasetWriter, Engine, type Fetcher } from '../../src/engine.ts';
import { QuotaExceeded } from '../../src/errors.ts';
import { decodeManifest, encodeManifest } from '../../src/manifest.ts';
import { treeRoot } from '../../src/merkle.ts';

const dir = mkdtempSync(join(tmpdir(), 'storage-content-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** `n` bytes without repeats between blocks (a sha2-256 stream of `seed`). */
function bytes(n: number, seed = 1): Uint8Array {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i += 32)
    out.set(
      sha256(Uint8Array.of(seed, i & 0xff, (i >> 8) & 0xff, i >> 16)).subarray(0, Math.min(32, n - i)),
      i,
    );
  return out;
}
const compress = (x: Uint8Array, y: Uint8Array, key: number) => sha256(Uint8Array.from([...x, ...y, key]));
const ZERO = new Uint8Array(32);

describe('storage CIDs and tree', () => {
  test('a block CID is CIDv1, codec 0xcd02, the sha2-256 of its bytes, written base58btc', () => {
    const b = bytes(1000);
    const cid = cidOf(BLOCK_CODEC, b);
    const text = cidText(cid);
    assert.ok(text.startsWith('z'), text);
    const back = CID.parse(text);
    assert.equal(back.version, 1);
    assert.equal(back.code, 0xcd02);
    assert.equal(back.multihash.code, 0x12);
    assert.deepEqual(back.multihash.digest, sha256(b));
    assert.ok(parseCid(text).equals(cid));
  });

  test('parseCid refuses other codecs, versions and junk with a clear message', () => {
    const raw = CID.createV1(0x55, cidOf(BLOCK_CODEC, bytes(3)).multihash);
    assert.throws(() => parseCid(raw.toString()), /not a storage codec/);
    assert.throws(() => parseCid('zzzz'), /cannot parse cid: zzzz/);
    assert.throws(() => parseCid(''), /cannot parse cid/);
  });

  test('the reference tree tests: even, odd bottom layer, and one leaf', () => {
    const d = Array.from({ length: 8 }, (_, i) => sha256(bytes(10, i)));
    const even = compress(
      compress(compress(d[0]!, d[1]!, 1), compress(d[2]!, d[3]!, 1), 0),
      compress(compress(d[4]!, d[5]!, 1), compress(d[6]!, d[7]!, 1), 0),
      0,
    );
    assert.deepEqual(treeRoot(d), even);
    const odd = compress(
      compress(compress(d[0]!, d[1]!, 1), compress(d[2]!, d[3]!, 1), 0),
      compress(compress(d[4]!, d[5]!, 1), compress(d[6]!, ZERO, 3), 0),
      0,
    );
    assert.deepEqual(treeRoot(d.slice(0, 7)), odd);
    const five = compress(
      compress(compress(d[0]!, d[1]!, 1), compress(d[2]!, d[3]!, 1), 0),
      compress(compress(d[4]!, ZERO, 3), ZERO, 2),
      0,
    );
    assert.deepEqual(treeRoot(d.slice(0, 5)), five);
    assert.deepEqual(treeRoot([d[0]!]), compress(d[0]!, ZERO, 3));
    assert.throws(() => treeRoot([]), /Empty leaves/);
  });
});

describe('storage manifest', () => {
  const treeCid = cidOfDigest(ROOT_CODEC, sha256(bytes(5)));

  test('encodes the reference Header fields in order, and decodes back', () => {
    const m = {
      treeCid,
      blockSize: 65536,
      datasetSize: 300000,
      filename: 'a.pdf',
      mimetype: 'application/pdf',
    };
    const enc = encodeManifest(m);
    // field 1 (length-delimited) holding the header; the header starts with field 1 = the tree CID bytes
    assert.equal(enc[0], 0x0a);
    const headerStart = enc[1]! < 0x80 ? 2 : 3;
    assert.equal(enc[headerStart], 0x0a);
    assert.equal(enc[headerStart + 1], treeCid.bytes.length);
    assert.deepEqual(enc.subarray(headerStart + 2, headerStart + 2 + treeCid.bytes.length), treeCid.bytes);
    // then blockSize (2), datasetSize (3), codec 0xcd02 (4), hcodec 0x12 (5), version 1 (6), names (8, 9)
    const rest = [...enc.subarray(headerStart + 2 + treeCid.bytes.length)];
    assert.deepEqual(rest.slice(0, 4), [0x10, 0x80, 0x80, 0x04]);
    assert.deepEqual(rest.slice(4, 8), [0x18, 0xe0, 0xa7, 0x12]);
    assert.deepEqual(rest.slice(8, 17), [0x20, 0x82, 0x9a, 0x03, 0x28, 0x12, 0x30, 0x01, 0x42]);
    const back = decodeManifest(enc);
    assert.ok(back.treeCid.equals(treeCid));
    assert.deepEqual({ ...back, treeCid: null }, { ...m, treeCid: null });
    const cid = cidOf(MANIFEST_CODEC, enc);
    assert.ok(cidText(cid).startsWith('zDvZ'), cidText(cid));
  });

  test('names are optional; garbage and wrong codecs are refused', () => {
    const bare = decodeManifest(encodeManifest({ treeCid, blockSize: 10, datasetSize: 5 }));
    assert.equal(bare.filename, undefined);
    assert.equal(bare.mimetype, undefined);
    assert.throws(() => decodeManifest(Uint8Array.of(0x0a, 0x05, 1, 2)), /Unable to decode/);
    assert.throws(() => decodeManifest(new Uint8Array(70_000)), /too large/);
    const blockAsTree = cidOf(BLOCK_CODEC, bytes(4));
    assert.throws(
      () => decodeManifest(encodeManifest({ treeCid: blockAsTree, blockSize: 10, datasetSize: 5 })),
      /codex-root/,
    );
  });
});

describe('storage chunking and block store', () => {
  test('blocks of blockSize, the last zero-padded; datasetSize is the bytes given; retrieve cuts the padding', async () => {
    const store = new BlockStore(join(dir, 'r1'), 1 << 30);
    const data = bytes(2500);
    const stored: number[] = [];
    const w = new DatasetWriter(store, 1024, 'x.txt', 'text/plain', (n) => stored.push(n));
    await w.push(data.subarray(0, 700));
    await w.push(data.subarray(700));
    const cid = await w.finish();
    assert.deepEqual(stored, [1024, 1024, 452]);
    const engine = new Engine(store, undefined);
    const m = await engine.manifest(cid, true, AbortSignal.timeout(1000));
    assert.equal(m.datasetSize, 2500);
    assert.equal(m.blockSize, 1024);
    const last = new Uint8Array(1024);
    last.set(data.subarray(2048));
    const leaves = [data.subarray(0, 1024), data.subarray(1024, 2048), last].map((b) => sha256(b));
    assert.ok(m.treeCid.equals(cidOfDigest(ROOT_CODEC, treeRoot(leaves))));
    assert.ok(store.has(cidOf(BLOCK_CODEC, last)), 'the padded last block is stored under its CID');
    // three blocks and the manifest; the leaves list counts against the quota too
    assert.equal(store.space().totalBlocks, 4);
    assert.equal(store.space().quotaUsedBytes, 3 * 1024 + encodeManifest(m).length + 3 * 32);
    const out: Uint8Array[] = [];
    for await (const p of engine.retrieve(cid, true, 1000, AbortSignal.timeout(1000))) out.push(p);
    assert.deepEqual(Buffer.concat(out), Buffer.from(data));
    assert.ok(out.every((p) => p.length <= 1000));
    await engine.remove(cid);
    assert.equal(store.space().totalBlocks, 0);
    assert.equal(store.space().quotaUsedBytes, 0);
    assert.deepEqual(
      readdirSync(join(dir, 'r1', 'blocks')).filter((n) => !n.startsWith('.')),
      [],
    );
  });

  test('no data is "Empty leaves"; the quota refuses a block that does not fit; a reopened store counts its blocks', async () => {
    const store = new BlockStore(join(dir, 'r2'), 2048);
    await assert.rejects(new DatasetWriter(store, 1024, undefined, undefined).finish(), /Empty leaves/);
    const w = new DatasetWriter(store, 1024, undefined, undefined);
    await w.push(bytes(3000));
    await assert.rejects(w.finish(), QuotaExceeded);
    assert.equal(store.space().totalBlocks, 2);
    const again = new BlockStore(join(dir, 'r2'), 2048);
    assert.deepEqual(again.space(), {
      totalBlocks: 2,
      quotaMaxBytes: 2048,
      quotaUsedBytes: 2048,
      quotaReservedBytes: 0,
    });
  });

  test('writes under way together cannot pass the quota; leaves lists count against it', async () => {
    const store = new BlockStore(join(dir, 'r5'), 2048 + 64);
    const blocks = [bytes(1024, 11), bytes(1024, 12), bytes(1024, 13)];
    const results = await Promise.allSettled(blocks.map((b) => store.put(cidOf(BLOCK_CODEC, b), b)));
    assert.deepEqual(
      results.map((r) => r.status),
      ['fulfilled', 'fulfilled', 'rejected'],
    );
    assert.ok((results[2] as PromiseRejectedResult).reason instanceof QuotaExceeded);
    // the same block stored twice at once is written and counted once
    const again = bytes(32, 14);
    await Promise.all([
      store.put(cidOf(BLOCK_CODEC, again), again),
      store.put(cidOf(BLOCK_CODEC, again), again),
    ]);
    assert.equal(store.space().quotaUsedBytes, 2048 + 32);
    // 32 bytes left: one leaf fits, two do not
    const two = [sha256(bytes(4, 15)), sha256(bytes(4, 16))];
    const twoCid = cidOfDigest(ROOT_CODEC, treeRoot(two));
    await assert.rejects(store.putLeaves(twoCid, two), QuotaExceeded);
    assert.equal(await store.getLeaves(twoCid), undefined);
    const one = [sha256(bytes(4, 17))];
    const oneCid = cidOfDigest(ROOT_CODEC, treeRoot(one));
    await store.putLeaves(oneCid, one);
    assert.equal(store.space().quotaUsedBytes, 2048 + 64);
    assert.equal(
      new BlockStore(join(dir, 'r5'), 4096).space().quotaUsedBytes,
      2048 + 64,
      'counted when reopened',
    );
    await store.deleteLeaves(oneCid);
    assert.equal(store.space().quotaUsedBytes, 2048 + 32);
  });

  test('expiry: a block stored longer than the ttl ago goes, a fresh or re-stored one stays; rounds take block-mn blocks', async () => {
    const store = new BlockStore(join(dir, 'r3'), 1 << 20);
    const blocks = [bytes(10, 1), bytes(10, 2), bytes(10, 3)];
    const cids = blocks.map((b) => cidOf(BLOCK_CODEC, b));
    for (const [i, b] of blocks.entries()) await store.put(cids[i]!, b);
    const old = new Date(Date.now() - 2 * 86_400_000);
    for (const c of cids) utimesSync(join(dir, 'r3', 'blocks', cidText(c)), old, old);
    await store.put(cids[2]!, blocks[2]!); // stored again: its expiry is extended
    assert.equal(await store.expire(86_400_000, 1), 1);
    assert.equal(await store.expire(86_400_000, 10), 1);
    assert.deepEqual(
      cids.map((c) => store.has(c)),
      [false, false, true],
    );
    assert.equal(store.space().quotaUsedBytes, 10);
  });

  test('a dataset tree CID is refused by retrieve and remove, and never asked of peers', async () => {
    const store = new BlockStore(join(dir, 'r4'), 1 << 20);
    const w = new DatasetWriter(store, 1024, undefined, undefined);
    await w.push(bytes(100));
    const m = decodeManifest((await store.get(await w.finish()))!);
    const asked: string[] = [];
    const fetcher: Fetcher = {
      block: async (c) => {
        asked.push(cidText(c));
        throw new Error('no peer');
      },
      blocks: async (cs) => {
        asked.push(...cs.map(cidText));
        throw new Error('no peer');
      },
      leaves: async (c) => {
        asked.push(cidText(c));
        throw new Error('no peer');
      },
    };
    const engine = new Engine(store, fetcher);
    const stranger = cidOfDigest(ROOT_CODEC, sha256(bytes(5, 9)));
    for (const [cid, local] of [
      [stranger, false],
      [m.treeCid, false],
      [m.treeCid, true],
    ] as const) {
      const drain = async () => {
        for await (const _ of engine.retrieve(cid, local, 1000, AbortSignal.timeout(1000))) {
        }
      };
      await assert.rejects(drain(), /is a dataset tree CID; give the dataset's manifest CID/);
    }
    await assert.rejects(engine.remove(m.treeCid), /is a dataset tree CID/);
    assert.deepEqual(asked, []);
    assert.equal(store.space().totalBlocks, 2, 'the dataset is untouched');
    assert.ok(await store.getLeaves(m.treeCid));
  });
});
