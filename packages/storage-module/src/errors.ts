/**
 * The storage module's failures, as `LogosError`s (codes `STORAGE_MODULE_` + what went wrong). Their
 * messages are the texts the module reports (libstorage's wording where the reference has one,
 * operator.md §3); a bad call argument is the shared `ArgumentError`, a bad `init` configuration the
 * shared `ConfigError`.
 */
import { LogosError } from '@logos-ts/shared/errors';

export type StorageModuleErrorCode =
  /** A CID that is not a storage CID (CIDv1, storage codec, sha2-256). */
  | 'STORAGE_MODULE_BAD_CID'
  /** A CID of the wrong kind for the call (a tree CID for a manifest, a block CID for a manifest...). */
  | 'STORAGE_MODULE_WRONG_CID_KIND'
  /** A manifest that does not decode, or describes a dataset this node does not read. */
  | 'STORAGE_MODULE_BAD_MANIFEST'
  /** Malformed protobuf bytes. */
  | 'STORAGE_MODULE_BAD_PROTOBUF'
  /** A signed peer record (`spr:`) that does not decode or verify. */
  | 'STORAGE_MODULE_BAD_SPR'
  /** A block exchange request that breaks the protocol. */
  | 'STORAGE_MODULE_BAD_WANT'
  /** A block exchange frame that is too large or cut short. */
  | 'STORAGE_MODULE_BAD_FRAME'
  /** A block exchange frame that did not come in time. */
  | 'STORAGE_MODULE_FRAME_TIMEOUT'
  /** A peer broke the block exchange; it is disconnected. */
  | 'STORAGE_MODULE_BAD_PEER'
  /** A write would exceed the storage quota. */
  | 'STORAGE_MODULE_QUOTA_EXCEEDED'
  /** A dataset without blocks. */
  | 'STORAGE_MODULE_EMPTY_DATASET'
  /** A block is neither stored nor (for a local-only read) fetched. */
  | 'STORAGE_MODULE_BLOCK_NOT_FOUND'
  /** Blocks that do not match their CID or tree CID. */
  | 'STORAGE_MODULE_BLOCK_MISMATCH'
  /** No peer could give the data in time. */
  | 'STORAGE_MODULE_FETCH_FAILED'
  /** A dial that found no address to try. */
  | 'STORAGE_MODULE_DIAL_FAILED'
  /** A connection the node refuses to make (to itself, to a peer that sent bad data). */
  | 'STORAGE_MODULE_CONNECT_REFUSED'
  /** The network key file is unsafe, unreadable or of the wrong type. */
  | 'STORAGE_MODULE_NODE_KEY'
  /** An upload was cancelled or could not be finalised. */
  | 'STORAGE_MODULE_UPLOAD_FAILED';

export class StorageModuleError extends LogosError {
  declare readonly code: StorageModuleErrorCode;

  constructor(
    code: StorageModuleErrorCode,
    message: string,
    options?: { cause?: unknown; meta?: Readonly<Record<string, unknown>> },
  ) {
    super(code, message, options);
  }
}
LogosError.register(StorageModuleError);

/** A write that would exceed the storage quota. */
export class QuotaExceeded extends StorageModuleError {
  constructor(need: number, free: number) {
    super(
      'STORAGE_MODULE_QUOTA_EXCEEDED',
      `Not enough storage quota: ${need} bytes needed, ${free} bytes free`,
      {
        meta: { need, free },
      },
    );
  }
}
LogosError.register(QuotaExceeded);

/** A peer that broke the protocol (a malformed or oversized frame); it is disconnected. */
export class BadPeer extends StorageModuleError {
  constructor(
    readonly peer: string,
    reason: string,
  ) {
    super('STORAGE_MODULE_BAD_PEER', `peer ${peer} broke the block exchange: ${reason}`, {
      meta: { peer, reason },
    });
  }
}
LogosError.register(BadPeer);
