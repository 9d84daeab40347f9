/**
 * Which peers keep sending transactions that fail: refused by preverification, or admitted apart as
 * not applicable on the view (they spend what is not there). The peer counted is the one that delivered
 * the message first (gossipsub hands a message over once, from its first deliverer): the originator of
 * a transaction it made up, or an honest peer that was first to forward one. Each peer's count decays
 * by half every `halfLifeMs`; past `tolerated`, each further failure is an offence of its own, so a
 * steady source of junk is banned while a peer that forwards the odd failing transaction never is.
 * inferred: the reference neither scores peers nor checks a gossiped transaction against its ledger
 * before the block (docs/design/fidelity.md)
 * Pure: time is passed in.
 */

export interface FailingSourcesSettings {
  /** Failures a peer may be the source of (decayed count) before each further one is an offence. */
  readonly tolerated: number;
  readonly halfLifeMs: number;
  /** Peers tracked at most (the lowest counts are forgotten first). */
  readonly maxPeers: number;
}

export const DEFAULT_FAILING_SOURCES: FailingSourcesSettings = {
  tolerated: 32,
  halfLifeMs: 60_000,
  maxPeers: 4096,
};

export class FailingSources {
  private readonly counts = new Map<string, { n: number; at: number }>();

  constructor(private readonly s: FailingSourcesSettings = DEFAULT_FAILING_SOURCES) {}

  /** Counts one failure of `peer`; answers whether it is past the tolerated count (an offence). */
  failed(peer: string, now: number): boolean {
    const e = this.counts.get(peer);
    const n = (e === undefined ? 0 : e.n * 0.5 ** (Math.max(0, now - e.at) / this.s.halfLifeMs)) + 1;
    this.counts.delete(peer);
    this.counts.set(peer, { n, at: now });
    if (this.counts.size > this.s.maxPeers) this.forget(now);
    return n > this.s.tolerated;
  }

  /** The decayed count of a peer. */
  count(peer: string, now: number): number {
    const e = this.counts.get(peer);
    return e === undefined ? 0 : e.n * 0.5 ** (Math.max(0, now - e.at) / this.s.halfLifeMs);
  }

  private forget(now: number): void {
    let low: string | undefined;
    let lowN = Number.POSITIVE_INFINITY;
    for (const [p, e] of this.counts) {
      const n = e.n * 0.5 ** (Math.max(0, now - e.at) / this.s.halfLifeMs);
      if (n < 0.5) this.counts.delete(p);
      else if (n < lowN) {
        lowN = n;
        low = p;
      }
    }
    if (this.counts.size > this.s.maxPeers && low !== undefined) this.counts.delete(low);
  }
}
