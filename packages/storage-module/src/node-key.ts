/**
 * The storage node's libp2p identity (operator.md §3.1 "storage peer ids are secp256k1 `16Uiu2…`",
 * §3.3 `net-privkey`; logos-storage-nim `codex/utils/keyutils.nim` `setupKey`): a secp256k1 key kept
 * as the libp2p protobuf encoding of the private key in the `net-privkey` file, created with mode
 * 600 when missing; an existing file readable by group or others is refused ("The network private
 * key file is not safe"), as the reference refuses it.
 */
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { generateKeyPair, privateKeyFromProtobuf, privateKeyToProtobuf } from '@libp2p/crypto/keys';
import type { PrivateKey } from '@libp2p/interface';
import { writeFileAtomic } from '@logos-ts/shared/atomic-file';
import { StorageModuleError } from './errors.ts';

/** Reads the key at `path`, or creates it; throws with a message naming the path, never the key. */
export async function setupKey(path: string): Promise<PrivateKey> {
  if (!existsSync(path)) {
    const key = await generateKeyPair('secp256k1');
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    writeFileAtomic(path, privateKeyToProtobuf(key), false);
    return key;
  }
  const st = statSync(path);
  if (!st.isFile())
    throw new StorageModuleError('STORAGE_MODULE_NODE_KEY', `The network private key ${path} is not a file`);
  if ((st.mode & 0o077) !== 0)
    throw new StorageModuleError(
      'STORAGE_MODULE_NODE_KEY',
      `The network private key file is not safe: ${path} (chmod 600 it)`,
    );
  let key: PrivateKey;
  try {
    key = privateKeyFromProtobuf(readFileSync(path));
  } catch {
    throw new StorageModuleError(
      'STORAGE_MODULE_NODE_KEY',
      `The network private key file ${path} holds no libp2p private key`,
    );
  }
  if (key.type !== 'secp256k1')
    throw new StorageModuleError(
      'STORAGE_MODULE_NODE_KEY',
      `The network private key in ${path} is not a secp256k1 key`,
    );
  return key;
}
