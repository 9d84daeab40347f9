/**
 * Sending a message as an edge node (F `services/blend/src/edge/backends/libp2p/swarm.rs`): for each
 * given core node, a fresh connection (even if one is open), a fresh stream on the Blend protocol, the
 * one frame, the stream closed; a failed dial or send is tried again after 2^(n-1) seconds for attempt
 * n, up to `max_dial_attempts_per_peer_per_message` attempts per peer, then given up. The connection is
 * left for the core node to close (it does after the one message, F `with_edge` handler), and closed
 * here after a grace period if it has not.
 */
import type { Connection, Stream } from '@libp2p/interface';
import type { Multiaddr } from '@multiformats/multiaddr';
import type { Libp2p } from 'libp2p';
import type { Logger } from 'pino';
import { encodeBlendFrame } from './framing.ts';
import type { BlendMember } from './types.ts';

/** How long a send may take (dial, stream, frame). */
// inferred: F bounds a send by QUIC's timeouts only
const SEND_TIMEOUT_MS = 10_000;
/** F: the edge swarm's idle connection timeout (1 s) closes the connection once the stream is gone. */
const CONNECTION_GRACE_MS = 1_000;

export interface EdgeSenderDeps {
  readonly host: Libp2p;
  readonly protocolName: string;
  readonly maxDialAttemptsPerPeer: number;
  readonly retryBaseMs: number;
  readonly log: Logger;
  readonly signal: AbortSignal;
  /** Told the peer before each dial and after it, so the swarm does not take the connection as a core one. */
  readonly dialing: (peer: string, on: boolean) => void;
  /** Told the connection a send opened (before the swarm may have seen it open). */
  readonly opened: (conn: Connection) => void;
}

/** The member's addresses, each ending in `/p2p/<peer id>` (what js-libp2p checks the remote against). */
export function dialAddresses(member: BlendMember): Multiaddr[] {
  return member.addresses.map((a) =>
    a.getComponents().some((c) => c.name === 'p2p') ? a : a.encapsulate(`/p2p/${member.peerId}`),
  );
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

export class EdgeSender {
  constructor(private readonly deps: EdgeSenderDeps) {}

  /** Sends `message` to each peer; the number of peers it reached. */
  async send(message: Uint8Array, peers: readonly BlendMember[]): Promise<number> {
    const frame = encodeBlendFrame(message);
    const results = await Promise.all(peers.map((p) => this.sendWithRetries(frame, p)));
    return results.filter(Boolean).length;
  }

  private async sendWithRetries(frame: Uint8Array, peer: BlendMember): Promise<boolean> {
    const { log, signal, maxDialAttemptsPerPeer, retryBaseMs } = this.deps;
    for (let attempt = 1; attempt <= maxDialAttemptsPerPeer && !signal.aborted; attempt++) {
      if (attempt > 1) await sleep(retryBaseMs * 2 ** (attempt - 1), signal);
      if (signal.aborted) break;
      try {
        await this.sendOnce(frame, peer);
        log.debug({ peer: peer.peerId, attempt }, 'blend message sent as edge node');
        return true;
      } catch (e) {
        log.debug({ peer: peer.peerId, attempt, err: (e as Error).message }, 'blend edge send failed');
      }
    }
    log.debug({ peer: peer.peerId }, 'blend edge send given up');
    return false;
  }

  private async sendOnce(frame: Uint8Array, peer: BlendMember): Promise<void> {
    const { host, protocolName } = this.deps;
    const bound = AbortSignal.any([AbortSignal.timeout(SEND_TIMEOUT_MS), this.deps.signal]);
    let conn: Connection | undefined;
    let stream: Stream;
    this.deps.dialing(peer.peerId, true);
    try {
      conn = await host.dial(dialAddresses(peer), { force: true, signal: bound });
      this.deps.opened(conn);
    } finally {
      this.deps.dialing(peer.peerId, false);
    }
    try {
      stream = await conn.newStream(protocolName, { signal: bound });
    } catch (e) {
      conn.abort(e as Error);
      throw e;
    }
    // The frame is taken by the stream whatever `send` answers (false asks to wait before sending more);
    // closing the stream flushes it. F `close_stream`: a failure to close (the core node drops the
    // connection as soon as it has read the message) is no failure of the send.
    stream.send(frame);
    await stream.close({ signal: bound }).catch((e: Error) => {
      this.deps.log.debug({ peer: peer.peerId, err: e.message }, 'blend edge stream close failed');
    });
    const opened = conn;
    const t = setTimeout(() => {
      if (opened.status === 'open') void opened.close().catch(() => {});
    }, CONNECTION_GRACE_MS);
    t.unref();
  }
}
