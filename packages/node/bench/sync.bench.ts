/**
 * Checkpoint sync against initial block download from genesis, in one run
 * (`npm run bench -- sync.checkpoint`).
 *
 * A provider node in a child process (bench/net-provider.ts: no leader keys, the insecure test proof
 * backend on a fast test deployment, 100 ms slots, k = 10) is fed BENCH_CHECKPOINT_BLOCKS blocks
 * (default 5,000, each with two transfers) and serves them over QUIC on 127.0.0.1; the checkpoint of
 * its LIB is read (`GET /x/admin/checkpoint`) and written to a file (untimed). Then fresh nodes in this
 * process, whose IBD peer is the provider and whose prolonged bootstrap period is 0, run in the order
 * genesis, checkpoint, checkpoint, genesis (a drift of the machine's load weighs on both alike):
 * - `sync.genesis_to_following_s`: from `LogosNode.start` to the phase `Following` with the provider's
 *   tip, from genesis (every block downloaded and verified);
 * - `sync.checkpoint_to_following_s`: the same, started with `--checkpoint <file>` (the file read and
 *   checked, the blocks after it downloaded and verified);
 * - `sync.checkpoint_speedup`: the first over the second (means of the two runs of each).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkpointSummary } from '../src/chain/index.ts';
import { bytesToHex } from '../src/codec/hex.ts';
import type { Deployment } from '../src/ledger/deployment.ts';
import type { UserConfig } from '../src/node/config.ts';
import { LogosNode } from '../src/node/node.ts';
import { INSECURE_TEST_PROOFS } from '../src/zk/insecure-test-proofs.ts';
import { fastDeployment } from '../test/mocks/fast-deployment.ts';
import type { Figure } from './harness.ts';
import { capturingLogger, nodeConfig, Provider } from './net.bench.ts';

const BLOCKS = Number(process.env.BENCH_CHECKPOINT_BLOCKS ?? 5000);
const SLOT_MS = 100;
const K = 10;

interface Peer {
  readonly peerId: string;
  readonly addr: string;
  readonly tip: string;
}

/** Seconds from the start of a fresh node to `Following` at the provider's tip. */
async function toFollowing(root: string, name: string, deployment: Deployment, p: Peer, checkpoint?: string) {
  const base = nodeConfig(join(root, name), { peerId: p.peerId, addr: p.addr });
  const config: UserConfig = {
    ...base,
    cryptarchia: {
      ...base.cryptarchia,
      service: {
        ...base.cryptarchia.service,
        bootstrap: { ...base.cryptarchia.service.bootstrap, prolonged_bootstrap_period: 0 },
      },
    },
  };
  const t0 = performance.now();
  const node = await LogosNode.start({
    deployment,
    config,
    baseDir: root,
    logger: capturingLogger().logger,
    proofs: INSECURE_TEST_PROOFS,
    ...(checkpoint ? { checkpoint: { file: checkpoint } } : {}),
  });
  try {
    const end = performance.now() + 600_000;
    while (node.phase !== 'Following' || bytesToHex(node.chain.tip().id) !== p.tip) {
      if (performance.now() > end) throw new Error(`${name}: not Following at the provider's tip in 600 s`);
      await new Promise((r) => setTimeout(r, 10));
    }
    return (performance.now() - t0) / 1000;
  } finally {
    await node.stop();
    rmSync(join(root, name), { recursive: true, force: true });
  }
}

let result: Promise<{ genesis: number; checkpoint: number }> | undefined;

function measure(): Promise<{ genesis: number; checkpoint: number }> {
  result ??= (async () => {
    const root = mkdtempSync(join(tmpdir(), 'logos-bench-checkpoint-'));
    const genesisS = Math.floor(Date.now() / 1000) - Math.ceil(((BLOCKS + 50) * SLOT_MS) / 1000) - 5;
    const deployment = fastDeployment(SLOT_MS, K, genesisS);
    const provider = new Provider([
      join(root, 'provider'),
      String(BLOCKS),
      '2',
      String(genesisS),
      String(SLOT_MS),
      String(K),
    ]);
    try {
      const ready = await provider.ready(900_000);
      const peerId = String(ready.peerId);
      const p: Peer = {
        peerId,
        addr: `${(ready.addrs as string[])[0]}/p2p/${peerId}`,
        tip: String(ready.tip),
      };
      const file = join(root, 'lib.checkpoint');
      const r = await fetch(`http://${String(ready.api)}/x/admin/checkpoint`);
      if (r.status !== 200) throw new Error(`checkpoint export: ${r.status} ${await r.text()}`);
      const bytes = new Uint8Array(await r.arrayBuffer());
      writeFileSync(file, bytes);
      const cp = { height: Number(checkpointSummary(bytes).height), bytes: bytes.length };
      const g1 = await toFollowing(root, 'genesis1', deployment, p);
      const c1 = await toFollowing(root, 'checkpoint1', deployment, p, file);
      const c2 = await toFollowing(root, 'checkpoint2', deployment, p, file);
      const g2 = await toFollowing(root, 'genesis2', deployment, p);
      process.stderr.write(
        `sync: ${Number(ready.height)} blocks, checkpoint at height ${cp.height} (${cp.bytes} bytes): ` +
          `from genesis ${g1.toFixed(2)} s, ${g2.toFixed(2)} s; from the checkpoint ${c1.toFixed(2)} s, ${c2.toFixed(2)} s\n`,
      );
      return { genesis: (g1 + g2) / 2, checkpoint: (c1 + c2) / 2 };
    } finally {
      await provider.stop();
      rmSync(root, { recursive: true, force: true });
    }
  })();
  return result;
}

export const figures: Figure[] = [
  {
    name: 'sync.genesis_to_following_s',
    unit: 's',
    async measure() {
      return (await measure()).genesis;
    },
  },
  {
    name: 'sync.checkpoint_to_following_s',
    unit: 's',
    async measure() {
      return (await measure()).checkpoint;
    },
  },
  {
    name: 'sync.checkpoint_speedup',
    unit: 'x',
    async measure(ctx) {
      return (
        (await ctx.value('sync.genesis_to_following_s')) / (await ctx.value('sync.checkpoint_to_following_s'))
      );
    },
  },
];
