/**
 * `devnet` refusals through the command line: a bad `--nodes`, another size in an existing devnet folder,
 * a port in use. Each exits 1 with a message saying what to do, and starts no node.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { prepareDevnetFolder } from '../../../src/devnet/folder.ts';
import { spawnCli } from '../../utils/cli-process.ts';

const tmp = mkdtempSync(join(tmpdir(), 'devnet-refusals-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

async function run(args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  const p = spawnCli(['devnet', '--log-format', 'json', ...args], tmp);
  let out = '';
  let err = '';
  p.stdout!.on('data', (b: Buffer) => {
    out += b.toString();
  });
  p.stderr!.on('data', (b: Buffer) => {
    err += b.toString();
  });
  const code = await new Promise<number | null>((r) => p.on('close', (c) => r(c)));
  return { code, out, err };
}

/** A listening TCP server on an ephemeral port of 127.0.0.1. */
async function listener(): Promise<{ server: Server; port: number }> {
  const server = createServer();
  await new Promise<void>((r) => server.listen({ host: '127.0.0.1', port: 0 }, r));
  return { server, port: (server.address() as { port: number }).port };
}

test('devnet refuses a bad --nodes, another size in its folder and a port in use, starting nothing', async () => {
  const dir = join(tmp, 'net');
  await prepareDevnetFolder({
    dir,
    nodes: 3,
    defaultNodes: 4,
    defaultApiPortBase: 8080,
    defaultP2pPortBase: 3000,
    reset: false,
    baseDeployment: readFileSync(new URL('../../../deployments/devnet.yaml', import.meta.url), 'utf8'),
    nowMs: Date.now(),
  });
  const { server, port } = await listener();
  try {
    const [zero, many, other, busy] = await Promise.all([
      run(['--nodes', '0', '--dir', join(tmp, 'a')]),
      run(['--nodes', '17', '--dir', join(tmp, 'b')]),
      run(['--nodes', '2', '--dir', dir]),
      // node-1's API port is taken.
      run([
        '--nodes',
        '2',
        '--dir',
        join(tmp, 'c'),
        '--api-port-base',
        String(port - 1),
        '--p2p-port-base',
        '1',
      ]),
    ]);
    assert.equal(zero.code, 1);
    assert.match(zero.err, /--nodes: expected a whole number from 1 to 16, got 0/);
    assert.equal(many.code, 1);
    assert.match(many.err, /--nodes: expected a whole number from 1 to 16, got 17/);
    assert.equal(other.code, 1);
    assert.match(
      other.err,
      /holds a devnet of 3 node\(s\), not 2: run with --nodes 3 to restart it, --reset/,
    );
    assert.equal(busy.code, 1);
    assert.match(
      busy.err,
      new RegExp(`ports in use, nothing was started: .*node-1 API 127\\.0\\.0\\.1:${port}/tcp`),
    );
    for (const r of [zero, many, other, busy]) assert.doesNotMatch(r.out, /\[node-\d+\]/);
    // Nothing was written for the refused new folders.
    for (const d of ['a', 'b', 'c'])
      assert.throws(
        () => readFileSync(join(tmp, d, 'devnet.json')),
        { code: 'ENOENT' },
        `no ${d}/devnet.json`,
      );
  } finally {
    server.close();
  }
});
