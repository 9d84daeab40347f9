/**
 * Opens the node's store in a data directory: creates the directory (mode 700), takes the directory lock,
 * opens lmdb at `dir/chain.mdb` (lmdb adds `dir/chain.mdb-lock`) and the chain store over it.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ChainStore } from './chain-store.ts';
import { type KvStore, LmdbKv, type LmdbKvOptions } from './kv.ts';
import { type LockOptions, lockDataDir } from './lock.ts';
import { WalletStore } from './wallet-store.ts';

export const CHAIN_DB_FILE = 'chain.mdb';

export interface Store {
  readonly kv: KvStore;
  readonly chain: ChainStore;
  readonly wallet: WalletStore;
  /** Waits for pending writes, closes lmdb and releases the directory lock. */
  close(): Promise<void>;
}

export interface OpenStoreOptions extends LockOptions, LmdbKvOptions {}

export async function openStore(dir: string, options: OpenStoreOptions = {}): Promise<Store> {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const lock = lockDataDir(dir, options);
  let kv: LmdbKv | undefined;
  try {
    kv = LmdbKv.open(path.join(dir, CHAIN_DB_FILE), options);
    const chain = new ChainStore(kv);
    const wallet = new WalletStore(kv);
    const opened = kv;
    let closing: Promise<void> | undefined;
    return {
      kv: opened,
      chain,
      wallet,
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
    throw e;
  }
}
