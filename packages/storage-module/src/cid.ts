/**
 * Codex-shaped content identifiers of the storage module (operator.md §3.1): CIDv1 with the Codex
 * multicodecs `codex-manifest` 0xcd01, `codex-block` 0xcd02 and `codex-root` 0xcd03
 * (logos-storage-nim `codex/multicodec_exts.nim`), a sha2-256 multihash, written in base58btc (`z…`;
 * a manifest CID starts `zDvZ`). A block's CID is the sha2-256 of its bytes.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { base58btc } from 'multiformats/bases/base58';
import { CID } from 'multiformats/cid';
import * as Digest from 'multiformats/hashes/digest';
import { StorageModuleError } from './errors.ts';

export const MANIFEST_CODEC = 0xcd01;
export const BLOCK_CODEC = 0xcd02;
export const ROOT_CODEC = 0xcd03;
export const SHA2_256 = 0x12;

/** A CIDv1 of `codec` over the sha2-256 `digest` (32 bytes). */
export function cidOfDigest(codec: number, digest: Uint8Array): CID {
  return CID.createV1(codec, Digest.create(SHA2_256, digest));
}

/** The CID of `bytes` under `codec` (its sha2-256). */
export function cidOf(codec: number, bytes: Uint8Array): CID {
  return cidOfDigest(codec, sha256(bytes));
}

/** The base58btc text of a CID (`z…`), as the reference prints CIDs. */
export function cidText(cid: CID): string {
  return cid.toString(base58btc);
}

/**
 * Parses a CID text of one of the Codex codecs with a sha2-256 multihash; throws with a clear message
 * for anything else.
 */
export function parseCid(text: string): CID {
  let cid: CID;
  try {
    cid = CID.parse(text);
  } catch {
    throw new StorageModuleError('STORAGE_MODULE_BAD_CID', `cannot parse cid: ${text}`);
  }
  if (cid.version !== 1)
    throw new StorageModuleError('STORAGE_MODULE_BAD_CID', `cannot parse cid: ${text} (not a CIDv1)`);
  if (![MANIFEST_CODEC, BLOCK_CODEC, ROOT_CODEC].includes(cid.code))
    throw new StorageModuleError('STORAGE_MODULE_BAD_CID', `cannot parse cid: ${text} (not a storage codec)`);
  if (cid.multihash.code !== SHA2_256 || cid.multihash.digest.length !== 32)
    throw new StorageModuleError(
      'STORAGE_MODULE_BAD_CID',
      `cannot parse cid: ${text} (not a sha2-256 multihash)`,
    );
  return cid;
}

/** Whether `bytes` hash to the digest of `cid`. */
export function matchesCid(cid: CID, bytes: Uint8Array): boolean {
  const d = sha256(bytes);
  const want = cid.multihash.digest;
  if (d.length !== want.length) return false;
  for (let i = 0; i < d.length; i++) if (d[i] !== want[i]) return false;
  return true;
}

/** The CID of its binary form (as the manifest carries the tree CID). */
export function cidFromBytes(bytes: Uint8Array): CID {
  return CID.decode(bytes);
}
