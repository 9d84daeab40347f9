/**
 * Opens the node's store in a data directory: creates the directory (mode 700), takes the directory lock,
 * checks the chain file, opens lmdb at `dir/chain.mdb` (lmdb adds `dir/chain.mdb-lock`) and the stores
 * over it.
 *
 * The chain file is checked before lmdb maps it (see lmdb-file.ts): a damaged file is refused with what to
 * do. A data folder that was used before (it holds anything but a stale lock) whose chain file is missing
 * or empty is refused too, unless `allowNewChain`: opening it would silently begin a new chain (on the
 * devnet, with a new genesis time) in place of the lost one.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ChainStore } from './chain-store.ts';
import { StorageError } from './errors.ts';
import { type KvStore, LmdbKv, type LmdbKvOptions } from './kv.ts';
import { checkLmdbFile } from './lmdb-file.ts';
import { LOCK_FILE, type LockOptions, lockDataDir } from './lock.ts';
import { MempoolStore } from './mempool-store.ts';
import { SdpStore } from './sdp-store.ts';
import { WalletStore } from './wallet-store.ts';

export const CHAIN_DB_FILE = 'chain.mdb';

export interface Store {
  readonly kv: KvStore;
  readonly chain: ChainStore;
  readonly wallet: WalletStore;
  readonly mempool: MempoolStore;
  readonly sdp: SdpStore;
  /** Waits for pending writes, closes lmdb and releases the directory lock. */
  close(): Promise<void>;
}

export interface OpenStoreOptions extends LockOptions, LmdbKvOptions {
  /**
   * Start a new chain in a data folder that was used before but has no chain file (or an empty one).
   * Without it such a folder is refused. A new or empty folder needs no permission.
   */
  readonly allowNewChain?: boolean;
}

/** Whether `dir` is missing or holds nothing but a lock file (left by a process that died right after taking it). */
function isNewFolder(dir: string): boolean {
  try {
    return fs.readdirSync(dir).every((name) => name === LOCK_FILE);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return true;
    throw e;
  }
}

export async function openStore(dir: string, options: OpenStoreOptions = {}): Promise<Store> {
  const isNew = isNewFolder(dir);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const lock = lockDataDir(dir, options);
  let kv: LmdbKv | undefined;
  try {
    const file = path.join(dir, CHAIN_DB_FILE);
    const state = checkLmdbFile(file).kind;
    if (state !== 'valid' && !isNew && options.allowNewChain !== true)
      throw new StorageError(
        'STORAGE_NO_CHAIN',
        `the data folder ${dir} was used before but its chain file ${file} is ${state}: starting would ` +
          'begin a new chain (on the devnet, with a new genesis time) in place of the one it held. ' +
          `Restore ${CHAIN_DB_FILE} from a backup; or, to start a new chain in this folder, start the node ` +
          'with --new-chain (or remove the folder).',
      );
    kv = LmdbKv.open(file, options);
    const chain = new ChainStore(kv);
    const wallet = new WalletStore(kv);
    const mempool = new MempoolStore(kv);
    const sdp = new SdpStore(kv);
    const opened = kv;
    let closing: Promise<void> | undefined;
    return {
      kv: opened,
      chain,
      wallet,
      mempool,
      sdp,
      close() {
        closing ??= (async () => {
          try {
            await opened.close();
          } finally {
            lock.release();
          }
        })();
        return closing;
      },
    };
  } catch (e) {
    await kv?.close().catch(() => {});
    lock.release();
    if (e instanceof StorageError && e.code === 'STORAGE_DAMAGED')
      throw new StorageError(
        'STORAGE_DAMAGED',
        `${e.message}. The node cannot open it. Restore the data folder ${dir} from a backup, or remove ` +
          'the folder to start again from the genesis block (the stored chain is then lost).',
      );
    throw e;
  }
}
