/**
 * A core connection of the Blend swarm (F `blend/network/src/core/with_core/**`): each side opens one
 * outbound stream to send on and reads the peer's inbound stream (a new inbound stream replaces the
 * previous one). Frames to send wait in a bounded queue until the outbound stream is open and are
 * written in order; with a connection monitor, the messages read are counted per observation window
 * (connection-monitor.ts). The swarm (blend-swarm.ts) decides what a link is and what its messages do.
 */
import type { Connection, Stream } from '@libp2p/interface';
import type { Logger } from 'pino';
import { closeConnection } from './close-connection.ts';
import type { RemoteRole } from './connection-choice.ts';
import type { ConnectionMonitor } from './connection-monitor.ts';
import { BlendFrameLength } from './errors.ts';
import { BlendFrameReader } from './framing.ts';

/** Frames waiting for one core peer's stream (about 5 MB of 19 KB messages). */
const MAX_QUEUED_FRAMES = 256;
/** How long queued frames of a closing old-epoch connection may take to leave. */
// inferred: F delivers the queued frames before closing, without a bound
const DRAIN_TIMEOUT_MS = 5_000;

/** A core connection (pending, negotiated, or of the old epoch). */
export class CoreLink {
  out: Stream | null = null;
  inbound: Stream | null = null;
  private readonly queue: Uint8Array[] = [];
  private sending: Promise<void> = Promise.resolve();
  negotiatedNotified = false;
  dropped = false;
  monitor: ConnectionMonitor | null = null;
  private monitorTimer: NodeJS.Timeout | null = null;

  constructor(
    readonly conn: Connection,
    readonly peer: string,
    readonly role: RemoteRole,
    private readonly log: Logger,
  ) {}

  /** Counts the messages read with `monitor`, ending a window every `windowMs`. */
  watch(monitor: ConnectionMonitor, windowMs: number, endWindow: () => void): void {
    this.monitor = monitor;
    this.monitorTimer = setInterval(endWindow, windowMs);
    this.monitorTimer.unref();
  }

  stopMonitor(): void {
    if (this.monitorTimer !== null) clearInterval(this.monitorTimer);
    this.monitorTimer = null;
  }

  /**
   * Opens the outbound stream; `opened` once it is (the link is then negotiated). A refused stream
   * drops the link (F: a dial upgrade error closes the connection's streams, and so the connection).
   */
  openOutbound(protocol: string, timeoutMs: number, opened: () => void): void {
    this.conn
      .newStream(protocol, { signal: AbortSignal.timeout(timeoutMs) })
      .then((stream) => {
        if (this.dropped) {
          stream.abort(new Error('connection dropped'));
          return;
        }
        this.out = stream;
        opened();
        this.flush();
      })
      .catch((e: Error) => {
        this.log.debug({ peer: this.peer, err: e.message }, 'blend outbound stream refused');
        this.drop('outbound stream refused');
      });
  }

  /**
   * Reads the inbound `stream`'s frames (counted by the monitor) into `frame` until it ends, fails or
   * is replaced; a frame of a wrong length is `wrongLength`, an end or a failure drops the link.
   */
  async read(
    stream: Stream,
    messageBytes: number,
    frame: (f: Uint8Array) => void,
    wrongLength: () => void,
  ): Promise<void> {
    const reader = new BlendFrameReader(stream, messageBytes);
    try {
      for (;;) {
        const f = await reader.next();
        if (this.dropped || this.inbound !== stream) return;
        if (f === undefined) {
          this.drop('inbound stream ended');
          return;
        }
        this.monitor?.record();
        frame(f);
      }
    } catch (e) {
      if (this.dropped || this.inbound !== stream) return;
      if (e instanceof BlendFrameLength) {
        this.log.debug({ peer: this.peer, length: e.length }, 'blend frame of a wrong length');
        wrongLength();
      } else this.drop(`inbound stream failed: ${(e as Error).message}`);
    } finally {
      reader.close();
    }
  }

  /** Closes the link's streams and connection; `drain` lets its queued frames leave first. */
  drop(reason: string, drain = false): void {
    if (this.dropped) return;
    this.dropped = true;
    this.stopMonitor();
    this.log.debug({ peer: this.peer, reason }, 'blend core connection closing');
    const close = () => {
      this.inbound?.abort(new Error(reason));
      this.out?.abort(new Error(reason));
      closeConnection(this.conn, reason);
    };
    if (!drain) {
      close();
      return;
    }
    const timeout = new Promise<void>((r) => setTimeout(r, DRAIN_TIMEOUT_MS).unref());
    void Promise.race([this.sending, timeout]).finally(close);
  }

  /** Queues an encoded frame to send. */
  send(encoded: Uint8Array): void {
    // inferred: F queues without bound; a peer that stops reading loses frames beyond the bound
    if (this.queue.length >= MAX_QUEUED_FRAMES) {
      this.log.debug({ peer: this.peer, queued: this.queue.length }, 'blend frame dropped: peer not reading');
      return;
    }
    this.queue.push(encoded);
    this.flush();
  }

  /** Writes the queued frames in order once the outbound stream is open. */
  private flush(): void {
    const out = this.out;
    if (out === null || this.queue.length === 0) return;
    this.sending = this.sending
      .then(async () => {
        while (this.queue.length > 0 && !this.dropped) {
          const frame = this.queue.shift()!;
          if (!out.send(frame)) await out.onDrain({ signal: AbortSignal.timeout(30_000) });
        }
      })
      .catch((e: Error) => this.drop(`outbound stream failed: ${e.message}`));
  }
}
