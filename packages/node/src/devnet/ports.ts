/**
 * Checks, before any node starts, that every port of the devnet is free: each API port (TCP, on
 * 127.0.0.1), each P2P port and each Blend port (UDP, QUIC, on the P2P host). A port is free when this process can bind it; it is released at
 * once. Every taken port is reported, not only the first.
 */
import { createSocket } from 'node:dgram';
import { createServer } from 'node:net';
import { DevnetError } from './errors.ts';
import { HOST, type NodePlan } from './plan.ts';

/** Undefined when `port` can be bound on 127.0.0.1 over TCP, else why not (`EADDRINUSE`, …). */
export function tcpFree(port: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
    s.listen({ host: HOST, port, exclusive: true }, () => s.close(() => resolve(undefined)));
  });
}

/** Undefined when `port` can be bound on `host` over UDP, else why not. */
export function udpFree(port: number, host = HOST): Promise<string | undefined> {
  return new Promise((resolve) => {
    const s = createSocket('udp4');
    s.once('error', (e: NodeJS.ErrnoException) => {
      s.close();
      resolve(e.code ?? e.message);
    });
    s.bind({ address: host, port, exclusive: true }, () => s.close(() => resolve(undefined)));
  });
}

/** Throws `DEVNET_PORT_IN_USE` naming every taken port and the node that needs it. */
export async function checkPortsFree(plans: readonly NodePlan[]): Promise<void> {
  const taken: string[] = [];
  for (const p of plans) {
    const api = await tcpFree(p.apiPort);
    if (api !== undefined) taken.push(`${p.name} API ${HOST}:${p.apiPort}/tcp (${api})`);
    const p2p = await udpFree(p.p2pPort, p.p2pHost);
    if (p2p !== undefined) taken.push(`${p.name} P2P ${p.p2pHost}:${p.p2pPort}/udp (${p2p})`);
    const blend = await udpFree(p.blendPort, p.p2pHost);
    if (blend !== undefined) taken.push(`${p.name} Blend ${p.p2pHost}:${p.blendPort}/udp (${blend})`);
  }
  if (taken.length > 0)
    throw new DevnetError(
      'DEVNET_PORT_IN_USE',
      `ports in use, nothing was started: ${taken.join('; ')}. ` +
        'Stop what uses them or choose other bases (--api-port-base, --p2p-port-base)',
    );
}
