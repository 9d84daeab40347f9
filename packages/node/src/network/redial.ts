/**
 * Holds back dials to a peer that closes this node's connections at once (beyond the reference, which
 * redials nobody on its own). js-libp2p redials a peer Kademlia keeps close as soon as its connection
 * closes; a peer that accepts the transport and then drops the connection (one that banned this node,
 * or is full) would be redialled in a loop, hundreds of times a second, and its per-address inbound
 * limit would then refuse every other peer behind the same address. An outbound connection that
 * closes within `shortMs` of opening holds back dials to that peer for `firstMs`, doubling at each
 * such close up to `maxMs`; a connection that lasts longer clears the hold. Pure: time is passed in.
 */

export interface RedialSettings {
  /** A connection closed sooner than this after opening counts as dropped at once. */
  readonly shortMs: number;
  readonly firstMs: number;
  readonly maxMs: number;
}

// inferred: the reference redials no peer by itself; these values are this node's own (docs/design/fidelity.md)
export const DEFAULT_REDIAL: RedialSettings = { shortMs: 2_000, firstMs: 1_000, maxMs: 5 * 60_000 };

interface Hold {
  until: number;
  /** The hold after the next quick close. */
  next: number;
}

export class RedialBackoff {
  private readonly holds = new Map<string, Hold>();

  constructor(private readonly s: RedialSettings = DEFAULT_REDIAL) {}

  /** An outbound connection to `peer` closed after `livedMs`; returns the hold now in force (0: none). */
  closed(peer: string, livedMs: number, now: number): number {
    if (livedMs >= this.s.shortMs) {
      this.holds.delete(peer);
      return 0;
    }
    const wait = Math.min(this.s.maxMs, this.holds.get(peer)?.next ?? this.s.firstMs);
    this.holds.set(peer, { until: now + wait, next: wait * 2 });
    this.prune(now);
    return wait;
  }

  /** Whether dials to `peer` are held back at `now`. */
  held(peer: string, now: number): boolean {
    const h = this.holds.get(peer);
    return h !== undefined && h.until > now;
  }

  /** Forgets holds long expired, so the map stays small. */
  private prune(now: number): void {
    if (this.holds.size < 1024) return;
    for (const [p, h] of this.holds) if (h.until + this.s.maxMs <= now) this.holds.delete(p);
  }
}
