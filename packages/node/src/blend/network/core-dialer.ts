/**
 * Keeping a core node's peering degree (F `services/blend/src/core/backends/libp2p/swarm.rs`
 * `check_and_dial_new_peers_except`, `dial_random_peers_except`, `schedule_retry`, `execute_retry`):
 * - when fewer than `core_peering_degree.start` peers are healthy, random members are dialled (at most
 *   the free slots up to `.end`), skipping this node, negotiated, blocked and already dialled peers and
 *   the peers that failed in this dial cycle; when none is left but some failed, the whole membership
 *   is dialled again after a minute;
 * - a failed dial (or a connection closed before it was negotiated) is tried again after 2^(n-1)
 *   backoff units for attempt n, unless the degree is met meanwhile; past `max_dial_attempts_per_peer`
 *   attempts the peer joins the failed ones and another member is dialled;
 * - a new epoch forgets every dial and retry.
 * Nothing is dialled below the minimum network size, nor by a node outside the membership.
 */
import type { Multiaddr } from '@multiformats/multiaddr';
import type { Logger } from 'pino';
import { dialAddresses } from './edge-sender.ts';
import type { BlendMember } from './types.ts';

/** What the dialler reads of the swarm, and how it dials. */
export interface PeeringView {
  readonly localPeer: string;
  membership(): readonly BlendMember[];
  isMember(peer: string): boolean;
  networkLargeEnough(): boolean;
  healthyPeers(): number;
  negotiatedPeers(): number;
  isNegotiated(peer: string): boolean;
  isBlocked(peer: string): boolean;
  /** Dials a core peer; resolves true when the connection is taken as a core connection. */
  dial(peer: string, addresses: Multiaddr[]): Promise<boolean>;
}

export interface CoreDialerSettings {
  readonly peeringDegree: { readonly start: number; readonly end: number };
  readonly maxDialAttemptsPerPeer: number;
  readonly redialBaseMs: number;
  readonly fullMembershipRetryMs: number;
}

interface DialAttempt {
  readonly addresses: Multiaddr[];
  readonly attempt: number;
  /** Peers that failed in this dial cycle. */
  readonly failed: ReadonlySet<string>;
}

export class CoreDialer {
  private readonly ongoing = new Map<string, DialAttempt>();
  private readonly retryTimers = new Set<NodeJS.Timeout>();
  private fullRetry: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(
    private readonly view: PeeringView,
    private readonly settings: CoreDialerSettings,
    private readonly log: Logger,
  ) {}

  /** F `check_and_dial_new_peers_except`. */
  check(except: ReadonlySet<string> = new Set()): void {
    if (this.stopped) return;
    const v = this.view;
    // inferred: only a member of the membership (a core node) keeps core peers; F runs no core swarm otherwise
    if (!v.isMember(v.localPeer)) return;
    if (!v.networkLargeEnough()) {
      this.log.debug(
        { members: v.membership().length },
        'blend membership below the minimum network size: no dial',
      );
      return;
    }
    const { start, end } = this.settings.peeringDegree;
    const needed = Math.max(0, start - v.healthyPeers());
    const slots = Math.max(0, end - v.negotiatedPeers());
    this.dialRandom(Math.min(needed, slots), except);
  }

  /** A dialled peer's connection was negotiated: its dial is over. */
  succeeded(peer: string): void {
    this.ongoing.delete(peer);
  }

  /** A dialled peer's connection was refused for a reason other than a failure: another peer is tried. */
  refused(peer: string): void {
    this.ongoing.delete(peer);
    this.check(new Set([peer]));
  }

  /** F: a failed dial is tried again with backoff; past the attempts, another member is dialled. */
  failed(peer: string): void {
    const a = this.ongoing.get(peer);
    if (a === undefined) return; // a new epoch cleared the dials
    this.ongoing.delete(peer);
    const next = a.attempt + 1;
    if (next > this.settings.maxDialAttemptsPerPeer) {
      this.log.debug({ peer, attempts: a.attempt }, 'blend dial attempts exhausted');
      this.check(new Set([...a.failed, peer]));
      return;
    }
    const t = setTimeout(
      () => {
        this.retryTimers.delete(t);
        // F `execute_retry`: skipped when the peering degree is met meanwhile.
        if (this.stopped || this.settings.peeringDegree.start <= this.view.healthyPeers()) return;
        this.ongoing.set(peer, { ...a, attempt: next });
        this.start(peer);
      },
      this.settings.redialBaseMs * 2 ** (next - 1),
    );
    t.unref();
    this.retryTimers.add(t);
  }

  /** A new epoch: every dial and retry is forgotten. */
  reset(): void {
    this.ongoing.clear();
    for (const t of this.retryTimers) clearTimeout(t);
    this.retryTimers.clear();
    if (this.fullRetry !== null) clearTimeout(this.fullRetry);
    this.fullRetry = null;
  }

  stop(): void {
    this.stopped = true;
    this.reset();
  }

  /** F `dial_random_peers_except`. */
  private dialRandom(amount: number, except: ReadonlySet<string>): void {
    if (amount === 0) return;
    const v = this.view;
    const candidates = v
      .membership()
      .filter(
        (m) =>
          m.peerId !== v.localPeer &&
          !v.isNegotiated(m.peerId) &&
          !v.isBlocked(m.peerId) &&
          !this.ongoing.has(m.peerId) &&
          !except.has(m.peerId),
      );
    if (candidates.length === 0) {
      if (except.size > 0) this.scheduleFullRetry();
      return;
    }
    for (const m of shuffle(candidates).slice(0, amount)) {
      this.ongoing.set(m.peerId, { addresses: dialAddresses(m), attempt: 1, failed: new Set(except) });
      this.start(m.peerId);
    }
  }

  private scheduleFullRetry(): void {
    if (this.fullRetry !== null) return;
    const ms = this.settings.fullMembershipRetryMs;
    this.log.debug({ in_ms: ms }, 'every blend member tried: dialling the membership again later');
    this.fullRetry = setTimeout(() => {
      this.fullRetry = null;
      this.check();
    }, ms);
    this.fullRetry.unref();
  }

  private start(peer: string): void {
    const attempt = this.ongoing.get(peer);
    if (attempt === undefined) return;
    this.log.debug({ peer, attempt: attempt.attempt }, 'blend dialling core peer');
    this.view.dial(peer, attempt.addresses).then(
      (core) => {
        // inferred: a dialled connection the swarm does not upgrade ends the attempt (F leaves it pending)
        if (!core && this.ongoing.get(peer) === attempt) this.refused(peer);
      },
      (e: Error) => {
        this.log.debug({ peer, err: e.message }, 'blend dial failed');
        if (this.ongoing.get(peer) === attempt) this.failed(peer);
      },
    );
  }
}

function shuffle<T>(xs: readonly T[]): T[] {
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}
