/**
 * The node's own SDP state over the KvStore: the id of its current declaration (F: the SDP service's
 * recovery state, `SdpState { declaration_id }`). Written durably before a caller is told it changed.
 */
import { Bucket } from './buckets.ts';
import type { KvStore } from './kv.ts';

const DECLARATION_ID = new TextEncoder().encode('declaration_id');

export class SdpStore {
  constructor(private readonly kv: KvStore) {}

  /** The stored current declaration id; undefined when none was set (or it was cleared). */
  declarationId(): Uint8Array | undefined {
    const v = this.kv.get(Bucket.Sdp, DECLARATION_ID);
    return v === undefined ? undefined : v.slice();
  }

  /** Stores (an id) or clears (null) the current declaration; resolves once durable. */
  setDeclarationId(id: Uint8Array | null): Promise<void> {
    return this.kv.transaction((tx) => {
      if (id === null) tx.del(Bucket.Sdp, DECLARATION_ID);
      else tx.put(Bucket.Sdp, DECLARATION_ID, id);
    });
  }
}
