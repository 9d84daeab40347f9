/**
 * The storage module's repository (operator.md §3.1 content engine, §3.2 `space`, §3.3 `data-dir`,
 * `storage-quota`): one file per block under `<data-dir>/repo/blocks/`, named by the block's CID and
 * written atomically (a temporary file renamed into place), manifests being blocks of the
 * `codex-manifest` codec; each dataset's block digests (its Merkle leaves) under
 * `<data-dir>/repo/trees/<treeCid>`. Quota: every stored block's bytes, and each kept leaves list's,
 * count once against `storage-quota`; a write that would pass it is refused. The room is taken when
 * a write starts (before its first await), so writes under way together cannot pass the quota.
 * Nothing is reserved for others (`quotaReservedBytes` is 0: reservations belong to the marketplace,
 * which this node does not run).
 * inferred: counting the leaves lists (the reference keeps its per-block proofs in its metadata store).
 * Expiry (§3.3 `block-ttl`, `block-mi`, `block-mn`; logos-storage-nim `codex/stores/maintenance.nim`):
 * a block expires `block-ttl` after it was last stored (its file's modification time; storing it
 * again extends it); each maintenance round looks at up to `block-mn` blocks from where the last one
 * stopped and deletes the expired ones.
 * inferred: the folder layout (the reference's `fs` repo keeps a LevelDB of metadata beside the blocks).
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, renameSync, statSync, unlinkSync } from 'node:fs';
import { readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CID } from 'multiformats/cid';
import { cidOfDigest, cidText, MANIFEST_CODEC, parseCid, ROOT_CODEC } from './cid.ts';
import { QuotaExceeded, StorageModuleError } from './errors.ts';
import { treeRoot } from './merkle.ts';

export interface Space {
  readonly totalBlocks: number;
  readonly quotaMaxBytes: number;
  readonly quotaUsedBytes: number;
  readonly quotaReservedBytes: number;
}

export class BlockStore {
  private readonly blocksDir: string;
  private readonly treesDir: string;
  /** Stored blocks: CID text → size in bytes. */
  private readonly sizes = new Map<string, number>();
  /** Kept leaves lists: tree CID text → size in bytes. */
  private readonly treeSizes = new Map<string, number>();
  /** Writes under way: file path → the write. */
  private readonly writing = new Map<string, Promise<void>>();
  /** Bytes stored, blocks and leaves lists. */
  private used = 0;
  /** Bytes of the writes under way. */
  private pending = 0;
  /** Where the next expiry round starts. */
  private cursor = 0;

  constructor(
    repoDir: string,
    private readonly quotaMaxBytes: number,
  ) {
    this.blocksDir = join(repoDir, 'blocks');
    this.treesDir = join(repoDir, 'trees');
    mkdirSync(this.blocksDir, { recursive: true, mode: 0o700 });
    mkdirSync(this.treesDir, { recursive: true, mode: 0o700 });
    for (const name of readdirSync(this.blocksDir)) {
      const path = join(this.blocksDir, name);
      if (name.startsWith('.tmp-')) {
        unlinkSync(path); // an interrupted write
        continue;
      }
      try {
        parseCid(name);
      } catch {
        continue; // not ours
      }
      const size = statSync(path).size;
      this.sizes.set(name, size);
      this.used += size;
    }
    for (const name of readdirSync(this.treesDir)) {
      const path = join(this.treesDir, name);
      if (name.startsWith('.tmp-')) {
        unlinkSync(path);
        continue;
      }
      try {
        parseCid(name);
      } catch {
        continue;
      }
      const size = statSync(path).size;
      this.treeSizes.set(name, size);
      this.used += size;
    }
  }

  space(): Space {
    return {
      totalBlocks: this.sizes.size,
      quotaMaxBytes: this.quotaMaxBytes,
      quotaUsedBytes: this.used,
      quotaReservedBytes: 0,
    };
  }

  has(cid: CID): boolean {
    return this.sizes.has(cidText(cid));
  }

  /** Refuses up front a write of `bytes` more than the quota leaves (writes under way count). */
  ensureRoom(bytes: number): void {
    const free = this.quotaMaxBytes - this.used - this.pending;
    if (bytes > free) throw new QuotaExceeded(bytes, Math.max(free, 0));
  }

  /**
   * Writes `bytes` to `path` with the room for them taken before the write starts and given back
   * when it ends; `done` records a written file. A write of the same file under way is joined.
   */
  private write(path: string, bytes: Uint8Array, done: () => void): Promise<void> {
    const under = this.writing.get(path);
    if (under !== undefined) return under;
    this.ensureRoom(bytes.length);
    this.pending += bytes.length;
    const w = atomicWrite(path, bytes)
      .then(done)
      .finally(() => {
        this.pending -= bytes.length;
        this.writing.delete(path);
      });
    this.writing.set(path, w);
    return w;
  }

  /** Stores a block under its CID (the caller has checked that the bytes hash to it); a no-op if held. */
  async put(cid: CID, bytes: Uint8Array): Promise<void> {
    const name = cidText(cid);
    if (this.sizes.has(name)) {
      const now = new Date();
      await utimes(join(this.blocksDir, name), now, now).catch(() => {});
      return;
    }
    await this.write(join(this.blocksDir, name), bytes, () => {
      if (this.sizes.has(name)) return;
      this.sizes.set(name, bytes.length);
      this.used += bytes.length;
    });
  }

  async get(cid: CID): Promise<Uint8Array | undefined> {
    const name = cidText(cid);
    if (!this.sizes.has(name)) return undefined;
    try {
      return new Uint8Array(await readFile(join(this.blocksDir, name)));
    } catch {
      return undefined;
    }
  }

  async delete(cid: CID): Promise<void> {
    const name = cidText(cid);
    const size = this.sizes.get(name);
    if (size === undefined) return;
    await rm(join(this.blocksDir, name), { force: true });
    this.sizes.delete(name);
    this.used -= size;
  }

  /**
   * One maintenance round: looks at up to `max` blocks after the last round's position and deletes
   * those stored more than `ttlMs` before `now`; returns how many were deleted.
   */
  async expire(ttlMs: number, max: number, now = Date.now()): Promise<number> {
    const names = [...this.sizes.keys()];
    if (this.cursor >= names.length) this.cursor = 0;
    const batch = names.slice(this.cursor, this.cursor + max);
    let deleted = 0;
    for (const name of batch) {
      let mtime: number;
      try {
        mtime = (await stat(join(this.blocksDir, name))).mtimeMs;
      } catch {
        continue;
      }
      if (mtime + ttlMs < now) {
        await this.delete(parseCid(name));
        deleted++;
      } else this.cursor++;
    }
    if (batch.length < max) this.cursor = 0;
    return deleted;
  }

  /** The CIDs of the stored manifests. */
  manifestCids(): CID[] {
    const out: CID[] = [];
    for (const name of this.sizes.keys()) {
      const cid = parseCid(name);
      if (cid.code === MANIFEST_CODEC) out.push(cid);
    }
    return out;
  }

  /** Keeps a dataset's leaves (the block digests, in order); checks that they hash to `treeCid`. */
  async putLeaves(treeCid: CID, leaves: readonly Uint8Array[]): Promise<void> {
    if (!treeCid.equals(cidOfDigest(ROOT_CODEC, treeRoot(leaves))))
      throw new StorageModuleError(
        'STORAGE_MODULE_BLOCK_MISMATCH',
        'The block list does not match the tree CID',
      );
    const name = cidText(treeCid);
    const buf = new Uint8Array(leaves.length * 32);
    if (this.treeSizes.get(name) === buf.length) return; // kept already (a damaged file is replaced)
    for (const [i, l] of leaves.entries()) buf.set(l, i * 32);
    await this.write(join(this.treesDir, name), buf, () => {
      this.used += buf.length - (this.treeSizes.get(name) ?? 0);
      this.treeSizes.set(name, buf.length);
    });
  }

  /** A dataset's leaves, if kept. */
  async getLeaves(treeCid: CID): Promise<Uint8Array[] | undefined> {
    let buf: Buffer;
    try {
      buf = await readFile(join(this.treesDir, cidText(treeCid)));
    } catch {
      return undefined;
    }
    if (buf.length === 0 || buf.length % 32 !== 0) return undefined;
    const out: Uint8Array[] = [];
    for (let i = 0; i < buf.length; i += 32) out.push(new Uint8Array(buf.subarray(i, i + 32)));
    return out;
  }

  async deleteLeaves(treeCid: CID): Promise<void> {
    const name = cidText(treeCid);
    await rm(join(this.treesDir, name), { force: true });
    const size = this.treeSizes.get(name);
    if (size === undefined) return;
    this.treeSizes.delete(name);
    this.used -= size;
  }
}

/** Writes `bytes` to `path` through a temporary file in the same folder, renamed into place. */
export async function atomicWrite(path: string, bytes: Uint8Array): Promise<void> {
  const dir = join(path, '..');
  const tmp = join(dir, `.tmp-${randomBytes(6).toString('hex')}`);
  try {
    await writeFile(tmp, bytes, { mode: 0o600 });
    renameSync(tmp, path);
  } catch (e) {
    await rm(tmp, { force: true });
    throw e;
  }
}
