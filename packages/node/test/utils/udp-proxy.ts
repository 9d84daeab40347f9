/**
 * A UDP relay between peers on the loopback, for the network's bad days: QUIC datagrams from each
 * client go to the target through a socket of their own and back; the relay can throttle (a byte rate
 * each way, datagrams queued and delivered at that rate) or drop the link (every datagram discarded
 * while `down`, then delivered again), which a QUIC connection sees as a slow link or as a peer that
 * vanishes and times out.
 */
import { createSocket, type Socket } from 'node:dgram';

export interface UdpProxyOptions {
  /** Bytes per second each way (absent: no limit). */
  readonly bytesPerS?: number;
}

interface Client {
  readonly upstream: Socket;
  readonly address: string;
  readonly port: number;
}

/** A datagram queue delivered at a byte rate. */
class Throttle {
  private readonly queue: { readonly msg: Buffer; readonly send: () => void }[] = [];
  private nextAt = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly bytesPerS: number | undefined) {}

  push(msg: Buffer, send: () => void): void {
    if (this.bytesPerS === undefined) {
      send();
      return;
    }
    this.queue.push({ msg, send });
    this.pump();
  }

  private pump(): void {
    if (this.timer !== undefined) return;
    const next = this.queue[0];
    if (next === undefined) return;
    const wait = Math.max(0, this.nextAt - performance.now());
    this.timer = setTimeout(() => {
      this.timer = undefined;
      const item = this.queue.shift();
      if (item === undefined) return;
      this.nextAt = Math.max(performance.now(), this.nextAt) + (item.msg.length * 1000) / this.bytesPerS!;
      item.send();
      this.pump();
    }, wait);
  }

  close(): void {
    clearTimeout(this.timer);
    this.queue.length = 0;
  }
}

export class UdpProxy {
  /** While true, every datagram is dropped (the link is down). */
  down = false;
  /** Datagrams relayed and dropped. */
  readonly counts = { relayed: 0, dropped: 0 };
  private readonly clients = new Map<string, Client>();
  private readonly toTarget: Throttle;
  private readonly toClient: Throttle;

  private constructor(
    private readonly socket: Socket,
    private readonly target: { readonly host: string; readonly port: number },
    opts: UdpProxyOptions,
  ) {
    this.toTarget = new Throttle(opts.bytesPerS);
    this.toClient = new Throttle(opts.bytesPerS);
    socket.on('message', (msg, from) => this.fromClient(msg, from.address, from.port));
  }

  /** A relay on a free port of 127.0.0.1 to `target`. */
  static async start(target: { host: string; port: number }, opts: UdpProxyOptions = {}): Promise<UdpProxy> {
    const socket = createSocket('udp4');
    await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', () => resolve()));
    return new UdpProxy(socket, target, opts);
  }

  get port(): number {
    return this.socket.address().port;
  }

  private fromClient(msg: Buffer, address: string, port: number): void {
    if (this.down) {
      this.counts.dropped++;
      return;
    }
    const key = `${address}:${port}`;
    let c = this.clients.get(key);
    if (c === undefined) {
      const upstream = createSocket('udp4');
      upstream.bind(0, '127.0.0.1');
      const client: Client = { upstream, address, port };
      upstream.on('message', (reply) => {
        if (this.down) {
          this.counts.dropped++;
          return;
        }
        this.toClient.push(reply, () => {
          if (this.down) return;
          this.counts.relayed++;
          this.socket.send(reply, client.port, client.address);
        });
      });
      this.clients.set(key, client);
      c = client;
    }
    const up = c.upstream;
    this.toTarget.push(msg, () => {
      if (this.down) return;
      this.counts.relayed++;
      up.send(msg, this.target.port, this.target.host);
    });
  }

  close(): void {
    this.toTarget.close();
    this.toClient.close();
    for (const c of this.clients.values()) c.upstream.close();
    this.socket.close();
  }
}
