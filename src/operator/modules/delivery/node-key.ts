/**
 * The secp256k1 identity of the `delivery_module` node (operator.md §4.1 `nodekey`, §6.3: peer ids
 * `16Uiu2…`): the configured `nodekey`, else the key kept in the module's data folder (`nodekey`, 64 hex
 * characters, mode 600), created on first use so the node keeps its peer id and ENR across restarts.
 * The secret is never logged.
 */
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  existsSync,
  fsyncSync,
  linkSync,
  openSync,
  readFileSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { generateKeyPair, privateKeyFromRaw } from '@libp2p/crypto/keys';
import type { PrivateKey } from '@libp2p/interface';

export const NODE_KEY_FILE = 'nodekey';

export interface NodeKey {
  readonly privateKey: PrivateKey;
  /** The 32-byte secret (for the ENR signature). */
  readonly secret: Uint8Array;
}

function fromHex(hex: string, where: string): NodeKey {
  if (!/^[0-9a-f]{64}$/.test(hex))
    throw new Error(`${where}: not a secp256k1 secret key of 64 hex characters`);
  const secret = Uint8Array.from(Buffer.from(hex, 'hex'));
  let privateKey: PrivateKey;
  try {
    privateKey = privateKeyFromRaw(secret);
  } catch {
    throw new Error(`${where}: not a valid secp256k1 secret key`);
  }
  return { privateKey, secret };
}

/** The node's key: `nodekey` (hex) when configured, else the one of `dataDir` (created when absent). */
export async function loadNodeKey(nodekey: string | null, dataDir: string): Promise<NodeKey> {
  if (nodekey !== null) return fromHex(nodekey, 'nodekey');
  const path = join(dataDir, NODE_KEY_FILE);
  if (existsSync(path)) return fromHex(readFileSync(path, 'utf8').trim().toLowerCase(), path);
  const key = await generateKeyPair('secp256k1');
  const secret = key.raw;
  writeNew(dataDir, path, `${Buffer.from(secret).toString('hex')}\n`);
  return { privateKey: key, secret };
}

/**
 * Creates `path` (mode 600) with `content` through a temporary file in `dir`, hard-linked into place
 * once complete and synced: a kill or a full disk mid-write never leaves a partial key file, and an
 * existing file is never replaced.
 */
function writeNew(dir: string, path: string, content: string): void {
  const tmp = join(dir, `.${NODE_KEY_FILE}.${randomBytes(6).toString('hex')}.tmp`);
  const fd = openSync(tmp, 'wx', 0o600);
  try {
    try {
      const data = Buffer.from(content);
      let at = 0;
      while (at < data.length) at += writeSync(fd, data, at, data.length - at);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    linkSync(tmp, path);
  } finally {
    unlinkSync(tmp);
  }
}
