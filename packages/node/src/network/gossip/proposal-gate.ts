/**
 * The cheap checks a received proposal passes before it costs this node any real work, and the work
 * each peer may make it do. In order:
 * - the slot window: a proposal more than `aheadSlots` after the current slot is dropped (a block from
 *   the future is tried again for 1.5 s at most; one further ahead can only be made up);
 * - one proposal per leader key and slot: a header whose slot and leader key are those of a proposal
 *   already verified is dropped (an honest leader proves one block per slot and key);
 * - budgets per peer (token buckets that refill per slot): proofs of leadership verified (a proposal
 *   whose parent is here), and orphans handed to sync (a proposal whose parent is not: each may start a
 *   download race). A peer past its budget has its proposals dropped until it refills.
 * inferred: F verifies every proposal it receives and has no budgets (docs/design/fidelity.md)
 * Pure: times and slots are passed in.
 */
import { bytesToHex } from '../../codec/hex.ts';

export interface ProposalGateSettings {
  /** Proposals at most this many slots after the current one are taken. */
  readonly aheadSlots: number;
  /** Proofs of leadership a peer may have verified: per slot, and at most at once. */
  readonly polPerSlot: number;
  readonly polBurst: number;
  /** Orphans a peer may hand to sync: per slot, and at most at once. */
  readonly orphansPerSlot: number;
  readonly orphanBurst: number;
  /** Slot duration, ms (the budgets refill per slot). */
  readonly slotMs: number;
  /** Peers tracked at most (the least recently seen are forgotten first: a full bucket). */
  readonly maxPeers: number;
}

/** The defaults for a deployment's slot duration and the future-block retries (count × delay). */
export function proposalGateSettings(slotMs: number, retryWindowMs: number): ProposalGateSettings {
  return {
    aheadSlots: Math.ceil(retryWindowMs / slotMs) + 1,
    polPerSlot: 2,
    polBurst: 16,
    orphansPerSlot: 1,
    orphanBurst: 8,
    slotMs,
    maxPeers: 4096,
  };
}

/** Token buckets, one per peer, refilled at `perMs` up to `burst`. */
class Buckets {
  private readonly of = new Map<string, { tokens: number; at: number }>();

  constructor(
    private readonly perMs: number,
    private readonly burst: number,
    private readonly maxPeers: number,
  ) {}

  take(peer: string, now: number): boolean {
    const b = this.of.get(peer);
    const tokens = b === undefined ? this.burst : Math.min(this.burst, b.tokens + (now - b.at) * this.perMs);
    this.of.delete(peer); // re-inserted last: the map's order is the least recently seen first
    if (tokens < 1) {
      this.of.set(peer, { tokens, at: now });
      return false;
    }
    this.of.set(peer, { tokens: tokens - 1, at: now });
    if (this.of.size > this.maxPeers) this.of.delete(this.of.keys().next().value!);
    return true;
  }
}

export class ProposalGate {
  private readonly pol: Buckets;
  private readonly orphans: Buckets;
  /** Leader keys of the proposals verified, by slot (the recent slots only). */
  private readonly leaders = new Map<bigint, Set<string>>();

  constructor(readonly settings: ProposalGateSettings) {
    const s = settings;
    this.pol = new Buckets(s.polPerSlot / s.slotMs, s.polBurst, s.maxPeers);
    this.orphans = new Buckets(s.orphansPerSlot / s.slotMs, s.orphanBurst, s.maxPeers);
  }

  /** Whether a proposal of `slot` is within the window at `current`. */
  inWindow(slot: bigint, current: bigint): boolean {
    return slot <= current + BigInt(this.settings.aheadSlots);
  }

  /** Whether a proposal of this slot and leader key was verified already. */
  leaderSeen(slot: bigint, leaderKey: Uint8Array): boolean {
    return this.leaders.get(slot)?.has(bytesToHex(leaderKey)) === true;
  }

  /** Records a proposal whose proof of leadership is being verified; forgets slots long past. */
  noteLeader(slot: bigint, leaderKey: Uint8Array, current: bigint): void {
    let keys = this.leaders.get(slot);
    if (!keys) {
      keys = new Set();
      this.leaders.set(slot, keys);
      const keep = current - 4n * BigInt(this.settings.aheadSlots) - 64n;
      for (const s of this.leaders.keys()) if (s < keep) this.leaders.delete(s);
    }
    keys.add(bytesToHex(leaderKey));
  }

  /** Takes one proof-of-leadership verification from the peer's budget; false when it has none left. */
  takePol(peer: string, now: number): boolean {
    return this.pol.take(peer, now);
  }

  /** Takes one orphan from the peer's budget; false when it has none left. */
  takeOrphan(peer: string, now: number): boolean {
    return this.orphans.take(peer, now);
  }
}
