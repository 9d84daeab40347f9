/**
 * `.lgx` packages (operator.md §1.7; logos-package `docs/spec.md`, `src/core/package.cpp` and
 * `src/crypto/signing.cpp`): a gzip-compressed USTAR archive holding `manifest.json` at the root,
 * `variants/<variant>/…`, and optionally `manifest.sig`, `docs/` and `licenses/`; nothing else at the root.
 *
 * - Packing is deterministic as the reference's writer: `manifest.json` first, then every folder and file in
 *   byte order of their NFC paths, uid/gid 0, empty user and group names, mtime 0, folders 0755, files
 *   0644; the gzip header has mtime 0, no file name and the OS byte 0xFF.
 * - The package identity is `manifest.hashes.root`, the reference's Merkle tree (`computeMerkleTree`): a
 *   folder whose files are leaves hashes `SHA-256(Σ relPath ‖ 0x00 ‖ hex(SHA-256(bytes)) ‖ '\n')` over its
 *   files in byte order of their paths below it; `variants` hashes `SHA-256(Σ name ‖ 0x00 ‖ hexHash ‖ '\n')`
 *   over its variants' leaf hashes; the root the same over the top-level folders (`docs`, `licenses`,
 *   `variants`). `manifest.json` and `manifest.sig` are outside the tree. All hashes are lowercase hex.
 * - Reading refuses, before anything is written: a compressed package over 64 MiB or an archive over
 *   256 MiB unpacked (inferred: limits of this tool), paths that are absolute, empty, contain `..`, a
 *   backslash or are not NFC, links and any entry that is neither a file nor a folder, root entries other
 *   than the five above, files directly under `variants/`, a `main` without its variant (or the reverse),
 *   and a recomputed root hash that differs from the manifest's.
 */
import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import { Header, Parser, type ReadEntry } from 'tar';
import { LgxError } from './errors.ts';
import { unsafePath } from './lgx-paths.ts';
import { type Manifest, manifestJson, parseManifest } from './manifest.ts';

/** inferred: the largest `.lgx` this tool reads, and the largest archive it unpacks. */
export const MAX_PACKAGE_BYTES = 64 * 1024 * 1024;
export const MAX_UNPACKED_BYTES = 256 * 1024 * 1024;

const ROOT_ENTRIES = new Set(['manifest.json', 'manifest.sig', 'variants', 'docs', 'licenses']);

/** One file of a package, by its archive path (`variants/node/module.mjs`). */
export interface LgxFile {
  readonly path: string;
  readonly data: Uint8Array;
}

export interface LgxPackage {
  readonly manifest: Manifest;
  /** Every file except `manifest.json`, in archive order. */
  readonly files: readonly LgxFile[];
  /** Folders named by the archive (with those implied by the files' paths). */
  readonly dirs: ReadonlySet<string>;
  /** The root hash recomputed from the files. */
  readonly rootHash: string;
  readonly signed: boolean;
}

const sha256Hex = (data: Uint8Array | string): string => createHash('sha256').update(data).digest('hex');
const utf8 = new TextEncoder();
/** Byte order of UTF-8 strings (std::string's `<`). */
const byteOrder = (a: string, b: string): number => Buffer.compare(Buffer.from(a), Buffer.from(b));

function leafHash(files: readonly { rel: string; data: Uint8Array }[]): string {
  const sorted = [...files].sort((a, b) => byteOrder(a.rel, b.rel));
  const parts: Uint8Array[] = [];
  for (const f of sorted) parts.push(utf8.encode(`${f.rel}\0${sha256Hex(f.data)}\n`));
  return sha256Hex(Buffer.concat(parts));
}

function parentHash(children: ReadonlyMap<string, string>): string {
  const names = [...children.keys()].sort(byteOrder);
  return sha256Hex(names.map((n) => `${n}\0${children.get(n)}\n`).join(''));
}

/**
 * The package's Merkle hashes (`root`, `variants`, `variants/<name>`, `docs`, `licenses`, …) from its files;
 * empty when no file counts (the reference's `computeMerkleTree`).
 */
export function merkleHashes(files: readonly LgxFile[]): Record<string, string> {
  const out: Record<string, string> = {};
  const byTop = new Map<string, { rel: string; data: Uint8Array }[]>();
  const byVariant = new Map<string, { rel: string; data: Uint8Array }[]>();
  for (const f of files) {
    if (f.path === 'manifest.json' || f.path === 'manifest.sig') continue;
    const slash = f.path.indexOf('/');
    if (slash < 0) continue;
    const top = f.path.slice(0, slash);
    const rel = f.path.slice(slash + 1);
    if (rel === '') continue;
    if (top === 'variants') {
      const s2 = rel.indexOf('/');
      if (s2 < 0) continue;
      const variant = rel.slice(0, s2);
      const inner = rel.slice(s2 + 1);
      if (inner === '') continue;
      byVariant.set(variant, [...(byVariant.get(variant) ?? []), { rel: inner, data: f.data }]);
    } else byTop.set(top, [...(byTop.get(top) ?? []), { rel, data: f.data }]);
  }
  const tops = new Map<string, string>();
  for (const [top, list] of byTop) {
    const h = leafHash(list);
    out[top] = h;
    tops.set(top, h);
  }
  if (byVariant.size > 0) {
    const variants = new Map<string, string>();
    for (const [v, list] of byVariant) {
      const h = leafHash(list);
      out[`variants/${v}`] = h;
      variants.set(v, h);
    }
    const vh = parentHash(variants);
    out.variants = vh;
    tops.set('variants', vh);
  }
  if (tops.size > 0) out.root = parentHash(tops);
  return out;
}

/** The folders a set of file paths implies (`a/b/c.txt` → `a`, `a/b`). */
function parentDirs(paths: Iterable<string>): Set<string> {
  const dirs = new Set<string>();
  for (const p of paths) {
    const parts = p.split('/');
    for (let i = 1; i < parts.length; i++) dirs.add(parts.slice(0, i).join('/'));
  }
  return dirs;
}

function checkLayout(manifest: Manifest, files: readonly LgxFile[], dirs: ReadonlySet<string>): void {
  const all = [...files.map((f) => f.path), ...dirs];
  for (const p of all) {
    const why = unsafePath(p);
    if (why) throw new LgxError(`Invalid path '${p}': ${why}`);
    const root = p.split('/')[0]!;
    if (!ROOT_ENTRIES.has(root)) throw new LgxError(`Forbidden root entry: ${root}`);
  }
  if (!dirs.has('variants')) throw new LgxError('Missing variants/ directory');
  for (const f of files) {
    const parts = f.path.split('/');
    if (parts[0] === 'variants' && parts.length === 2)
      throw new LgxError(`File directly under variants/: ${f.path}`);
    if (dirs.has(f.path)) throw new LgxError(`'${f.path}' is both a file and a folder`);
  }
  const variants = new Set<string>();
  for (const p of all) {
    const parts = p.split('/');
    if (parts[0] === 'variants' && parts.length >= 2) variants.add(parts[1]!.toLowerCase());
  }
  for (const v of Object.keys(manifest.main))
    if (!variants.has(v)) throw new LgxError(`main[${v}] has no corresponding variant directory`);
  for (const v of variants)
    if (!Object.hasOwn(manifest.main, v)) throw new LgxError(`Variant '${v}' has no main entry`);
  for (const [v, mainPath] of Object.entries(manifest.main)) {
    const full = `variants/${v}/${mainPath}`;
    if (!files.some((f) => f.path === full))
      throw new LgxError(`main[${v}] points to non-existent file: ${mainPath}`);
  }
}

function tarHeader(path: string, type: 'File' | 'Directory', size: number): Buffer {
  const h = new Header({
    path: type === 'Directory' ? `${path}/` : path,
    mode: type === 'Directory' ? 0o755 : 0o644,
    uid: 0,
    gid: 0,
    size,
    mtime: new Date(0),
    type,
    uname: '',
    gname: '',
  });
  const block = Buffer.alloc(512);
  if (h.encode(block, 0)) throw new LgxError(`Path too long for a USTAR header: ${path}`);
  return block;
}

/**
 * Packs a package: `manifest` (its `hashes` recomputed) and `files` (archive paths under `variants/`,
 * `docs/`, `licenses/`). Throws `LgxError` on a layout the reader would refuse.
 */
export function packLgx(
  manifest: Manifest,
  files: readonly LgxFile[],
): { bytes: Buffer; manifest: Manifest } {
  const normalized = files.map((f) => ({ path: f.path.normalize('NFC'), data: f.data }));
  const seen = new Set<string>();
  for (const f of normalized) {
    if (seen.has(f.path)) throw new LgxError(`Duplicate path: ${f.path}`);
    seen.add(f.path);
  }
  const dirs = parentDirs(normalized.map((f) => f.path));
  dirs.add('variants');
  const hashes = merkleHashes(normalized);
  const final: Manifest = { ...manifest, hashes };
  checkLayout(final, normalized, dirs);
  const manifestBytes = utf8.encode(manifestJson(final));
  const blocks: Buffer[] = [tarHeader('manifest.json', 'File', manifestBytes.length), padded(manifestBytes)];
  const entries = [
    ...[...dirs].map((d) => ({ path: d, data: undefined as Uint8Array | undefined })),
    ...normalized.map((f) => ({ path: f.path, data: f.data as Uint8Array | undefined })),
  ].sort((a, b) => byteOrder(a.path, b.path));
  for (const e of entries) {
    if (e.data === undefined) blocks.push(tarHeader(e.path, 'Directory', 0));
    else blocks.push(tarHeader(e.path, 'File', e.data.length), padded(e.data));
  }
  blocks.push(Buffer.alloc(1024));
  const gz = gzipSync(Buffer.concat(blocks), { level: 9 });
  gz[9] = 0xff; // OS byte: unknown (the header is outside the gzip CRC)
  return { bytes: gz, manifest: final };
}

function padded(data: Uint8Array): Buffer {
  const pad = (512 - (data.length % 512)) % 512;
  return Buffer.concat([data, Buffer.alloc(pad)]);
}

/** Reads the entries of an archive: throws `LgxError` on a bad archive or a forbidden entry type. */
async function readTar(tarBytes: Buffer): Promise<{ files: LgxFile[]; dirs: Set<string> }> {
  const files: LgxFile[] = [];
  const dirs = new Set<string>();
  let problem: string | undefined;
  await new Promise<void>((resolve, reject) => {
    const parser = new Parser({ strict: true });
    parser.on('entry', (e: ReadEntry) => {
      const path = e.path.replace(/\/+$/, '');
      if (problem) return e.resume();
      if (e.type === 'Directory') {
        dirs.add(path);
        return e.resume();
      }
      if (e.type !== 'File' && e.type !== 'OldFile' && e.type !== 'ContiguousFile') {
        problem = `Forbidden entry type ${e.type}: ${path}`;
        return e.resume();
      }
      const chunks: Buffer[] = [];
      e.on('data', (c: Buffer) => chunks.push(c));
      e.on('end', () => files.push({ path, data: Buffer.concat(chunks) }));
    });
    parser.on('error', (err: Error) => reject(new LgxError(`Not a valid tar archive: ${err.message}`)));
    parser.on('warn', (_code: string, message: string | Error) => {
      problem ??= `Not a valid tar archive: ${typeof message === 'string' ? message : message.message}`;
    });
    parser.on('end', () => resolve());
    parser.end(tarBytes);
  });
  if (problem) throw new LgxError(problem);
  for (const d of parentDirs(files.map((f) => f.path))) dirs.add(d);
  return { files, dirs };
}

/** Gunzips a package within the size limits; throws `LgxError` beyond them or on bad gzip. */
function gunzipBounded(bytes: Uint8Array): Buffer {
  if (bytes.length > MAX_PACKAGE_BYTES)
    throw new LgxError(`Package is ${bytes.length} bytes; the limit is ${MAX_PACKAGE_BYTES}`);
  try {
    return gunzipSync(bytes, { maxOutputLength: MAX_UNPACKED_BYTES });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ERR_BUFFER_TOO_LARGE')
      throw new LgxError(`Package unpacks to more than ${MAX_UNPACKED_BYTES} bytes`);
    throw new LgxError(`Not a gzip archive: ${(e as Error).message}`);
  }
}

/**
 * Reads and verifies a package: structure, manifest, paths, and the root hash recomputed from the
 * contents against `manifest.hashes.root`. Throws `LgxError` with the reason.
 */
export async function readLgx(bytes: Uint8Array): Promise<LgxPackage> {
  const { files: all, dirs } = await readTar(gunzipBounded(bytes));
  const manifestFile = all.find((f) => f.path === 'manifest.json');
  if (!manifestFile) throw new LgxError('Missing manifest.json');
  const seen = new Set<string>();
  for (const f of all) {
    if (seen.has(f.path)) throw new LgxError(`Duplicate path: ${f.path}`);
    seen.add(f.path);
  }
  const manifest = parseManifest(Buffer.from(manifestFile.data).toString('utf8'));
  const files = all.filter((f) => f.path !== 'manifest.json');
  checkLayout(manifest, files, dirs);
  const hashes = merkleHashes(files);
  const rootHash = hashes.root ?? '';
  if (rootHash !== '') {
    const claimed = manifest.hashes.root;
    if (claimed === undefined) throw new LgxError("Missing 'root' hash in manifest");
    if (claimed !== rootHash)
      throw new LgxError(
        `Content hash mismatch: package content does not match manifest hashes (manifest root ${claimed}, contents ${rootHash})`,
      );
  }
  return { manifest, files, dirs, rootHash, signed: files.some((f) => f.path === 'manifest.sig') };
}
