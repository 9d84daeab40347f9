/**
 * The dataset manifest of the storage module (operator.md §3.1; logos-storage-nim
 * `codex/manifest/coders.nim` `encode`/`decode`): a dag-pb style node whose field 1 holds the
 * protobuf `Header { bytes treeCid = 1; uint32 blockSize = 2; uint64 datasetSize = 3; uint32 codec = 4;
 * uint32 hcodec = 5; uint32 version = 6; ErasureInfo erasure = 7; string filename = 8;
 * string mimetype = 9 }`, fields written in that order as nim-libp2p's minprotobuf writes them (varints
 * always written, optional strings only when set). The manifest's CID is the `codex-manifest` CID of
 * these bytes. Erasure-coded (protected) manifests are refused: this node neither makes nor reads them.
 */
import type { CID } from 'multiformats/cid';
import { BLOCK_CODEC, cidFromBytes, ROOT_CODEC, SHA2_256 } from './cid.ts';
import { StorageModuleError } from './errors.ts';
import { ProtoWriter, readFieldList } from './protobuf.ts';

export interface Manifest {
  readonly treeCid: CID;
  readonly blockSize: number;
  readonly datasetSize: number;
  readonly filename?: string;
  readonly mimetype?: string;
}

/** Manifests larger than this are refused when decoding (a real one is under 200 bytes plus names). */
export const MAX_MANIFEST_BYTES = 64 * 1024;

const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder('utf-8', { fatal: true });

/** Protobuf fields of one message, the last of a repeated field winning. */
function readFields(buf: Uint8Array): Map<number, number | Uint8Array> {
  return new Map(readFieldList(buf));
}

export function encodeManifest(m: Manifest): Uint8Array {
  const h = new ProtoWriter();
  h.bytes(1, m.treeCid.bytes);
  h.uint(2, m.blockSize);
  h.uint(3, m.datasetSize);
  h.uint(4, BLOCK_CODEC);
  h.uint(5, SHA2_256);
  h.uint(6, 1);
  if (m.filename !== undefined) h.bytes(8, utf8.encode(m.filename));
  if (m.mimetype !== undefined) h.bytes(9, utf8.encode(m.mimetype));
  const node = new ProtoWriter();
  node.bytes(1, h.finish());
  return node.finish();
}

/** Decodes a manifest; throws "Unable to decode …" (the reference's wording) on anything malformed. */
export function decodeManifest(bytes: Uint8Array): Manifest {
  if (bytes.length > MAX_MANIFEST_BYTES)
    throw new StorageModuleError('STORAGE_MODULE_BAD_MANIFEST', 'Unable to decode manifest: too large');
  let header: Map<number, number | Uint8Array>;
  try {
    const node = readFields(bytes);
    const h = node.get(1);
    if (!(h instanceof Uint8Array)) throw new StorageModuleError('STORAGE_MODULE_BAD_MANIFEST', 'no Header');
    header = readFields(h);
  } catch (e) {
    throw new StorageModuleError(
      'STORAGE_MODULE_BAD_MANIFEST',
      `Unable to decode \`Header\` from dag-pb manifest: ${(e as Error).message}`,
    );
  }
  const num = (f: number, name: string): number => {
    const v = header.get(f);
    if (typeof v !== 'number')
      throw new StorageModuleError(
        'STORAGE_MODULE_BAD_MANIFEST',
        `Unable to decode \`${name}\` from manifest!`,
      );
    return v;
  };
  const str = (f: number): string | undefined => {
    const v = header.get(f);
    if (v === undefined) return undefined;
    if (!(v instanceof Uint8Array))
      throw new StorageModuleError('STORAGE_MODULE_BAD_MANIFEST', 'Unable to decode manifest strings');
    return fromUtf8.decode(v);
  };
  const tree = header.get(1);
  if (!(tree instanceof Uint8Array))
    throw new StorageModuleError('STORAGE_MODULE_BAD_MANIFEST', 'Unable to decode `treeCid` from manifest!');
  let treeCid: CID;
  try {
    treeCid = cidFromBytes(tree);
  } catch {
    throw new StorageModuleError('STORAGE_MODULE_BAD_MANIFEST', 'Unable to decode `treeCid` from manifest!');
  }
  if (treeCid.code !== ROOT_CODEC || treeCid.multihash.code !== SHA2_256)
    throw new StorageModuleError(
      'STORAGE_MODULE_BAD_MANIFEST',
      'Unable to decode manifest: the tree CID is not a sha2-256 codex-root CID',
    );
  const blockSize = num(2, 'blockSize');
  const datasetSize = num(3, 'datasetSize');
  if (num(4, 'codec') !== BLOCK_CODEC || num(5, 'hcodec') !== SHA2_256 || num(6, 'version') !== 1)
    throw new StorageModuleError(
      'STORAGE_MODULE_BAD_MANIFEST',
      'Unable to decode manifest: unsupported dataset codec, hash or CID version',
    );
  if (header.has(7))
    throw new StorageModuleError(
      'STORAGE_MODULE_BAD_MANIFEST',
      'Unable to decode manifest: erasure-coded datasets are not supported',
    );
  if (blockSize <= 0)
    throw new StorageModuleError(
      'STORAGE_MODULE_BAD_MANIFEST',
      'Unable to decode manifest: block size must be positive',
    );
  const filename = str(8);
  const mimetype = str(9);
  return {
    treeCid,
    blockSize,
    datasetSize,
    ...(filename !== undefined ? { filename } : {}),
    ...(mimetype !== undefined ? { mimetype } : {}),
  };
}

/** The number of blocks of a dataset (the last one zero-padded to the block size). */
export function blocksCount(m: Pick<Manifest, 'blockSize' | 'datasetSize'>): number {
  return Math.ceil(m.datasetSize / m.blockSize);
}
