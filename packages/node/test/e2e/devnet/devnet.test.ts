/**
 * `devnet --nodes 3` through the command line, in a temporary folder on free ports: the printed table,
 * three APIs answering on one genesis, private configurations with distinct node keys and ports, SIGINT
 * stopping every node with exit code 0, a node that dies reported while the others keep running, and a
 * second run restarting the same chain (stopped while the others are starting). The nodes do not need to
 * peer. Linux: a node's process is found in /proc.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { hexToBytesOrUndefined } from '../../../src/codec/hex.ts';
import { peerIdOfNodeKey } from '../../../src/devnet/index.ts';
import { spawnCli } from '../../utils/cli-process.ts';
import { freeBase } from '../../utils/sim-cluster.ts';

const N = 3;
const tmp = mkdtempSync(join(tmpdir(), 'devnet-e2e-'));
const dir = join(tmp, 'net');
const running: ChildProcess[] = [];
after(() => {
  for (const c of running) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  rmSync(tmp, { recursive: true, force: true });
});

interface Run {
  readonly proc: ChildProcess;
  out: string;
  err: string;
  readonly exit: Promise<number | null>;
}

function devnet(args: string[]): Run {
  const proc = spawnCli(['devnet', '--dir', dir, '--log-format', 'json', ...args], tmp);
  running.push(proc);
  const run: Run = {
    proc,
    out: '',
    err: '',
    exit: new Promise((resolve) => proc.on('exit', (code) => resolve(code))),
  };
  proc.stdout!.on('data', (b: Buffer) => {
    run.out += b.toString();
  });
  proc.stderr!.on('data', (b: Buffer) => {
    run.err += b.toString();
  });
  return run;
}

async function getJson(url: string): Promise<unknown> {
  const r = await fetch(url, { signal: AbortSignal.timeout(3000) });
  if (!r.ok) throw new Error(`${url}: ${r.status}`);
  return r.json();
}

/** Waits until every API answers `/cryptarchia/info`. */
async function waitApis(run: Run, apis: string[], ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  const up = new Set<string>();
  while (up.size < apis.length) {
    if (Date.now() > deadline) throw new Error(`APIs not up after ${ms} ms: ${run.out.slice(-3000)}`);
    if (run.proc.exitCode !== null) throw new Error(`devnet exited: ${run.out}${run.err}`);
    for (const a of apis) {
      if (up.has(a)) continue;
      try {
        await getJson(`${a}/cryptarchia/info`);
        up.add(a);
      } catch {
        // not yet
      }
    }
    await new Promise((r) => setTimeout(r, 300));
  }
}

/** What makes the chain: chain id, genesis time and the genesis block's id, as each node serves them. */
async function genesisOf(api: string): Promise<string> {
  const { chain_id } = (await getJson(`${api}/chain/id`)) as { chain_id: string };
  const { genesis_time_unix_ms } = (await getJson(`${api}/time/info`)) as { genesis_time_unix_ms: number };
  const blocks = (await getJson(`${api}/cryptarchia/blocks?slot_from=0&slot_to=0`)) as {
    header: { id: string; slot: number };
  }[];
  assert.equal(blocks.length, 1, `${api}: one block at slot 0`);
  return `${chain_id} ${genesis_time_unix_ms} ${blocks[0]!.header.id}`;
}

/** The pid of the devnet's child running `node-<i>` (Linux: read from /proc). */
function nodePid(run: Run, i: number): number {
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid !== run.proc.pid) continue;
      if (readFileSync(`/proc/${name}/cmdline`, 'utf8').includes(`node-${i}/user_config.yaml`))
        return Number(name);
    } catch {
      // gone meanwhile
    }
  }
  throw new Error(`no process for node-${i}`);
}

async function stop(run: Run, apis: string[], dead: number[] = []): Promise<void> {
  run.proc.kill('SIGINT');
  let timer: NodeJS.Timeout | undefined;
  const code = await Promise.race([
    run.exit,
    new Promise<string>((r) => {
      timer = setTimeout(() => r('timeout'), 20_000);
    }),
  ]);
  clearTimeout(timer);
  assert.equal(code, 0, `devnet exit code (output: ${run.out.slice(-2000)}${run.err})`);
  assert.match(run.out, /\[devnet\] all nodes stopped/);
  for (let i = 0; i < N; i++) {
    if (dead.includes(i)) continue;
    assert.match(run.out, new RegExp(`\\[devnet\\] node-${i} stopped \\(with code 0\\)`));
  }
  // Down: the connection is refused (fetch fails with the socket error as its cause), not an error answer.
  for (const a of apis)
    await assert.rejects(
      getJson(`${a}/cryptarchia/info`),
      (e: Error & { cause?: { code?: string } }) =>
        e instanceof TypeError && e.cause?.code === 'ECONNREFUSED',
      `${a} is down`,
    );
}

test('devnet --nodes 3: one genesis, the table, private configs, SIGINT stops all, a re-run restarts the chain', async () => {
  const apiBase = await freeBase(N);
  const p2pBase = await freeBase(N, [apiBase]);
  const apis = Array.from({ length: N }, (_, i) => `http://127.0.0.1:${apiBase + i}`);
  const args = ['--nodes', String(N), '--api-port-base', String(apiBase), '--p2p-port-base', String(p2pBase)];

  const first = devnet(args);
  await waitApis(first, apis, 40_000);

  // The table: node, API, P2P address with the peer id of the node's key, funded keys.
  const rows = [...first.out.matchAll(/^ {2}(node-\d+)\s+(http:\/\/\S+)\s+(\/ip4\/\S+)\s+([\d,]+)$/gm)];
  assert.equal(rows.length, N, first.out.slice(0, 3000));
  const nodeKeys = new Set<string>();
  for (const [i, row] of rows.entries()) {
    const [, name, api, p2p, keys] = row;
    assert.equal(name, `node-${i}`);
    assert.equal(api, apis[i]);
    assert.equal(keys, [0, 1, 2, 3].map((k) => 4 * i + k).join(','));
    const config = join(dir, `node-${i}`, 'user_config.yaml');
    assert.equal(statSync(config).mode & 0o777, 0o600, `${config} mode`);
    const text = readFileSync(config, 'utf8');
    const key = /node_key: '([0-9a-f]{64})'/.exec(text)![1]!;
    nodeKeys.add(key);
    assert.match(text, new RegExp(`port: ${p2pBase + i}\\n`));
    assert.match(text, new RegExp(`listen_address: '127.0.0.1:${apiBase + i}'`));
    const peerId = await peerIdOfNodeKey(hexToBytesOrUndefined(key)!);
    assert.equal(p2p, `/ip4/127.0.0.1/udp/${p2pBase + i}/quic-v1/p2p/${peerId}`);
  }
  assert.equal(nodeKeys.size, N, 'distinct node keys');

  const genesis = await Promise.all(apis.map(genesisOf));
  assert.equal(new Set(genesis).size, 1, `one genesis: ${genesis.join(' | ')}`);
  assert.match(first.out, /a new chain/);
  // Each node's log lines are prefixed with its name.
  for (let i = 0; i < N; i++) assert.match(first.out, new RegExp(`^\\[node-${i}\\] \\{`, 'm'));

  // A node that dies is reported; the others keep running.
  process.kill(nodePid(first, 2), 'SIGKILL');
  const deadline = Date.now() + 10_000;
  while (!/\[devnet\] node-2 exited by signal SIGKILL/.test(first.out)) {
    assert.ok(Date.now() < deadline, 'the death of node-2 is reported');
    await new Promise((r) => setTimeout(r, 100));
  }
  await getJson(`${apis[0]}/cryptarchia/info`);
  await getJson(`${apis[1]}/cryptarchia/info`);
  await stop(first, apis, [2]);

  // The same folder and size again: the same chain. Stopped as soon as node 0 follows it, while the
  // others are starting.
  const deployment = readFileSync(join(dir, 'deployment.yaml'), 'utf8');
  const second = devnet(args);
  await waitApis(second, apis.slice(0, 1), 40_000);
  assert.match(second.out, /restarting its chain/);
  assert.equal(await genesisOf(apis[0]!), genesis[0]);
  assert.equal(readFileSync(join(dir, 'deployment.yaml'), 'utf8'), deployment);
  // Once node 0 follows it has its signal handlers (it installs them when started).
  const following = Date.now() + 20_000;
  while (!second.out.includes('[devnet] node-0 follows the chain')) {
    assert.ok(Date.now() < following, 'node-0 follows the chain');
    await new Promise((r) => setTimeout(r, 100));
  }
  await stop(second, apis.slice(0, 1), [1, 2]);
});
