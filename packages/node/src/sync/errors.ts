/**
 * Chain sync's errors: a peer that failed a request (`SYNC_PEER`), a peer's provider that refused
 * (`SYNC_UNAVAILABLE`), IBD with no peer answering (`SYNC_ALL_PEERS_FAILED`, F `AllPeersFailed`).
 */
import { LogosError } from '@logos-ts/shared/errors';

export type SyncErrorCode =
  | 'SYNC_PEER'
  | 'SYNC_UNAVAILABLE'
  | 'SYNC_ALL_PEERS_FAILED'
  /** No checkpoint the peers agree on could be fetched (checkpoint-protocol.ts). */
  | 'SYNC_CHECKPOINT';

export interface SyncErrorMeta {
  readonly peer?: string;
  readonly [key: string]: unknown;
}

export class SyncError extends LogosError<SyncErrorMeta> {
  declare readonly code: SyncErrorCode;

  constructor(code: SyncErrorCode, message: string, options: { cause?: unknown; meta?: SyncErrorMeta } = {}) {
    super(code, message, options);
  }
}
LogosError.register(SyncError);
