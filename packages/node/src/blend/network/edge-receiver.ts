/**
 * The Blend swarm's edge connections (F `blend/network/src/core/with_edge/**`): an inbound connection
 * from a non-member (at most `max_edge_node_incoming_connections` receiving at once) delivers one
 * message within `edge_node_connection_timeout` and is then closed. Its message is checked (the
 * swarm's `messageId` and `verify`, against the current epoch) and handed to the swarm, which relays it
 * to all core peers and emits it; an invalid one is dropped without blocking anyone.
 */
import type { Connection, Stream } from '@libp2p/interface';
import type { Logger } from 'pino';
import { closeConnection } from './close-connection.ts';
import { BlendFrameReader } from './framing.ts';
import type { VerifyOutcome } from './types.ts';

/** An inbound connection of an edge node. */
interface EdgeLink {
  readonly conn: Connection;
  readonly timer: NodeJS.Timeout;
  receiving: boolean;
}

export interface EdgeReceiverDeps {
  readonly log: Logger;
  /** `max_edge_node_incoming_connections`. */
  readonly maxReceiving: number;
  /** `edge_node_connection_timeout`. */
  readonly connectionTimeoutMs: number;
  readonly messageBytes: number;
  readonly messageId: (frame: Uint8Array) => string | null;
  readonly verify: (frame: Uint8Array, from: string, epoch: number) => Promise<VerifyOutcome>;
  /** The current epoch. */
  readonly epoch: () => number;
  /** A verified message of an edge node. */
  readonly verified: (frame: Uint8Array, id: string, from: string, epoch: number) => void;
}

export class EdgeReceiver {
  private readonly edges = new Map<string, EdgeLink>();
  private readonly receiving = new Set<string>();

  constructor(private readonly deps: EdgeReceiverDeps) {}

  /** Whether as many edge connections as allowed are receiving. */
  get full(): boolean {
    return this.receiving.size >= this.deps.maxReceiving;
  }

  /** A new edge connection: closed if it delivers nothing in time. */
  open(conn: Connection, peer: string): void {
    const timer = setTimeout(() => {
      this.deps.log.debug({ peer }, 'blend edge connection timed out');
      closeConnection(conn, 'edge connection timeout');
    }, this.deps.connectionTimeoutMs);
    timer.unref();
    this.edges.set(conn.id, { conn, timer, receiving: false });
  }

  /** An edge connection closed. */
  closed(connId: string): void {
    const e = this.edges.get(connId);
    if (e !== undefined) clearTimeout(e.timer);
    this.edges.delete(connId);
    this.receiving.delete(connId);
  }

  /** Closes every edge connection (F: at an epoch change, so that edge nodes retry with the new membership). */
  dropAll(reason: string): void {
    for (const e of this.edges.values()) closeConnection(e.conn, reason);
  }

  /** Stops the connections' timers (the swarm is closing). */
  stop(): void {
    for (const e of this.edges.values()) clearTimeout(e.timer);
  }

  onStream(stream: Stream, conn: Connection): void {
    const edge = this.edges.get(conn.id);
    if (edge === undefined || edge.receiving) {
      stream.abort(new Error('one stream per edge connection'));
      return;
    }
    if (this.full) {
      stream.abort(new Error('too many edge connections'));
      closeConnection(conn, 'too many edge connections');
      return;
    }
    edge.receiving = true;
    this.receiving.add(conn.id);
    void this.read(edge, stream, conn.remotePeer.toString());
  }

  private async read(edge: EdgeLink, stream: Stream, peer: string): Promise<void> {
    const { log } = this.deps;
    const reader = new BlendFrameReader(stream, this.deps.messageBytes);
    let frame: Uint8Array | undefined;
    try {
      frame = await reader.next();
    } catch (e) {
      log.debug({ peer, err: (e as Error).message }, 'blend edge message unreadable');
    } finally {
      reader.close();
      // F: after its one message (or none) the edge connection is dropped.
      stream.abort(new Error('edge message read'));
      closeConnection(edge.conn, 'edge message read');
    }
    if (frame === undefined) return;
    const id = this.deps.messageId(frame);
    const epoch = this.deps.epoch();
    if (id === null) {
      log.debug({ peer }, 'blend edge message undecodable: dropped');
      return;
    }
    const outcome = await this.deps.verify(frame, peer, epoch);
    if (outcome !== 'valid') {
      log.debug({ peer, reason: outcome }, 'blend edge message invalid: dropped');
      return;
    }
    this.deps.verified(frame, id, peer, epoch);
  }
}
