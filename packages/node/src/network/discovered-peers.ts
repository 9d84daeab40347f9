/**
 * The peers this node has seen (connected, dialled, discovered), bounded: a peer seen again moves to
 * the newest place, one that could not be reached moves to the oldest, and beyond the bound the oldest
 * goes. A network that announces endless peer ids (a Kademlia flood, connection churn) then costs a
 * fixed amount of memory. Pure.
 * inferred: F lists its Kademlia routing table, bounded by its k-buckets (docs/design/fidelity.md)
 */

/** The most peers kept (F's Kademlia routing table holds at most 256 buckets of 20). */
export const MAX_DISCOVERED_PEERS = 5120;

export class DiscoveredPeers {
  /** In age order: the oldest (or unreachable) first. */
  private readonly peers = new Set<string>();

  constructor(private readonly max = MAX_DISCOVERED_PEERS) {}

  get size(): number {
    return this.peers.size;
  }

  /** A peer seen now: kept as the newest; the oldest beyond the bound goes. */
  seen(peer: string): void {
    this.peers.delete(peer);
    this.peers.add(peer);
    while (this.peers.size > this.max) {
      const oldest = this.peers.values().next().value as string;
      this.peers.delete(oldest);
    }
  }

  /** A peer that could not be reached: the first to go when room is needed. */
  unreachable(peer: string): void {
    if (!this.peers.has(peer)) return;
    const rest = [...this.peers].filter((p) => p !== peer);
    this.peers.clear();
    this.peers.add(peer);
    for (const p of rest) this.peers.add(p);
  }

  delete(peer: string): void {
    this.peers.delete(peer);
  }

  list(): string[] {
    return [...this.peers];
  }
}
