/**
 * Storage failures. Codes follow the node's convention (`STORAGE_` + what went wrong, see `@logos-ts/shared/errors`).
 */
import { LogosError } from '@logos-ts/shared/errors';

export type StorageErrorCode =
  /** A chain update would break the canonical indices; nothing was written. */
  | 'STORAGE_INCONSISTENT_UPDATE'
  /** The data directory is locked by another live process. */
  | 'STORAGE_DATA_DIR_LOCKED'
  /** The store was written by an incompatible version of the node. */
  | 'STORAGE_SCHEMA'
  /** The lmdb data file is damaged (cut short, meta pages overwritten): it is not opened. */
  | 'STORAGE_DAMAGED'
  /** The data folder was used before but its chain file is missing or empty; no new chain is started. */
  | 'STORAGE_NO_CHAIN'
  /** A write failed for lack of space (disk full, quota, lmdb map full); nothing of it was written. */
  | 'STORAGE_DISK_FULL';

export class StorageError extends LogosError {
  declare readonly code: StorageErrorCode;

  constructor(code: StorageErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
  }
}
LogosError.register(StorageError);
