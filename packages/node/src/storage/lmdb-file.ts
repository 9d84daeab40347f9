/**
 * Checks an lmdb data file against its own two meta pages before lmdb maps it into memory.
 *
 * lmdb trusts its file: it maps it and reads pages through the mapping, so a file cut short (a copy or a
 * disk that lost its tail) or with overwritten meta pages makes the process fault (SIGBUS/SIGSEGV) and die
 * without a message. This check refuses such a file with a StorageError instead.
 *
 * Layout, read from the C source lmdb-js builds (`dependencies/lmdb/libraries/liblmdb/mdb.c`: MDB_page_header,
 * MDB_meta, MDB_db, mdb_env_read_header, mdb_env_write_meta), 64-bit little-endian:
 * - pages 0 and 1 (`mm_psize` bytes each) are meta pages; lmdb uses the one with the larger `mm_txnid`;
 * - a page starts with a 24-byte header: mp_pgno u64 @0, mp_txnid u64 @8, mp_pad u16 @16, mp_flags u16 @18
 *   (P_META = 0x08), mp_lower u16 @20, mp_upper u16 @22;
 * - MDB_meta follows at byte 24: mm_magic u32 @0 (0xBEEFC0DE), mm_version u32 @4 (low 16 bits:
 *   MDB_DATA_VERSION = 2), mm_address @8, mm_mapsize u64 @16, mm_dbs[2] (two 48-byte MDB_db) @24 whose
 *   first md_pad u32 is mm_psize (@24), mm_last_pg u64 @120, mm_txnid u64 @128;
 * - every page up to `mm_last_pg` of the meta in use may be read, so the file must hold them all.
 * A zero-length file is what lmdb makes of a new database before its first meta pages are written.
 */
import * as fs from 'node:fs';
import { endianness } from 'node:os';
import { StorageError } from './errors.ts';

const LMDB_MAGIC = 0xbeefc0de;
const LMDB_DATA_VERSION = 2;
const PAGE_HEADER_BYTES = 24;
const P_META = 0x08;
const META_BYTES = 136; // up to and including mm_txnid
const MIN_PAGE_SIZE = 256;
const MAX_PAGE_SIZE = 0x10000;
/** Larger map sizes than this (64 PiB) only come from overwritten bytes. */
const MAX_MAP_SIZE = 1n << 56n;

export interface LmdbMeta {
  readonly pageSize: number;
  readonly mapSize: bigint;
  readonly lastPage: bigint;
  readonly txnId: bigint;
}

export type LmdbFileState =
  | { readonly kind: 'missing' }
  /** Zero bytes long. */
  | { readonly kind: 'empty' }
  /** `meta` is undefined on a big-endian machine, where the meta pages are not read. */
  | { readonly kind: 'valid'; readonly size: number; readonly meta: LmdbMeta | undefined };

function damaged(file: string, what: string): StorageError {
  return new StorageError('STORAGE_DAMAGED', `the chain data file ${file} is damaged: ${what}`);
}

function readAt(fd: number, offset: number, length: number): Buffer {
  const buf = Buffer.alloc(length);
  let got = 0;
  while (got < length) {
    const n = fs.readSync(fd, buf, got, length - got, offset + got);
    if (n === 0) break;
    got += n;
  }
  return buf.subarray(0, got);
}

/** The meta in meta page `index` (the page's first bytes), or a description of what is wrong with it. */
function parseMeta(page: Buffer, index: number): LmdbMeta | string {
  const flags = page.readUInt16LE(18);
  const m = PAGE_HEADER_BYTES;
  const magic = page.readUInt32LE(m);
  if ((flags & P_META) === 0 || magic !== LMDB_MAGIC)
    return `meta page ${index} is not an lmdb meta page (magic 0x${magic.toString(16).padStart(8, '0')}, flags 0x${flags.toString(16)})`;
  const version = page.readUInt32LE(m + 4) & 0xffff;
  if (version !== LMDB_DATA_VERSION)
    return `meta page ${index} has lmdb data version ${version}, this node reads version ${LMDB_DATA_VERSION}`;
  const pageSize = page.readUInt32LE(m + 24);
  if (pageSize < MIN_PAGE_SIZE || pageSize > MAX_PAGE_SIZE || (pageSize & (pageSize - 1)) !== 0)
    return `meta page ${index} has an impossible page size ${pageSize}`;
  const mapSize = page.readBigUInt64LE(m + 16);
  if (mapSize < BigInt(2 * pageSize) || mapSize > MAX_MAP_SIZE)
    return `meta page ${index} has an impossible map size ${mapSize}`;
  const lastPage = page.readBigUInt64LE(m + 120);
  if (lastPage < 1n) return `meta page ${index} has an impossible last page ${lastPage}`;
  return { pageSize, mapSize, lastPage, txnId: page.readBigUInt64LE(m + 128) };
}

/**
 * Whether `file` is missing, empty, or an lmdb file whose meta pages are sound and whose length covers
 * every page the newer meta uses. Throws STORAGE_DAMAGED (naming the file and the fault) otherwise.
 * On a big-endian machine only missing and empty are told apart (the layout above is little-endian).
 */
export function checkLmdbFile(file: string): LmdbFileState {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'missing' };
    throw e;
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) throw damaged(file, 'it is not a regular file');
    const size = st.size;
    if (size === 0) return { kind: 'empty' };
    if (endianness() !== 'LE') return { kind: 'valid', size, meta: undefined };
    const first = readAt(fd, 0, PAGE_HEADER_BYTES + META_BYTES);
    if (first.length < PAGE_HEADER_BYTES + META_BYTES)
      throw damaged(file, `it is ${size} bytes long, shorter than one lmdb meta page`);
    const meta0 = parseMeta(first, 0);
    if (typeof meta0 === 'string') throw damaged(file, meta0);
    const { pageSize } = meta0;
    if (size < 2 * pageSize)
      throw damaged(file, `it is ${size} bytes long, shorter than its two meta pages of ${pageSize} bytes`);
    const meta1 = parseMeta(readAt(fd, pageSize, PAGE_HEADER_BYTES + META_BYTES), 1);
    if (typeof meta1 === 'string') throw damaged(file, meta1);
    if (meta1.pageSize !== pageSize)
      throw damaged(file, `its meta pages disagree on the page size (${pageSize} and ${meta1.pageSize})`);
    const meta = meta1.txnId > meta0.txnId ? meta1 : meta0;
    const needed = (meta.lastPage + 1n) * BigInt(pageSize);
    if (BigInt(size) < needed)
      throw damaged(
        file,
        `it is ${size} bytes long but its last committed transaction (${meta.txnId}) uses ${needed} bytes ` +
          `(${meta.lastPage + 1n} pages of ${pageSize} bytes): the file was cut short`,
      );
    return { kind: 'valid', size, meta };
  } finally {
    fs.closeSync(fd);
  }
}
