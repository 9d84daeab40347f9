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
 * - `net.replay_blocks_per_s`: the provider stopped, a fresh LogosNode in this process (no peers, the same
 *   deployment, configuration and proof backend) is given the same blocks read from the provider's
 *   store (canonical order, stored bytes, decoded) through its chain service's `submit`; timed from the
 *   first read to the last block applied.
 * - `net.ibd_ratio_vs_replay`: ibd / replay (target ≥ 0.7): what the network and the sync protocol cost.
 *
 * Propagation across 5 node processes (`SimCluster`: devnet folder on a fast test deployment, 500 ms
 * slots, insecure test proofs, debug logs), on loopback; latencies from the nodes' log times (one
 * machine, one clock):
 * - `net.gossip_p50_ms`, `net.gossip_p99_ms`: for every block made in a BENCH_NET_GOSSIP_S window
 *   (default 60 s, after the nodes converged), from the leader's `proposal handed to gossip` to
 *   `proposal applied` on each other node (target p99 < 200 ms). A block some node never applied from
 *   gossip (it got it by sync, or it arrived after the window) gives no sample; the count is printed on
 *   stderr.
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
import { pino } from 'pino';
import { decodeBlock } from '../src/block/block.ts';
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
import { SimCluster, type SimNode } from '../test/utils/sim-cluster.ts';
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

async function waitFor(what: string, pred: () => boolean, ms: number, everyMs = 5): Promise<void> {
  const end = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}

/** The value at quantile `q` (nearest rank) of the samples. */
function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) throw new Error('no samples');
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))]!;
}

// ---------- IBD against replay ----------

type Msg = { type: string; [k: string]: unknown };

/** The provider child process (bench/net-provider.ts). */
class Provider {
  private readonly proc: ChildProcess;
  private readonly exited: Promise<void>;

  constructor(args: readonly string[]) {
    this.proc = spawn(
      process.execPath,
      ['--import', 'tsx', '--import', './src/polyfills.mjs', 'bench/net-provider.ts', ...args],
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
function nodeConfig(dir: string, ibdPeer?: { peerId: string; addr: string }): UserConfig {
  const cfg = followerConfig();
  return {
    ...cfg,
    api: { backend: { ...cfg.api.backend, listen_address: '127.0.0.1:0' } },
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
function capturingLogger() {
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

async function ibdAgainstReplay(): Promise<{ ibd: number; replay: number }> {
  const root = mkdtempSync(join(tmpdir(), 'logos-bench-net-'));
  const providerDir = join(root, 'provider');
  // Genesis far enough back that every slot of the chain is in the past, with room for the run.
  const genesisS = Math.floor(Date.now() / 1000) - Math.ceil(((BLOCKS + 50) * SLOT_MS) / 1000) - 5;
  const deployment: Deployment = fastDeployment(SLOT_MS, K, genesisS);
  const provider = new Provider([
    providerDir,
    String(BLOCKS),
    String(TXS_PER_BLOCK),
    String(genesisS),
    String(SLOT_MS),
    String(K),
  ]);
  let ibdNode: LogosNode | undefined;
  let replayNode: LogosNode | undefined;
  try {
    const ready = await provider.ready(600_000);
    const tip = String(ready.tip);
    const height = Number(ready.height);
    const addrs = ready.addrs as string[];
    process.stderr.write(
      `net: provider built ${height} blocks with ${Number(ready.txs)} transfers in ${Math.round(Number(ready.buildMs))} ms\n`,
    );
    if (height !== BLOCKS) throw new Error(`the provider holds ${height} blocks, not ${BLOCKS}`);
    if (Number(ready.txs) < height) throw new Error('fewer than one transfer per block');

    // (a) IBD from the provider over QUIC.
    const ibdLog = capturingLogger();
    const ibdStart = () => ibdLog.lines.find((l) => l.msg.startsWith('Starting Initial Block Download'))?.at;
    ibdNode = await LogosNode.start({
      deployment,
      config: nodeConfig(join(root, 'ibd'), {
        peerId: String(ready.peerId),
        addr: `${addrs[0]}/p2p/${String(ready.peerId)}`,
      }),
      baseDir: root,
      logger: ibdLog.logger,
      proofs: INSECURE_TEST_PROOFS,
    });
    const n = ibdNode;
    await waitFor('the IBD node at the provider tip', () => bytesToHex(n.chain.tip().id) === tip, 300_000, 2);
    const ibdEnd = performance.now();
    const t0 = ibdStart();
    if (t0 === undefined) throw new Error('the IBD node logged no IBD start');
    const ibdMs = ibdEnd - t0;
    await ibdNode.stop();
    ibdNode = undefined;

    // (b) The same blocks from the provider's store through a fresh chain service.
    await provider.stop();
    replayNode = await LogosNode.start({
      deployment,
      config: nodeConfig(join(root, 'replay')),
      baseDir: root,
      logger: capturingLogger().logger,
      proofs: INSECURE_TEST_PROOFS,
    });
    const store = await openStore(join(providerDir, followerConfig().storage.backend.folder_name));
    let replayMs: number;
    try {
      const r0 = performance.now();
      for (let h = 1n; h <= BigInt(height); h++) {
        const id = store.chain.canonicalAt(h);
        const bytes = id && store.chain.block(id);
        if (!bytes) throw new Error(`the provider's store has no canonical block at height ${h}`);
        await replayNode.chain.submit(decodeBlock(bytes));
      }
      replayMs = performance.now() - r0;
    } finally {
      await store.close();
    }
    if (bytesToHex(replayNode.chain.tip().id) !== tip) throw new Error('the replay ended on another tip');
    process.stderr.write(
      `net: IBD ${height} blocks in ${Math.round(ibdMs)} ms, replay in ${Math.round(replayMs)} ms\n`,
    );
    return { ibd: (height * 1000) / ibdMs, replay: (height * 1000) / replayMs };
  } finally {
    await ibdNode?.stop();
    await replayNode?.stop();
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

    // Block proposals.
    const from = Date.now();
    await sleep(GOSSIP_S * 1000);
    const to = Date.now();
    // Blocks handed to gossip up to `to` have a few seconds to arrive.
    await sleep(3000);
    const gossip = gossipLatencies(net.nodes, from, to);
    process.stderr.write(
      `net: ${gossip.ms.length} proposal samples in ${GOSSIP_S} s, ${gossip.missing} (block, node) pairs without a gossip arrival\n`,
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
      `net: ${txMs.length} transaction samples, ${txMissing} (transaction, node) pairs without an arrival\n`,
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
