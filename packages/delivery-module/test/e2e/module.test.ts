/**
 * The delivery module under the control tool (operator.md §4, §5.2 step 7, §6.5 check 5): a daemon loads
 * `delivery_module`; `createNode @kernel.json` (the operator's kernel config, on free loopback ports),
 * `start`, `getAvailableNodeInfoIDs`, `getNodeInfo Version|MyMultiaddresses` (which holds `/tcp/<port>`),
 * and `send` refused with "node has no messaging client". Then two daemons on loopback, messaging layer:
 * B bootstraps from A's ENR through discv5, subscribes, A sends, and `watch` on B prints
 * `messageReceived`. The daemons are always stopped and their folders removed.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ctl, watch } from '@logos-ts/test-utils/logosctl';
import { freeTcpPort, freeUdpPort } from '@logos-ts/test-utils/ports';
import { waitFor } from '../unit/helpers.ts';

const DELIVERY_MODULE = fileURLToPath(new URL('../../src/index.ts', import.meta.url));
const TOPIC = '/e2e-delivery/1/chat/proto';

/** A session folder with `delivery_module` installed through a manifest. */
function session(name: string): string {
  const dir = mkdtempSync(join(tmpdir(), `logosctl-delivery-${name}-`));
  mkdirSync(join(dir, 'modules', 'delivery_module'), { recursive: true });
  writeFileSync(
    join(dir, 'modules', 'delivery_module', 'manifest.json'),
    JSON.stringify({ name: 'delivery_module', version: '0.2.1', main: DELIVERY_MODULE, dependencies: [] }),
  );
  return dir;
}

async function call(
  dir: string,
  ...args: string[]
): Promise<{ error: string | null; success: boolean; value: unknown }> {
  const r = await ctl(dir, ['call', 'delivery_module', ...args]);
  assert.equal(r.code, 0, `${args.join(' ')}: ${r.stdout}${r.stderr}`);
  const env = JSON.parse(r.stdout);
  assert.equal(env.status, 'ok', r.stdout);
  return env.result;
}

async function kernelConf(dir: string, file: string, layer: string, extra: Record<string, unknown> = {}) {
  const tcpPort = await freeTcpPort();
  const udpPort = await freeUdpPort();
  const conf = {
    entryLayer: layer,
    kernelConf: {
      preset: 'logos.test',
      relay: true,
      logLevel: 'INFO',
      listenAddress: '127.0.0.1',
      tcpPort,
      discv5UdpPort: udpPort,
      discv5Discovery: true,
      ...extra,
    },
  };
  writeFileSync(join(dir, file), JSON.stringify(conf));
  return { tcpPort, udpPort };
}

describe('delivery_module under logosctl', () => {
  const a = session('a');
  const b = session('b');

  before(async () => {
    for (const dir of [a, b]) {
      const r = await ctl(dir, ['daemon', 'start', '--detach']);
      assert.equal(r.code, 0, r.stderr);
    }
  });
  after(async () => {
    for (const dir of [a, b]) {
      await ctl(dir, ['daemon', 'stop']);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('operator procedure: kernel node, node info, send refused', async () => {
    const load = await ctl(a, ['module', 'load', 'delivery_module']);
    assert.equal(load.code, 0, load.stdout);
    assert.equal(JSON.parse(load.stdout).version, '0.2.1');
    const { tcpPort } = await kernelConf(a, 'kernel.json', 'kernel');
    assert.deepEqual(await call(a, 'createNode', '@kernel.json'), {
      error: null,
      success: true,
      value: null,
    });
    assert.deepEqual(await call(a, 'start'), { error: null, success: true, value: null });
    assert.equal(
      (await call(a, 'getAvailableNodeInfoIDs')).value,
      '@[Version, Metrics, MyMultiaddresses, MyENR, MyPeerId]',
    );
    assert.equal((await call(a, 'getNodeInfo', 'Version')).value, 'v0.2.1-ts');
    const addrs = (await call(a, 'getNodeInfo', 'MyMultiaddresses')).value as string;
    assert.ok(addrs.includes(`/tcp/${tcpPort}/p2p/16Uiu2`), addrs);
    assert.deepEqual(await call(a, 'send', TOPIC, 'hello'), {
      error: 'Send failed: node has no messaging client (kernel-only node)',
      success: false,
      value: null,
    });
    assert.equal((await ctl(a, ['module', 'unload', 'delivery_module'])).code, 0);
  });

  test('two daemons: B bootstraps from A through discv5, A sends, B watches messageReceived', async () => {
    assert.equal((await ctl(a, ['module', 'load', 'delivery_module'])).code, 0);
    assert.equal((await ctl(b, ['module', 'load', 'delivery_module'])).code, 0);
    await kernelConf(a, 'messaging.json', 'messaging');
    assert.equal((await call(a, 'createNode', '@messaging.json')).success, true);
    assert.equal((await call(a, 'start')).success, true);
    const enrA = (await call(a, 'getNodeInfo', 'MyENR')).value as string;
    assert.match(enrA, /^enr:-/);
    await kernelConf(b, 'messaging.json', 'messaging', { entryNodes: [enrA] });
    assert.equal((await call(b, 'createNode', '@messaging.json')).success, true);
    assert.equal((await call(b, 'start')).success, true);
    assert.equal((await call(b, 'subscribe', TOPIC)).success, true);

    const metrics = async (dir: string) => (await call(dir, 'getNodeInfo', 'Metrics')).value as string;
    await waitFor('B connected to A', async () => /^libp2p_peers [1-9]/m.test(await metrics(b)), 20_000);
    assert.match(await metrics(b), /waku_discv5_discovered_peers_total [1-9]/);

    const w = watch(b, 'delivery_module', 'messageReceived');
    try {
      await waitFor(
        'messageReceived on B',
        async () => {
          const sent = await call(a, 'send', TOPIC, 'hello from A');
          assert.equal(sent.success, true, sent.error ?? '');
          await new Promise((r) => setTimeout(r, 500));
          return w.lines.length > 0;
        },
        20_000,
      );
      const line = JSON.parse(w.lines[0]!);
      assert.equal(line.event, 'messageReceived');
      assert.equal(line.module, 'delivery_module');
      const p = line.data.arg0;
      assert.equal(p.contentTopic, TOPIC);
      assert.equal(Buffer.from(p.payload, 'base64').toString(), 'hello from A');
      assert.match(p.messageHash, /^0x[0-9a-f]{64}$/);
      assert.equal(typeof p.timestamp, 'number');
    } finally {
      assert.equal(await w.stop(), 0);
    }
  });
});
