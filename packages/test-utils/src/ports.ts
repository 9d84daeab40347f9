/** Free loopback ports for tests: bound on port 0, read, released. */
import { createSocket } from 'node:dgram';
import { createServer } from 'node:net';

/** A TCP port free on 127.0.0.1 at the time of the call. */
export function freeTcpPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** A UDP port free on 127.0.0.1 at the time of the call. */
export function freeUdpPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createSocket('udp4');
    s.once('error', reject);
    s.bind(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** Whether something already listens on `port` (TCP) or is bound to it (UDP) at `host`. */
export function portInUse(kind: 'tcp' | 'udp', port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const busy = (e: NodeJS.ErrnoException) => (e.code === 'EADDRINUSE' ? resolve(true) : reject(e));
    if (kind === 'tcp') {
      const s = createServer();
      s.once('error', busy);
      s.listen(port, host, () => s.close(() => resolve(false)));
    } else {
      const s = createSocket('udp4');
      s.once('error', busy);
      s.bind(port, host, () => s.close(() => resolve(false)));
    }
  });
}
