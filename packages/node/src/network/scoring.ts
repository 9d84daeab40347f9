/**
 * Peer scoring, beyond the reference (it neither scores nor bans peers on its main swarm): each
 * offence adds to a peer's score (major 10, minor 1; a relayed one 1 but never past 10, so gossip a
 * peer only forwarded can never get it banned by itself), the score decays by half every `halfLifeMs`,
 * and a peer whose score reaches the threshold is banned for `banMs`: disconnected, and its dials
 * and inbound connections refused (the connection gater asks `isBanned`). Pure: time is passed in.
 */
import type { Offence } from './interface.ts';

export interface ScoringSettings {
  readonly major: number;
  readonly minor: number;
  /** A relayed offence adds `minor` but never lifts the score past this (below `threshold`). */
  readonly relayedCap: number;
  readonly threshold: number;
  readonly halfLifeMs: number;
  readonly banMs: number;
}

// inferred: the reference has no scoring; these values are this node's own (docs/design/fidelity.md)
export const DEFAULT_SCORING: ScoringSettings = {
  major: 10,
  minor: 1,
  relayedCap: 10,
  threshold: 15,
  halfLifeMs: 10 * 60_000,
  banMs: 30 * 60_000,
};

interface Entry {
  score: number;
  at: number;
}

export type PenaltyOutcome = { readonly score: number; readonly banned: boolean };

export class PeerScores {
  private readonly scores = new Map<string, Entry>();
  private readonly bans = new Map<string, number>();

  constructor(private readonly s: ScoringSettings = DEFAULT_SCORING) {}

  /** How long a ban lasts. */
  get banMs(): number {
    return this.s.banMs;
  }

  private decayed(e: Entry, now: number): number {
    return e.score * 0.5 ** (Math.max(0, now - e.at) / this.s.halfLifeMs);
  }

  /** The peer's current score (0 when unknown). */
  score(peer: string, now: number): number {
    const e = this.scores.get(peer);
    return e === undefined ? 0 : this.decayed(e, now);
  }

  /** Adds an offence; `banned` is true when this offence starts a ban. */
  penalize(peer: string, offence: Offence, now: number): PenaltyOutcome {
    const e = this.scores.get(peer);
    const before = e === undefined ? 0 : this.decayed(e, now);
    const score =
      offence === 'relayed'
        ? Math.max(before, Math.min(before + this.s.minor, this.s.relayedCap))
        : before + (offence === 'major' ? this.s.major : this.s.minor);
    if (score >= this.s.threshold) {
      this.scores.delete(peer);
      const already = this.isBanned(peer, now);
      this.bans.set(peer, now + this.s.banMs);
      return { score, banned: !already };
    }
    this.scores.set(peer, { score, at: now });
    this.prune(now);
    return { score, banned: false };
  }

  isBanned(peer: string, now: number): boolean {
    const until = this.bans.get(peer);
    if (until === undefined) return false;
    if (until <= now) {
      this.bans.delete(peer);
      return false;
    }
    return true;
  }

  /** Peers banned now, and peers whose score has not decayed below 0.01 (for the metrics). */
  counts(now: number): { readonly banned: number; readonly penalized: number } {
    let banned = 0;
    for (const until of this.bans.values()) if (until > now) banned++;
    let penalized = 0;
    for (const e of this.scores.values()) if (this.decayed(e, now) >= 0.01) penalized++;
    return { banned, penalized };
  }

  /** Forgets scores that decayed below 0.01 and expired bans, so the maps stay small. */
  private prune(now: number): void {
    if (this.scores.size < 1024) return;
    for (const [p, e] of this.scores) if (this.decayed(e, now) < 0.01) this.scores.delete(p);
    for (const [p, until] of this.bans) if (until <= now) this.bans.delete(p);
  }
}
