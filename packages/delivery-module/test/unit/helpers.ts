/**
 * Helpers of the delivery module tests: free loopback ports (bound to port 0, read, closed), an
 * in-process module with a temporary data folder that records its events, and waiting for a condition.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Json } from '@logos-ts/shared/json';
import type { LogosModule, StdLogosResult } from '@logos-ts/shared/module-api';
import { freeTcpPort, freeUdpPort } from '@logos-ts/test-utils/ports';
import pino from 'pino';
import { createDeliveryModule } from '../../src/index.ts';

export { freeTcpPort, freeUdpPort };

export async function waitFor(
  what: string,
  cond: () => boolean | Promise<boolean>,
  ms = 15_000,
): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export interface TestModule {
  readonly module: LogosModule;
  readonly events: { event: string; payload: Record<string, Json> }[];
  readonly dataDir: string;
  call(method: string, ...args: Json[]): Promise<StdLogosResult>;
  close(): Promise<void>;
}

export async function testModule(): Promise<TestModule> {
  const dataDir = mkdtempSync(join(tmpdir(), 'delivery-'));
  const events: TestModule['events'] = [];
  const module = await createDeliveryModule({
    cwd: dataDir,
    dataDir,
    logger: pino({ level: 'silent' }),
    emit: (event, payload) => events.push({ event, payload: payload as Record<string, Json> }),
  });
  return {
    module,
    events,
    dataDir,
    call: async (method, ...args) => (await module.methods[method]!(...args)) as StdLogosResult,
    close: async () => {
      await module.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A loopback node config on the given entry layer, with fresh ports. */
export async function loopbackConfig(
  entryLayer: string,
  extra: Record<string, Json> = {},
): Promise<{ json: string; tcpPort: number; udpPort: number }> {
  const tcpPort = await freeTcpPort();
  const udpPort = await freeUdpPort();
  const kernelConf = {
    preset: 'logos.test',
    relay: true,
    listenAddress: '127.0.0.1',
    tcpPort,
    discv5UdpPort: udpPort,
    discv5Discovery: true,
    ...extra,
  };
  return { json: JSON.stringify({ entryLayer, kernelConf }), tcpPort, udpPort };
}
