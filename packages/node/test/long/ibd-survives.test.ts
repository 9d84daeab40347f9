/**
 * Initial block download that survives: a node killed with SIGKILL in the middle of its IBD restarts
 * from the last block it applied (what it applied is not downloaded again); a node whose two IBD peers
 * are unreachable at first (it waits and tries again where the reference stops), then one behind a slow
 * link (a UDP relay at 30 kB/s) and one whose link drops again and again (down 12 s, longer than QUIC's
 * idle timeout, up 8 s), reaches their tip, logs its progress and never exits. Providers are nodes of this process fed a chain of their own (no leader keys); the syncing
 * node is the command line in a child process, on a fast test deployment with the insecure test
 * proofs, its logs read as JSON.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { pino } from 'pino';
import { bytesToHex } from '../../src/codec/hex.ts';
import { parseDeployment } from '../../src/ledger/deployment.ts';
import { LogosNode } from '../../src/node/node.ts';
import { DEFAULT_SYNC } from '../../src/sync/index.ts';
import { INSECURE_TEST_PROOFS } from '../../src/zk/insecure-test-proofs.ts';
import { feedBlocks, followerConfig } from '../mocks/chain-feed.ts';
import { fastDeploymentYaml } from '../mocks/fast-deployment.ts';
import { spawnCli } from '../utils/cli-process.ts';
import { UdpProxy } from '../utils/udp-proxy.ts';
import { waitUntil } from '../utils/wait-until.ts';

const BLOCKS = 1500;
const SLOT_MS = 100;
const dir = mkdtempSync(join(tmpdir(), 'logos-ibd-survives-'));
const genesisS = Math.floor(Date.now() / 1000) - Math.ceil(((BLOCKS + 50) * SLOT_MS) / 1000) - 5;
const deploymentYaml = fastDeploymentYaml(SLOT_MS, 10, genesisS);
const deployment = parseDeployment(deploymentYaml, 'fast-test');
writeFileSync(join(dir, 'deployment.yaml'), deploymentYaml);

const providers: LogosNode[] = [];
let tip: string;

/** A node of this process without keys; with `from`, it downloads its chain from that node at start. */
async function provider(name: string, from?: LogosNode): Promise<LogosNode> {
  const cfg = followerConfig();
  const peer = from && { id: from.network.info().peer_id, addr: addrOf(from) };
  const node = await LogosNode.start({
    deployment,
    config: {
      ...cfg,
      api: { backend: { ...cfg.api.backend, listen_address: '127.0.0.1:0' } },
      metrics: { listen_address: null, configured: true },
      state: { base_folder: join(dir, name) },
      ...(peer
        ? {
            network: { backend: { ...cfg.network.backend, initial_peers: [peer.addr] } },
            sync: { ...DEFAULT_SYNC, ibd: { ...DEFAULT_SYNC.ibd, peers: [peer.id] } },
          }
        : {}),
    },
    baseDir: dir,
    logger: pino({ level: 'silent' }),
    proofs: INSECURE_TEST_PROOFS,
  });
  providers.push(node);
  return node;
}

function addrOf(n: LogosNode): string {
  return `${n.network.info().listen_addresses[0]}/p2p/${n.network.info().peer_id}`;
}

const portOf = (n: LogosNode) => Number(/\/udp\/(\d+)\//.exec(n.network.info().listen_addresses[0]!)![1]);

/** The syncing node's config: no keys, IBD from `peers` (multiaddrs ending in /p2p/<id>). */
function syncingYaml(state: string, peers: readonly string[]): string {
  const ids = peers.map((a) => a.split('/p2p/')[1]!);
  return [
    "api: { backend: { listen_address: '127.0.0.1:0' } }",
    'metrics: { listen_address: null }',
    `state: { base_folder: '${state}' }`,
    'network:',
    '  backend:',
    "    swarm: { host: '127.0.0.1', port: 0 }",
    `    initial_peers: [${peers.map((p) => `'${p}'`).join(', ')}]`,
    'cryptarchia:',
    '  service: { bootstrap: { prolonged_bootstrap_period: 0 } }',
    `  network: { bootstrap: { ibd: { peers: [${ids.map((i) => `'${i}'`).join(', ')}] } } }`,
    '',
  ].join('\n');
}

/** The command line's node, its JSON log lines kept (parsed) as they come. */
class CliNode {
  readonly lines: Record<string, unknown>[] = [];
  readonly proc: ChildProcess;
  exited = false;

  constructor(config: string) {
    this.proc = spawnCli(
      [
        'start',
        '--config',
        config,
        '--deployment',
        join(dir, 'deployment.yaml'),
        '--insecure-test-proofs',
        '--log-format',
        'json',
        '--log-level',
        'debug',
      ],
      dir,
    );
    let buf = '';
    this.proc.stdout!.on('data', (d: Buffer) => {
      buf += d.toString();
      for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        try {
          this.lines.push(JSON.parse(line) as Record<string, unknown>);
        } catch {
          // not a log line
        }
      }
    });
    this.proc.stderr!.on('data', () => {});
    this.proc.once('exit', () => {
      this.exited = true;
    });
  }

  /** The height of its tip, from its API (undefined before the API answers). */
  async height(): Promise<number | undefined> {
    const api = this.lines.find((l) => l.msg === 'chain ready')?.api;
    if (typeof api !== 'string') return undefined;
    try {
      const r = await fetch(`http://${api}/cryptarchia/info`, { signal: AbortSignal.timeout(2000) });
      return ((await r.json()) as { cryptarchia_info: { height: number } }).cryptarchia_info.height;
    } catch {
      return undefined;
    }
  }

  /** Blocks its initial block download took from peers (the line that ends it), undefined before. */
  received(): number | undefined {
    const done = this.lines.find((l) => String(l.msg).startsWith('IBD complete:'));
    return done === undefined ? undefined : Number(done.applied);
  }

  async stop(): Promise<void> {
    if (this.exited) return;
    const gone = new Promise((r) => this.proc.once('exit', r));
    this.proc.kill('SIGTERM');
    const timer = setTimeout(() => this.proc.kill('SIGKILL'), 15_000);
    await gone;
    clearTimeout(timer);
  }
}

before(async () => {
  const a = await provider('a');
  await feedBlocks(a.chain, BLOCKS, { txEvery: 1, txPerBlock: 1 });
  tip = bytesToHex(a.chain.tip().id);
  await waitUntil(() => a.phase === 'Following', 60_000, 'the provider Following');
});
after(async () => {
  for (const p of providers) await p.stop().catch(() => {});
  rmSync(dir, { recursive: true, force: true });
});

test('SIGKILL in the middle of IBD: the restart continues from the last block applied', {
  timeout: 300_000,
}, async () => {
  const a = providers[0]!;
  writeFileSync(join(dir, 'killed.yaml'), syncingYaml('./killed', [addrOf(a)]));
  const first = new CliNode('killed.yaml');
  let reached = 0;
  await waitUntil(
    async () => {
      reached = (await first.height()) ?? 0;
      return reached >= 300;
    },
    120_000,
    'IBD under way',
  );
  first.proc.kill('SIGKILL');
  await new Promise((r) => first.proc.once('exit', r));
  assert.ok(reached < BLOCKS, `killed during IBD (at height ${reached} of ${BLOCKS})`);

  const again = new CliNode('killed.yaml');
  try {
    let restartedAt: number | undefined;
    await waitUntil(
      async () => {
        const h = await again.height();
        restartedAt ??= h;
        return h === BLOCKS;
      },
      180_000,
      "the provider's tip after the restart",
    );
    assert.ok(
      restartedAt !== undefined && restartedAt >= reached,
      `restarted at ${restartedAt}, killed at ${reached}`,
    );
    // What it had applied was not downloaded again: it received about the rest of the chain only.
    await waitUntil(() => again.received() !== undefined, 60_000, 'the end of IBD after the restart');
    const received = again.received()!;
    assert.ok(
      received > 0 && received <= BLOCKS - reached + 20,
      `downloaded ${received} blocks after a restart at ${reached}`,
    );
    assert.ok(again.lines.some((l) => l.msg === 'Starting Initial Block Download with 1 peers'));
  } finally {
    await again.stop();
  }
});

test('IBD through links that are down, drop again and again, or are slow reaches the tip and never exits', {
  timeout: 400_000,
}, async () => {
  const a = providers[0]!;
  const b = await provider('b', a);
  await waitUntil(
    () => bytesToHex(b.chain.tip().id) === tip && b.phase === 'Following',
    120_000,
    'the second provider',
  );
  const dropping = await UdpProxy.start({ host: '127.0.0.1', port: portOf(a) });
  const slow = await UdpProxy.start({ host: '127.0.0.1', port: portOf(b) }, { bytesPerS: 30_000 });
  // Both links down at the start: no peer gives its tip.
  dropping.down = true;
  slow.down = true;
  let flap: NodeJS.Timeout | undefined;
  // Down 12 s (QUIC's idle timeout is 10 s), up 8 s, and again.
  const flapping = () => {
    dropping.down = true;
    flap = setTimeout(() => {
      dropping.down = false;
      flap = setTimeout(flapping, 8_000);
    }, 12_000);
  };
  const peers = [
    `/ip4/127.0.0.1/udp/${dropping.port}/quic-v1/p2p/${a.network.info().peer_id}`,
    `/ip4/127.0.0.1/udp/${slow.port}/quic-v1/p2p/${b.network.info().peer_id}`,
  ];
  writeFileSync(join(dir, 'flaky.yaml'), syncingYaml('./flaky', peers));
  const node = new CliNode('flaky.yaml');
  const logged = (re: RegExp) => node.lines.some((l) => re.test(String(l.msg)));
  try {
    // F stops its chain network here; this node waits and tries again.
    await waitUntil(() => logged(/no peer gave its tip; trying again/), 60_000, 'IBD trying again');
    assert.equal(node.exited, false);
    // The slow link comes up: the download starts through it.
    slow.down = false;
    await waitUntil(
      async () => ((await node.height()) ?? 0) >= 100,
      180_000,
      'the download through the slow link',
    );
    // The other peer comes up, and its link goes down again and again.
    dropping.down = false;
    flap = setTimeout(flapping, 8_000);
    await waitUntil(
      async () => {
        if (node.exited) throw new Error('the node exited during IBD');
        return (await node.height()) === BLOCKS;
      },
      300_000,
      "the providers' tip through the bad links",
    );
    // Its last round asks both peers for their tips again, through the link that may be down.
    await waitUntil(() => logged(/^Initial Block Download completed successfully$/), 60_000, 'IBD completed');
    assert.equal(node.exited, false);
    assert.ok(logged(/^failed to fetch tip from/), 'tip requests failed on the links that were down');
    assert.ok(dropping.counts.dropped > 0 && slow.counts.relayed > 0);
    const progress = node.lines.filter((l) => l.msg === 'Initial Block Download progress');
    process.stderr.write(
      `ibd-survives: ${dropping.counts.dropped} datagrams dropped; ${progress.length} progress lines, the last ${JSON.stringify(progress.at(-1) ?? null)}\n`,
    );
  } finally {
    clearTimeout(flap);
    await node.stop();
    dropping.close();
    slow.close();
  }
});
