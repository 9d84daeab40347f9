/**
 * Storage failures. Codes follow the node's convention (`STORAGE_` + what went wrong, see errors/base.ts).
 */
import { LogosError } from '../errors/base.ts';

export type StorageErrorCode =
  /** A chain update would break the canonical indices; nothing was written. */
  | 'STORAGE_INCONSISTENT_UPDATE'
  /** The data directory is locked by another live process. */
  | 'STORAGE_DATA_DIR_LOCKED'
  /** The store was written by an incompatible version of the node. */
  | 'STORAGE_SCHEMA';

export class StorageError extends LogosError {
  declare readonly code: StorageErrorCode;

  constructor(code: StorageErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
  }
}
LogosError.register(StorageError);
