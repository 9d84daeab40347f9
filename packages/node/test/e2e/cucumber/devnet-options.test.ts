/**
 * The devnet options the cucumber scenarios run on, through the command line (`src/main.ts devnet`):
 * a run that starts only node 0 of a two-node devnet made from a test deployment, with a genesis an
 * hour away and a genesis account, chosen peers, IBD peers from the peer lists and no bootstrap period; its node waits for
 * the genesis; SIGINT stops it with exit code 0. Bad values are refused before anything is written.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { parse } from 'yaml';
import { fastDeploymentYaml } from '../../mocks/fast-deployment.ts';
import { spawnCli } from '../../utils/cli-process.ts';
import { until } from '../../utils/sim-cluster.ts';

const tmp = mkdtempSync(join(tmpdir(), 'devnet-options-cli-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

function run(args: string[]) {
  const proc = spawnCli(['devnet', '--log-format', 'json', ...args], tmp);
  const r = { proc, out: '', exit: new Promise<number | null>((res) => proc.on('close', (c) => res(c))) };
  proc.stdout!.on('data', (b: Buffer) => {
    r.out += b.toString();
  });
  proc.stderr!.on('data', (b: Buffer) => {
    r.out += b.toString();
  });
  return r;
}

test('devnet --only --peers --ibd-peers --bootstrap-period --genesis-delay --genesis-account --deployment --insecure-test-proofs', async () => {
  const dir = join(tmp, 'net');
  const deployment = join(tmp, 'fast.yaml');
  writeFileSync(deployment, fastDeploymentYaml(500, 10));
  const bad = run(['--dir', dir, '--nodes', '2', '--ibd-peers', 'all']);
  assert.equal(await bad.exit, 1);
  assert.match(bad.out, /--ibd-peers: expected one of first, peers, none, got "all"/);
  assert.equal(existsSync(dir), false, 'nothing written');

  const api = 20_000 + Math.floor(Math.random() * 10_000);
  const p2p = api + 20;
  const r = run([
    '--dir',
    dir,
    '--nodes',
    '2',
    '--api-port-base',
    String(api),
    '--p2p-port-base',
    String(p2p),
    '--core-nodes',
    '0',
    '--only',
    '0',
    '--peers',
    '0=',
    '--peers',
    '1=0',
    '--ibd-peers',
    'peers',
    '--bootstrap-period',
    '0',
    '--genesis-delay',
    '3600',
    '--genesis-account',
    '1:1x2000',
    '--deployment',
    deployment,
    '--insecure-test-proofs',
  ]);
  const started = Math.floor(Date.now() / 1000);
  await until(
    'node 0 answers, waiting for the genesis',
    async () => {
      const i = await fetch(`http://127.0.0.1:${api}/cryptarchia/info`, { signal: AbortSignal.timeout(2000) })
        .then((x) => x.json() as Promise<{ phase: string }>)
        .catch(() => undefined);
      return i?.phase === 'AwaitingGenesisTime';
    },
    60_000,
    () => r.out.slice(-3000),
  );
  assert.match(r.out, /2 node\(s\), a new chain, genesis at .*, this run starts node-0/);
  const meta = JSON.parse(readFileSync(join(dir, 'devnet.json'), 'utf8')) as Record<string, unknown>;
  assert.ok(Math.abs((meta.genesis_time as number) - (started + 3600)) <= 5, JSON.stringify(meta));
  assert.deepEqual(meta.peers, { '0': [], '1': [0] });
  assert.equal(meta.ibd_peers, 'peers');
  assert.equal(meta.prolonged_bootstrap_period, 0);
  const dep = readFileSync(join(dir, 'deployment.yaml'), 'utf8');
  assert.match(dep, /name: fast-test/);
  assert.match(dep, /\{ value: 2000, pk: [0-9a-f]{64} \} # devnet key 3000/);
  assert.deepEqual(meta.genesis_accounts, ['1:1x2000']);
  const n1 = parse(readFileSync(join(dir, 'node-1', 'user_config.yaml'), 'utf8')) as {
    network: { backend: { initial_peers: string[] } };
    cryptarchia: { network: { bootstrap: { ibd: { peers: string[] } } } };
  };
  assert.equal(n1.network.backend.initial_peers.length, 1);
  assert.match(n1.network.backend.initial_peers[0]!, new RegExp(`/udp/${p2p}/quic-v1/p2p/`));
  assert.equal(n1.cryptarchia.network.bootstrap.ibd.peers.length, 1);
  // Node 1 is not running: this run started node 0 only.
  const n1Up = await fetch(`http://127.0.0.1:${api + 1}/cryptarchia/info`, {
    signal: AbortSignal.timeout(2000),
  })
    .then(() => true)
    .catch(() => false);
  assert.equal(n1Up, false);
  r.proc.kill('SIGINT');
  assert.equal(await r.exit, 0, r.out.slice(-2000));
  // The chain exists now: its genesis and deployment are fixed.
  const again = run(['--dir', dir, '--genesis-delay', '10']);
  assert.equal(await again.exit, 1);
  assert.match(again.out, /--genesis-delay: .* holds a chain whose genesis is fixed/);
});
