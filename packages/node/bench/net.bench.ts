/**
 * Peer-to-peer network figures.
 *
 * Initial block download against local replay, in one run (BENCH_NET_BLOCKS blocks, default 2,000, each
 * with BENCH_NET_TXS_PER_BLOCK transfers, default 2). Real Groth16 proofs of leadership cannot be made
 * for 2,000 blocks in a bench run (about 2 s each here), so the blocks carry proofs of the deployment's
 * insecure test proof backend (a fast test deployment, 100 ms slots, k = 10), and both sides run that
 * backend: every proof of leadership and every ZkSig is still verified on both sides, by the node's
 * verifier as for any block.
 * - The blocks are built once by a provider node in a child process (a LogosNode without leader keys,
 *   fed valid blocks through its chain service: bench/net-provider.ts) and stored in its data folder;
 *   it serves them over its real libp2p network (QUIC on 127.0.0.1).
 * - `net.ibd_blocks_per_s`: a fresh LogosNode in this process, whose IBD peer and initial peer is the
 *   provider, runs its real chain-sync client and IBD; timed from its `Starting Initial Block Download`
 *   log line until its tip is the provider's tip.
 * - `net.replay_blocks_per_s`: a fresh LogosNode in this process (no peers, the same deployment,
 *   configuration and proof backend, Bootstrapping throughout as the IBD node is while it downloads) is
 *   given the same blocks read from local storage (the data folder of a first, warm-up IBD: canonical
 *   order, stored bytes, decoded) through its chain service's `submit`; timed from the first read to the
 *   last block applied.
 * - After the warm-up IBD (untimed: the code of both sides gets compiled and optimised), rounds run IBD,
 *   replay, replay, IBD, so that a drift of the machine's load weighs on both alike; each figure is the
 *   mean of its two rates. Every block's commit is synced to disk (as in the node), so
 *   on a busy machine both are bound by the disk more than by the CPU: stderr shows each round's time and
 *   the CPU time of this process.
 * - `net.ibd_ratio_vs_replay`: ibd / replay (target ≥ 0.7): what the network and the sync protocol cost.
 *
 * Propagation across 5 node processes (`SimCluster`: devnet folder on a fast test deployment, 500 ms
 * slots, insecure test proofs, debug logs), on loopback; latencies from the nodes' log times (one
 * machine, one clock):
 * - `net.gossip_p50_ms`, `net.gossip_p99_ms`: for every block made in a BENCH_NET_GOSSIP_S window
 *   (default 60 s, from when every node is `Following`: a node takes proposals from gossip only after its
 *   IBD), from the leader's `proposal handed to gossip` to `proposal applied` on each other node (target
 *   p99 < 200 ms). A block some node never applied from gossip (it got it by sync first, or not within
 *   3 s) gives no sample; the count is printed on stderr.
 * - `net.tx_propagation_p50_ms`: BENCH_NET_TXS transfers (default 16) submitted one by one to node 0
 *   through `POST /wallet/transactions/transfer-funds`, each funded by one of node 0's four keys in turn
 *   (the wallet reserves the note it spends, so no two conflict); from the moment the request is sent
 *   until the `gossiped transaction added` debug line of each other node for its hash (the mempool
 *   admitted it). This includes the wallet's funding and signing on node 0.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { childExecArgv } from '@logos-ts/shared/runtime';
import { pino } from 'pino';
import { decodeBlock } from '../src/block/block.ts';
import type { ProcessedBlock } from '../src/chain/index.ts';
import { bytesToHex } from '../src/codec/hex.ts';
import type { Deployment } from '../src/ledger/deployment.ts';
import type { UserConfig } from '../src/node/config.ts';
import { fundedDevnetKeys } from '../src/node/devnet.ts';
import { LogosNode } from '../src/node/node.ts';
import { openStore } from '../src/storage/open.ts';
import { DEFAULT_SYNC } from '../src/sync/index.ts';
import { INSECURE_TEST_PROOFS } from '../src/zk/insecure-test-proofs.ts';
import { followerConfig } from '../test/mocks/chain-feed.ts';
import { fastDeployment } from '../test/mocks/fast-deployment.ts';
import { SimCluster, type SimNode, until } from '../test/utils/sim-cluster.ts';
import type { Figure } from './harness.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const BLOCKS = Number(process.env.BENCH_NET_BLOCKS ?? 2000);
const TXS_PER_BLOCK = Number(process.env.BENCH_NET_TXS_PER_BLOCK ?? 2);
const SLOT_MS = 100;
const K = 10;
const GOSSIP_S = Number(process.env.BENCH_NET_GOSSIP_S ?? 60);
const TXS = Number(process.env.BENCH_NET_TXS ?? 16);
const CLUSTER_NODES = 5;

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** CPU time of this process since `from`, ms. */
function cpuMs(from: NodeJS.CpuUsage): number {
  const u = process.cpuUsage(from);
  return (u.user + u.system) / 1000;
}

/** The value at quantile `q` (nearest rank) of the samples. */
function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) throw new Error('no samples');
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))]!;
}

/** Min, p90 and max of the samples, for stderr. */
function spread(ms: readonly number[]): string {
  return ms.length === 0
    ? 'none'
    : `min ${Math.min(...ms)} ms, p90 ${quantile(ms, 0.9)} ms, max ${Math.max(...ms)} ms`;
}

// ---------- IBD against replay ----------

type Msg = { type: string; [k: string]: unknown };

/** The provider child process (bench/net-provider.ts). */
export class Provider {
  private readonly proc: ChildProcess;
  private readonly exited: Promise<void>;

  constructor(args: readonly string[]) {
    this.proc = spawn(
      process.execPath,
      [...childExecArgv(), 'bench/net-provider.ts', ...args],
      // The child's output goes to our stderr: stdout carries only the `bench` lines.
      { cwd: ROOT, stdio: ['ignore', 2, 2, 'ipc'] },
    );
    this.exited = new Promise((r) => this.proc.once('exit', () => r()));
  }

  ready(ms: number): Promise<Msg> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the provider was not ready within ${ms} ms`)), ms);
      this.proc.on('message', (m: Msg) => {
        clearTimeout(timer);
        if (m.type === 'ready') resolve(m);
        else reject(new Error(`provider: ${String(m.message)}`));
      });
      this.exited.then(() => {
        clearTimeout(timer);
        reject(new Error('the provider exited before it was ready'));
      });
    });
  }

  /** A clean stop (the node closes its store), SIGKILL after 15 s. */
  async stop(): Promise<void> {
    if (this.proc.exitCode !== null || this.proc.signalCode !== null) return;
    if (this.proc.connected) this.proc.send({ type: 'stop' });
    else this.proc.kill('SIGTERM');
    const timer = setTimeout(() => this.proc.kill('SIGKILL'), 15_000);
    await this.exited;
    clearTimeout(timer);
  }
}

/** The provider's configuration, for the nodes of this process: no leader keys, API and QUIC on free ports. */
export function nodeConfig(dir: string, ibdPeer?: { peerId: string; addr: string }): UserConfig {
  const cfg = followerConfig();
  return {
    ...cfg,
    api: { backend: { ...cfg.api.backend, listen_address: '127.0.0.1:0' } },
    metrics: { listen_address: null, configured: true },
    state: { base_folder: dir },
    ...(ibdPeer
      ? {
          network: { backend: { ...cfg.network.backend, initial_peers: [ibdPeer.addr] } },
          sync: { ...DEFAULT_SYNC, ibd: { ...DEFAULT_SYNC.ibd, peers: [ibdPeer.peerId] } },
        }
      : {}),
  };
}

/** A logger that keeps the lines (parsed) with the time they were written, and shows warnings on stderr. */
export function capturingLogger() {
  const lines: { at: number; msg: string; level: number }[] = [];
  const logger = pino(
    { level: 'info' },
    {
      write(line: string) {
        const o = JSON.parse(line) as { msg: string; level: number };
        lines.push({ at: performance.now(), msg: o.msg, level: o.level });
        if (o.level >= 40) process.stderr.write(line);
      },
    },
  );
  return { lines, logger };
}

interface ProviderInfo {
  readonly peerId: string;
  readonly addr: string;
  readonly tip: string;
  readonly height: number;
}

/** Resolves with the time the node's tip is `tip` (at once if it is already). */
function tipReached(node: LogosNode, tip: string): Promise<number> {
  return new Promise((resolve) => {
    if (bytesToHex(node.chain.tip().id) === tip) {
      resolve(performance.now());
      return;
    }
    const on = (b: ProcessedBlock) => {
      if (bytesToHex(b.tip.id) !== tip) return;
      node.chain.off('block', on);
      resolve(performance.now());
    };
    node.chain.on('block', on);
  });
}

/**
 * A fresh node whose IBD peer (and initial peer) is the provider: ms from its IBD start to the provider's
 * tip. Returns the node's data folder (kept) for the replays.
 */
async function ibdRound(root: string, name: string, deployment: Deployment, p: ProviderInfo) {
  const log = capturingLogger();
  const cpu0 = process.cpuUsage();
  const node = await LogosNode.start({
    deployment,
    config: nodeConfig(join(root, name), { peerId: p.peerId, addr: p.addr }),
    baseDir: root,
    logger: log.logger,
    proofs: INSECURE_TEST_PROOFS,
  });
  try {
    let timer: NodeJS.Timeout | undefined;
    const end = await Promise.race([
      tipReached(node, p.tip),
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`${name}: the provider's tip not reached in 300 s`)),
          300_000,
        );
      }),
    ]).finally(() => clearTimeout(timer));
    const start = log.lines.find((l) => l.msg.startsWith('Starting Initial Block Download'))?.at;
    if (start === undefined) throw new Error(`${name}: no IBD start logged`);
    return { ms: end - start, cpuMs: cpuMs(cpu0), dataDir: node.dataDir };
  } finally {
    await node.stop();
  }
}

/** A fresh node (no peers) given the blocks of the store in `sourceDataDir` through its chain service: ms. */
async function replayRound(
  root: string,
  name: string,
  deployment: Deployment,
  sourceDataDir: string,
  p: ProviderInfo,
) {
  const cfg = nodeConfig(join(root, name));
  const node = await LogosNode.start({
    deployment,
    // Bootstrapping throughout, as the IBD node is while it downloads (no switch to Online after 2 s).
    config: {
      ...cfg,
      cryptarchia: {
        ...cfg.cryptarchia,
        service: {
          ...cfg.cryptarchia.service,
          bootstrap: { ...cfg.cryptarchia.service.bootstrap, prolonged_bootstrap_period: 3600 },
        },
      },
    },
    baseDir: root,
    logger: capturingLogger().logger,
    proofs: INSECURE_TEST_PROOFS,
  });
  try {
    const store = await openStore(sourceDataDir);
    let ms: number;
    let cpu: number;
    try {
      const t0 = performance.now();
      const cpu0 = process.cpuUsage();
      for (let h = 1n; h <= BigInt(p.height); h++) {
        const id = store.chain.canonicalAt(h);
        const bytes = id && store.chain.block(id);
        if (!bytes) throw new Error(`${name}: no canonical block at height ${h} in the store`);
        await node.chain.submit(decodeBlock(bytes));
      }
      ms = performance.now() - t0;
      cpu = cpuMs(cpu0);
    } finally {
      await store.close();
    }
    if (bytesToHex(node.chain.tip().id) !== p.tip)
      throw new Error(`${name}: the replay ended on another tip`);
    return { ms, cpuMs: cpu };
  } finally {
    await node.stop();
  }
}

/**
 * The provider builds the chain; a warm-up IBD; then, interleaved so that a drift of the machine's load
 * weighs on both alike: IBD, replay, replay, IBD (the replays read the blocks the warm-up node stored).
 * The means of the two rates of each kind.
 */
async function ibdAgainstReplay(): Promise<{ ibd: number; replay: number }> {
  const root = mkdtempSync(join(tmpdir(), 'logos-bench-net-'));
  // Genesis far enough back that every slot of the chain is in the past.
  const genesisS = Math.floor(Date.now() / 1000) - Math.ceil(((BLOCKS + 50) * SLOT_MS) / 1000) - 5;
  const deployment: Deployment = fastDeployment(SLOT_MS, K, genesisS);
  const provider = new Provider([
    join(root, 'provider'),
    String(BLOCKS),
    String(TXS_PER_BLOCK),
    String(genesisS),
    String(SLOT_MS),
    String(K),
  ]);
  try {
    const ready = await provider.ready(600_000);
    const peerId = String(ready.peerId);
    const p: ProviderInfo = {
      peerId,
      addr: `${(ready.addrs as string[])[0]}/p2p/${peerId}`,
      tip: String(ready.tip),
      height: Number(ready.height),
    };
    process.stderr.write(
      `net: provider built ${p.height} blocks with ${Number(ready.txs)} transfers in ${Math.round(Number(ready.buildMs))} ms\n`,
    );
    if (p.height !== BLOCKS) throw new Error(`the provider holds ${p.height} blocks, not ${BLOCKS}`);
    if (Number(ready.txs) < p.height) throw new Error('fewer than one transfer per block');

    // Warm-up (the code of both nodes compiled and optimised), and the local storage of the replays.
    const warm = await ibdRound(root, 'warm', deployment, p);
    const ibd1 = await ibdRound(root, 'ibd1', deployment, p);
    rmSync(join(root, 'ibd1'), { recursive: true, force: true });
    const replay1 = await replayRound(root, 'replay1', deployment, warm.dataDir, p);
    rmSync(join(root, 'replay1'), { recursive: true, force: true });
    const replay2 = await replayRound(root, 'replay2', deployment, warm.dataDir, p);
    rmSync(join(root, 'replay2'), { recursive: true, force: true });
    const ibd2 = await ibdRound(root, 'ibd2', deployment, p);
    const rate = (ms: number) => (p.height * 1000) / ms;
    const show = (r: { ms: number; cpuMs: number }) =>
      `${Math.round(r.ms)} ms (cpu ${Math.round(r.cpuMs)} ms)`;
    process.stderr.write(
      `net: ${p.height} blocks: warm-up IBD ${show(warm)}, IBD ${show(ibd1)}, replay ${show(replay1)}, replay ${show(replay2)}, IBD ${show(ibd2)}; cpu of this process (the IBD node's includes its start)\n`,
    );
    return { ibd: (rate(ibd1.ms) + rate(ibd2.ms)) / 2, replay: (rate(replay1.ms) + rate(replay2.ms)) / 2 };
  } finally {
    await provider.stop();
    rmSync(root, { recursive: true, force: true });
  }
}

let ibdRun: Promise<{ ibd: number; replay: number }> | undefined;
const ibdFigures = () => {
  ibdRun ??= ibdAgainstReplay();
  return ibdRun;
};

// ---------- propagation across 5 node processes ----------

interface ClusterFigures {
  readonly gossipMs: number[];
  readonly txMs: number[];
}

/** Latencies of every block handed to gossip in [from, to] (log times), to each other node's `proposal applied`. */
function gossipLatencies(
  nodes: readonly SimNode[],
  from: number,
  to: number,
): { ms: number[]; missing: number } {
  const applied = nodes.map((n) => {
    const m = new Map<string, number>();
    for (const l of n.lines('proposal applied')) if (!m.has(String(l.block))) m.set(String(l.block), l.time);
    return m;
  });
  const ms: number[] = [];
  let missing = 0;
  nodes.forEach((leader, i) => {
    for (const l of leader.lines('proposal handed to gossip')) {
      if (l.time < from || l.time > to) continue;
      nodes.forEach((_, j) => {
        if (j === i) return;
        const at = applied[j]!.get(String(l.block));
        if (at === undefined) missing++;
        else ms.push(at - l.time);
      });
    }
  });
  return { ms, missing };
}

async function clusterRun(): Promise<ClusterFigures> {
  const net = await SimCluster.create({ nodes: CLUSTER_NODES, slotMs: 500, logLevel: 'debug' });
  try {
    await net.start();
    await net.converged({ minHeight: 3, ms: 120_000 });
    // A node takes proposals from gossip only once its IBD is over.
    await until(
      'every node Following',
      async () => (await Promise.all(net.nodes.map((n) => n.info()))).every((i) => i.phase === 'Following'),
      120_000,
    );

    // Block proposals.
    const from = Date.now();
    await sleep(GOSSIP_S * 1000);
    const to = Date.now();
    // Blocks handed to gossip up to `to` have a few seconds to arrive.
    await sleep(3000);
    const gossip = gossipLatencies(net.nodes, from, to);
    process.stderr.write(
      `net: ${gossip.ms.length} proposal samples in ${GOSSIP_S} s (${spread(gossip.ms)}), ${gossip.missing} (block, node) pairs without a gossip arrival\n`,
    );

    // Transactions, from node 0 to the others.
    const n0 = net.nodes[0]!;
    const keys = fundedDevnetKeys().map((k) => k.publicKey); // node 0's funded keys (devnet keys 0..3)
    const sent: { hash: string; at: number }[] = [];
    for (let i = 0; i < TXS; i++) {
      const from = keys[i % keys.length]!;
      const at = Date.now();
      const r = await n0.post<{ hash: string }>('/wallet/transactions/transfer-funds', {
        recipient_public_key: keys[(i + 1) % keys.length]!,
        amount: 1000 + i,
        change_public_key: from,
        funding_public_keys: [from],
      });
      if (r.status !== 201) throw new Error(`transfer ${i} refused: ${r.status} ${JSON.stringify(r.body)}`);
      sent.push({ hash: r.body.hash, at });
      await sleep(250);
    }
    await sleep(3000);
    const txMs: number[] = [];
    let txMissing = 0;
    for (const other of net.nodes.slice(1)) {
      const added = new Map<string, number>();
      for (const l of other.lines('gossiped transaction added')) added.set(String(l.tx), l.time);
      for (const s of sent) {
        const at = added.get(s.hash);
        if (at === undefined) txMissing++;
        else txMs.push(at - s.at);
      }
    }
    process.stderr.write(
      `net: ${txMs.length} transaction samples (${spread(txMs)}), ${txMissing} (transaction, node) pairs without an arrival\n`,
    );
    return { gossipMs: gossip.ms, txMs };
  } finally {
    await net.close();
  }
}

let cluster: Promise<ClusterFigures> | undefined;
const clusterFigures = () => {
  cluster ??= clusterRun();
  return cluster;
};

export const figures: Figure[] = [
  {
    name: 'net.ibd_blocks_per_s',
    unit: 'blocks/s',
    async measure() {
      return (await ibdFigures()).ibd;
    },
  },
  {
    name: 'net.replay_blocks_per_s',
    unit: 'blocks/s',
    async measure() {
      return (await ibdFigures()).replay;
    },
  },
  {
    name: 'net.ibd_ratio_vs_replay',
    unit: 'x',
    async measure(ctx) {
      return (await ctx.value('net.ibd_blocks_per_s')) / (await ctx.value('net.replay_blocks_per_s'));
    },
  },
  {
    name: 'net.gossip_p50_ms',
    unit: 'ms',
    async measure() {
      return quantile((await clusterFigures()).gossipMs, 0.5);
    },
  },
  {
    name: 'net.gossip_p99_ms',
    unit: 'ms',
    async measure() {
      return quantile((await clusterFigures()).gossipMs, 0.99);
    },
  },
  {
    name: 'net.tx_propagation_p50_ms',
    unit: 'ms',
    async measure() {
      return quantile((await clusterFigures()).txMs, 0.5);
    },
  },
];
