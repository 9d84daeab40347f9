/**
 * The Blend network's record of messages (F `blend/network/src/core/with_core/behaviour/message_cache.rs`),
 * keyed by message id (the PoQ key nullifier, as the caller computes it):
 * - a message is `processed` once received and verified, `forwarded` once sent to the core peers
 *   (published by this node, or relayed); a processed message is never verified, emitted nor relayed
 *   again, a forwarded one never sent again; `forwarded` is never downgraded to `processed`;
 * - per peer, the ids that peer sent: the same id twice from one peer is a duplicate (spam).
 * One cache per epoch: the old epoch keeps its own during the transition.
 */

export type MessageStatus = 'processed' | 'forwarded';

export class MessageCache {
  private readonly messages = new Map<string, MessageStatus>();
  private readonly fromPeers = new Map<string, Set<string>>();

  /** Marks a verified message as processed, unless it is already known; true when it was not. */
  markProcessed(id: string): boolean {
    if (this.messages.has(id)) return false;
    this.messages.set(id, 'processed');
    return true;
  }

  /** Marks a message as forwarded: it is not sent again, nor processed when received. */
  markForwarded(id: string): void {
    this.messages.set(id, 'forwarded');
  }

  /** Processed or forwarded. */
  isProcessed(id: string): boolean {
    return this.messages.has(id);
  }

  isForwarded(id: string): boolean {
    return this.messages.get(id) === 'forwarded';
  }

  status(id: string): MessageStatus | undefined {
    return this.messages.get(id);
  }

  /** Records that `peer` sent `id`; false when it already had (a duplicate from that peer). */
  markSeenFrom(id: string, peer: string): boolean {
    let seen = this.fromPeers.get(peer);
    if (seen === undefined) {
      seen = new Set();
      this.fromPeers.set(peer, seen);
    }
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  }

  /** Forgets what `peer` sent (its connection closed). */
  removePeer(peer: string): void {
    this.fromPeers.delete(peer);
  }

  /** The ids `peer` sent. */
  seenFrom(peer: string): string[] {
    return [...(this.fromPeers.get(peer) ?? [])];
  }
}
