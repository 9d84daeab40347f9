/**
 * The content engine of the storage module (operator.md §3.1, §3.2 uploads and downloads), as
 * logos-storage-nim's `CodexNodeRef.store` and `retrieve` (`codex/node.nim`) do it:
 * - storing: the data is cut into blocks of `blockSize` bytes, the last one zero-padded
 *   (`LPStreamChunker` pads); each block is stored under its `codex-block` CID; the tree of the block
 *   digests gives the `codex-root` tree CID; the manifest (`treeCid`, `blockSize`, `datasetSize` = the
 *   bytes received, `filename`, `mimetype`) is stored as a `codex-manifest` block whose CID names the
 *   dataset. No data gives "Empty leaves", as there.
 * - retrieving: a manifest CID yields the dataset's bytes (padding cut at `datasetSize`); any other
 *   block CID yields that block. With `local` only the repository is read; otherwise what is missing
 *   comes from peers through `Fetcher`, each block checked against its CID and the leaves against the
 *   tree root before it is kept.
 */
import type { CID } from 'multiformats/cid';
import type { BlockStore } from './blockstore.ts';
import { BLOCK_CODEC, cidOf, cidOfDigest, cidText, MANIFEST_CODEC, matchesCid, ROOT_CODEC } from './cid.ts';
import { StorageModuleError } from './errors.ts';
import { blocksCount, decodeManifest, encodeManifest, type Manifest } from './manifest.ts';
import { treeRoot } from './merkle.ts';

export const DEFAULT_BLOCK_SIZE = 65536;

/** Gets verified data from peers; each call fails when no peer gives it before its deadline. */
export interface Fetcher {
  /** A block (manifest blocks included) whose bytes hash to `cid`. */
  block(cid: CID, signal: AbortSignal): Promise<Uint8Array>;
  /** Several blocks (in order), at most 64 asked of a peer at once. */
  blocks(cids: readonly CID[], signal: AbortSignal): Promise<Uint8Array[]>;
  /** The leaves of the dataset tree `treeCid`, `count` of them, checked against the root. */
  leaves(treeCid: CID, count: number, signal: AbortSignal): Promise<Uint8Array[]>;
}

/** An upload under way: bytes pushed in any pieces, stored block by block. */
export class DatasetWriter {
  private buf: Uint8Array;
  private fill = 0;
  private offset = 0;
  private readonly leaves: Uint8Array[] = [];
  private queue: Promise<void> = Promise.resolve();
  private failed: Error | undefined;

  constructor(
    private readonly store: BlockStore,
    readonly blockSize: number,
    private readonly filename: string | undefined,
    private readonly mimetype: string | undefined,
    /** Called with each stored block's data length (without padding). */
    private readonly onBlockStored?: (bytes: number) => void,
  ) {
    this.buf = new Uint8Array(blockSize);
  }

  /** Bytes received so far. */
  get bytes(): number {
    return this.offset;
  }

  /** Adds data; resolves once every complete block of it is stored. */
  push(data: Uint8Array): Promise<void> {
    if (this.failed) return Promise.reject(this.failed);
    let off = 0;
    while (off < data.length) {
      const n = Math.min(this.blockSize - this.fill, data.length - off);
      this.buf.set(data.subarray(off, off + n), this.fill);
      this.fill += n;
      off += n;
      this.offset += n;
      if (this.fill === this.blockSize) this.flush(this.blockSize);
    }
    return this.queue;
  }

  private flush(dataLen: number): void {
    const block = this.buf;
    this.buf = new Uint8Array(this.blockSize);
    this.fill = 0;
    const cid = cidOf(BLOCK_CODEC, block);
    this.leaves.push(cid.multihash.digest);
    this.queue = this.queue.then(async () => {
      if (this.failed) throw this.failed;
      try {
        await this.store.put(cid, block);
      } catch (e) {
        this.failed = e as Error;
        throw e;
      }
      this.onBlockStored?.(dataLen);
    });
  }

  /** Stores the last (padded) block, the leaves and the manifest; returns the manifest CID. */
  async finish(): Promise<CID> {
    if (this.fill > 0) this.flush(this.fill);
    await this.queue;
    if (this.leaves.length === 0)
      throw new StorageModuleError('STORAGE_MODULE_EMPTY_DATASET', 'Empty leaves');
    const treeCid = cidOfDigest(ROOT_CODEC, treeRoot(this.leaves));
    await this.store.putLeaves(treeCid, this.leaves);
    const manifest: Manifest = {
      treeCid,
      blockSize: this.blockSize,
      datasetSize: this.offset,
      ...(this.filename !== undefined ? { filename: this.filename } : {}),
      ...(this.mimetype !== undefined ? { mimetype: this.mimetype } : {}),
    };
    const bytes = encodeManifest(manifest);
    const cid = cidOf(MANIFEST_CODEC, bytes);
    await this.store.put(cid, bytes);
    return cid;
  }
}

export class Engine {
  constructor(
    readonly store: BlockStore,
    private readonly fetcher: Fetcher | undefined,
  ) {}

  /** The manifest named `cid`, from the repository, else (unless `local`) from peers. */
  async manifest(cid: CID, local: boolean, signal: AbortSignal): Promise<Manifest> {
    if (cid.code !== MANIFEST_CODEC)
      throw new StorageModuleError(
        'STORAGE_MODULE_WRONG_CID_KIND',
        `CID has invalid content type for manifest ${cidText(cid)}`,
      );
    let bytes = await this.store.get(cid);
    if (bytes === undefined) {
      if (local || this.fetcher === undefined)
        throw new StorageModuleError('STORAGE_MODULE_BLOCK_NOT_FOUND', 'Block not found in local store');
      bytes = await this.fetcher.block(cid, signal);
      decodeManifest(bytes); // a peer's manifest is checked before it is kept
      await this.store.put(cid, bytes);
    }
    return decodeManifest(bytes);
  }

  /** The dataset's leaves, kept locally once fetched. */
  private async leaves(m: Manifest, local: boolean, signal: AbortSignal): Promise<Uint8Array[]> {
    const have = await this.store.getLeaves(m.treeCid);
    if (have !== undefined) return have;
    if (local || this.fetcher === undefined)
      throw new StorageModuleError('STORAGE_MODULE_BLOCK_NOT_FOUND', 'Block not found in local store');
    const fetched = await this.fetcher.leaves(m.treeCid, blocksCount(m), signal);
    await this.store.putLeaves(m.treeCid, fetched);
    return fetched;
  }

  /**
   * The bytes named by `cid`, in pieces of at most `chunkSize`: a dataset (manifest CID) or one block.
   * `onTotal` learns the size first. Blocks fetched from peers are kept.
   */
  async *retrieve(
    cid: CID,
    local: boolean,
    chunkSize: number,
    signal: AbortSignal,
    onTotal?: (bytes: number) => void,
  ): AsyncGenerator<Uint8Array> {
    refuseTreeCid(cid);
    if (local && !this.store.has(cid))
      throw new StorageModuleError('STORAGE_MODULE_BLOCK_NOT_FOUND', 'Block not found in local store');
    if (cid.code !== MANIFEST_CODEC) {
      let block = await this.store.get(cid);
      if (block === undefined) {
        if (local || this.fetcher === undefined)
          throw new StorageModuleError('STORAGE_MODULE_BLOCK_NOT_FOUND', 'Block not found in local store');
        block = await this.fetcher.block(cid, signal);
        await this.store.put(cid, block);
      }
      onTotal?.(block.length);
      yield* pieces(block, chunkSize);
      return;
    }
    const m = await this.manifest(cid, local, signal);
    onTotal?.(m.datasetSize);
    const leaves = await this.leaves(m, local, signal);
    const cids = leaves.map((d) => cidOfDigest(BLOCK_CODEC, d));
    let left = m.datasetSize;
    const BATCH = 32;
    for (let i = 0; i < cids.length && left > 0; i += BATCH) {
      signal.throwIfAborted();
      const batch = cids.slice(i, i + BATCH);
      const got: (Uint8Array | undefined)[] = await Promise.all(batch.map((c) => this.store.get(c)));
      const missing = batch.filter((_, k) => got[k] === undefined);
      if (missing.length > 0) {
        if (local || this.fetcher === undefined)
          throw new StorageModuleError('STORAGE_MODULE_BLOCK_NOT_FOUND', 'Block not found in local store');
        const fetched = await this.fetcher.blocks(missing, signal);
        let j = 0;
        for (let k = 0; k < batch.length; k++) {
          if (got[k] !== undefined) continue;
          const b = fetched[j++]!;
          await this.store.put(batch[k]!, b);
          got[k] = b;
        }
      }
      for (const [k, b] of got.entries()) {
        if (b === undefined || !matchesCid(batch[k]!, b))
          throw new StorageModuleError(
            'STORAGE_MODULE_BLOCK_MISMATCH',
            `Block ${cidText(batch[k]!)} is missing or corrupt`,
          );
        const data = b.length > left ? b.subarray(0, left) : b;
        left -= data.length;
        yield* pieces(data, chunkSize);
      }
    }
  }

  /** Deletes a dataset (its blocks, leaves and manifest) or one block; a missing one is no error. */
  async remove(cid: CID): Promise<void> {
    refuseTreeCid(cid);
    if (cid.code !== MANIFEST_CODEC) {
      await this.store.delete(cid);
      return;
    }
    const bytes = await this.store.get(cid);
    if (bytes === undefined) return;
    const m = decodeManifest(bytes);
    const leaves = await this.store.getLeaves(m.treeCid);
    for (const d of leaves ?? []) await this.store.delete(cidOfDigest(BLOCK_CODEC, d));
    await this.store.deleteLeaves(m.treeCid);
    await this.store.delete(cid);
  }
}

/**
 * A dataset tree (`codex-root`) CID names no block: asking peers for it as one would break their
 * protocol (a block want carries a block or manifest CID), so it is refused here.
 */
export function refuseTreeCid(cid: CID): void {
  if (cid.code === ROOT_CODEC)
    throw new StorageModuleError(
      'STORAGE_MODULE_WRONG_CID_KIND',
      `CID ${cidText(cid)} is a dataset tree CID; give the dataset's manifest CID`,
    );
}

function* pieces(data: Uint8Array, size: number): Generator<Uint8Array> {
  for (let off = 0; off < data.length; off += size)
    yield data.subarray(off, Math.min(off + size, data.length));
}
