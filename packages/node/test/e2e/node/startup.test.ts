/**
 * Starting a node: a listen address that cannot be bound stops it before it writes anything (no data
 * folder, no genesis, so a devnet's genesis time is not fixed by a start that never ran), naming the
 * key; a stale lock of a dead process is reported through the node's logger, not as a loose line.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { pino } from 'pino';
import { ROUTES } from '../../../src/api/impl/index.ts';
import { ApiServer } from '../../../src/api/server.ts';
import type { ApiContext } from '../../../src/api/types.ts';
import { devnetConfig } from '../../../src/node/devnet.ts';
import { LogosNode } from '../../../src/node/node.ts';
import { INSECURE_TEST_PROOFS } from '../../../src/zk/insecure-test-proofs.ts';
import { FAST, fastDeploymentYaml } from '../../mocks/fast-deployment.ts';
import { waitUntil } from '../../utils/api-node.ts';
import { spawnCli } from '../../utils/cli-process.ts';

const dir = mkdtempSync(join(tmpdir(), 'logos-startup-'));
after(() => rmSync(dir, { recursive: true, force: true }));

async function holdPort(): Promise<{ server: Server; port: number }> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { server, port: (server.address() as { port: number }).port };
}

function configAt(base: string, listen: string) {
  const c = devnetConfig();
  return {
    ...c,
    api: { backend: { ...c.api.backend, listen_address: listen } },
    state: { base_folder: base },
  };
}

test('a port in use stops the node before it creates its data folder, with a message naming the key', async () => {
  const { server, port } = await holdPort();
  try {
    const base = join(dir, 'in-use');
    await assert.rejects(
      LogosNode.start({
        deployment: FAST,
        config: configAt(base, `127.0.0.1:${port}`),
        baseDir: dir,
        logger: pino({ level: 'silent' }),
        proofs: INSECURE_TEST_PROOFS,
      }),
      (e: Error) =>
        /^api\.backend\.listen_address: cannot listen on 127\.0\.0\.1:\d+: the address is already in use$/.test(
          e.message,
        ),
    );
    assert.equal(existsSync(base), false, 'no data folder (and so no genesis) was written');
  } finally {
    server.close();
  }
});

test('the command line: a port in use fixes no genesis time and exits naming the key', async () => {
  const { server, port } = await holdPort();
  const cwd = join(dir, 'cli');
  mkdirSync(cwd);
  try {
    writeFileSync(join(cwd, 'fast.yaml'), fastDeploymentYaml(100, 2));
    writeFileSync(
      join(cwd, 'node.yaml'),
      `api: { backend: { listen_address: 127.0.0.1:${port} } }\nstate: { base_folder: ./state }\n`,
    );
    const p = spawnCli(
      ['start', '--config', 'node.yaml', '--deployment', 'fast.yaml', '--insecure-test-proofs'],
      cwd,
    );
    let stderr = '';
    p.stderr!.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    const code = await new Promise<number | null>((r) => p.once('exit', (c) => r(c)));
    assert.equal(code, 1);
    assert.match(
      stderr,
      /api\.backend\.listen_address: cannot listen on 127\.0\.0\.1:\d+: the address is already in use/,
    );
    assert.equal(existsSync(join(cwd, 'state')), false, 'no data folder, no genesis time fixed');
  } finally {
    server.close();
  }
});

test('a stale lock of a dead process is logged through the node logger', async () => {
  const base = join(dir, 'stale');
  const dataDir = join(base, 'db');
  mkdirSync(dataDir, { recursive: true });
  // A pid that cannot be running (above the kernel's pid_max).
  writeFileSync(join(dataDir, 'LOCK'), 'pid 4194305\n');
  const lines: string[] = [];
  const logger = pino({ level: 'info' }, { write: (l: string) => void lines.push(l) });
  const warn = console.warn;
  const loose: unknown[] = [];
  console.warn = (...a: unknown[]) => void loose.push(a);
  let node: LogosNode | undefined;
  try {
    node = await LogosNode.start({
      deployment: FAST,
      config: configAt(base, '127.0.0.1:0'),
      baseDir: dir,
      logger,
      proofs: INSECURE_TEST_PROOFS,
    });
  } finally {
    console.warn = warn;
    await node?.stop();
  }
  assert.deepEqual(loose, [], 'nothing written beside the logger');
  const entries = lines.map((l) => JSON.parse(l) as { level: number; module?: string; msg: string });
  const stale = entries.find((e) => /took over the stale lock of process 4194305/.test(e.msg));
  assert.ok(stale, 'the warning is a log line');
  assert.equal(stale.level, 40);
  assert.equal(stale.module, 'storage');
});

/** What /version reads of the node. */
const VERSION_ONLY: ApiContext = {
  build: { commit: null, tag: null },
  setLogFilter: () => {},
  get chain(): never {
    throw new Error('not read by /version');
  },
  get clock(): never {
    throw new Error('not read by /version');
  },
  get mempool(): never {
    throw new Error('not read by /version');
  },
  get wallet(): never {
    throw new Error('not read by /version');
  },
  get pow(): never {
    throw new Error('not read by /version');
  },
  get ops(): never {
    throw new Error('not read by /version');
  },
  get network(): never {
    throw new Error('not read by /version');
  },
  get blend(): never {
    throw new Error('not read by /version');
  },
  deployment: FAST,
  phase: () => 'AwaitingGenesisTime',
};

/** An API server answering /version only, bound to a free port, not serving yet. */
function versionServer(timeout?: number): Promise<ApiServer> {
  const c = devnetConfig();
  return ApiServer.init(
    { backend: { ...c.api.backend, listen_address: '127.0.0.1:0', ...(timeout ? { timeout } : {}) } },
    pino({ level: 'silent' }),
    ROUTES.filter((r) => r.operationId === 'version'),
  );
}

test('a request that reaches the bound API before it serves is answered once it does', async () => {
  const server = await versionServer();
  try {
    const address = String(server.listening);
    let answered = false;
    const reply = fetch(`http://${address}/version`).then(async (r) => {
      answered = true;
      return { status: r.status, body: (await r.json()) as { version: string } };
    });
    // Held: the server keeps the request until it serves (or answers it at once if it does not hold it).
    const held = () => (server as unknown as { held?: unknown[] }).held?.length ?? 0;
    await waitUntil(() => held() === 1 || answered, 10_000, 'the request held');
    assert.equal(answered, false, 'held while the node starts');
    assert.equal(await server.serve(VERSION_ONLY), address);
    const { status, body } = await reply;
    assert.equal(status, 200);
    assert.equal(typeof body.version, 'string');
  } finally {
    await server.close();
  }
});

test('a request held before the API serves gets the empty 408 after the API timeout', async () => {
  const server = await versionServer(0.3);
  try {
    const address = String(server.listening);
    const r = await fetch(`http://${address}/version`);
    assert.equal(r.status, 408);
    assert.equal(await r.text(), '');
  } finally {
    await server.close();
  }
});
