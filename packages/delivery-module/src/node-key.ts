import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateKeyPair, privateKeyFromRaw } from '@libp2p/crypto/keys';
import type { PrivateKey } from '@libp2p/interface';
import { writeFileAtomic } from '@logos-ts/shared/atomic-file';
import { DeliveryError } from './errors.ts';

export const NODE_KEY_FILE = 'nodekey';

export interface NodeKey {
  readonly privateKey: PrivateKey;
  /** The 32-byte secret (for the ENR signature). */
  readonly secret: Uint8Array;
}

function fromHex(hex: string, where: string): NodeKey {
  if (!/^[0-9a-f]{64}$/.test(hex))
    throw new DeliveryError('DELIVERY_NODE_KEY', `${where}: not a secp256k1 secret key of 64 hex characters`);
  const secret = Uint8Array.from(Buffer.from(hex, 'hex'));
  let privateKey: PrivateKey;
  try {
    privateKey = privateKeyFromRaw(secret);
  } catch {
    throw new DeliveryError('DELIVERY_NODE_KEY', `${where}: not a valid secp256k1 secret key`);
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
  // Through a temporary file: a kill or a full disk mid-write never leaves a partial key file, and an
  // existing one is never replaced.
  writeFileAtomic(path, `${Buffer.from(secret).toString('hex')}\n`, true);
  return { privateKey: key, secret };
}
