/**
 * Child process of the API benchmarks (bench/api.bench.ts): a real LogosNode on a fresh data directory
 * (given by the parent; both remove it at the end), with a fast test deployment and the insecure test
 * proofs, its API on 127.0.0.1 and an ephemeral port. It talks to the parent over IPC and stops when
 * told to, on SIGTERM/SIGINT, or when the parent goes away (the IPC channel closes).
 *
 *   api-node.ts live  <dir> <slotMs>   a node that produces blocks (devnet keys lead)
 *   api-node.ts range <dir> <blocks>   a node without leader keys, fed <blocks> pre-built valid blocks
 *                                      (one per slot from slot 1, some with transfers) via its chain
 *                                      service, then serving them
 *
 * Messages: child → parent `{type:'ready', url, tipSlot, height, buildMs?}`, `{type:'error', message}`;
 * parent → child `{type:'mem'}` (answered `{type:'mem', rss, heapUsed, external, rssAnon, rssFile, height}`),
 * `{type:'baseline', slotTo, batch, rounds}` (answered `{type:'baseline', rates}`: canonical blocks read and
 * serialised as NDJSON lines per second, without HTTP), `{type:'stop'}`.
 */
import { readFileSync, rmSync } from 'node:fs';
import { pino } from 'pino';
import { blockStreamLine } from '../src/api/streams.ts';
import type { UserConfig } from '../src/node/config.ts';
import { devnetConfig } from '../src/node/devnet.ts';
import { LogosNode } from '../src/node/node.ts';
import { INSECURE_TEST_PROOFS } from '../src/zk/insecure-test-proofs.ts';
import { feedBlocks, followerConfig } from '../test/mocks/chain-feed.ts';
import { fastDeployment } from '../test/mocks/fast-deployment.ts';
import { nodeChildExit } from './child-exit.ts';

type Msg = { type: string; [k: string]: unknown };

const send = (m: Msg) => process.send?.(m);

function nodeConfig(dir: string, leaderKeys: boolean): UserConfig {
  const cfg = leaderKeys ? devnetConfig() : followerConfig();
  return {
    ...cfg,
    api: { backend: { ...cfg.api.backend, listen_address: '127.0.0.1:0' } },
    state: { base_folder: dir },
  };
}

let node: LogosNode | undefined;
const dataDir = process.argv[3];
// The parent removes the directory too; the clean-up covers a parent that was killed.
const shutdown = nodeChildExit(
  () => node,
  () => {
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  },
);

/**
 * Canonical blocks of slots [0, slotTo], read by pages of `batch` as the blocks_range stream does, each
 * block read from the store and made into its NDJSON line; returns lines per second.
 */
function baselineRate(n: LogosNode, slotTo: bigint, batch: number): number {
  const chain = n.chain;
  const tip = chain.tip();
  const lib = chain.lib();
  const t0 = performance.now();
  let lines = 0;
  let bytes = 0;
  let lo = 0n;
  for (;;) {
    const page = chain.canonicalBySlot(lo, slotTo, batch);
    if (page.length === 0) break;
    for (const { id } of page) {
      const b = chain.block(id);
      if (!b) throw new Error('a canonical block is missing');
      const s = `${blockStreamLine(b, id, tip, lib)}\n`;
      bytes += s.length;
      lines++;
    }
    lo = page[page.length - 1]!.slot + 1n;
  }
  const ms = performance.now() - t0;
  if (bytes === 0) throw new Error('no block read');
  return (lines * 1000) / ms;
}

/** Anonymous and file-backed (lmdb's memory map among them) resident memory, in bytes, where /proc exists. */
function procRss(): { rssAnon?: number; rssFile?: number } {
  try {
    const status = readFileSync('/proc/self/status', 'utf8');
    const kb = (k: string) =>
      Number(new RegExp(`^${k}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN) * 1024;
    return { rssAnon: kb('RssAnon'), rssFile: kb('RssFile') };
  } catch {
    return {};
  }
}

async function main(): Promise<void> {
  const [mode, dir, arg] = process.argv.slice(2);
  if (!dir || (mode !== 'live' && mode !== 'range'))
    throw new Error('usage: api-node.ts live|range <dir> <n>');
  const logger = pino({ level: 'warn' }, pino.destination(2));
  let buildMs: number | undefined;
  if (mode === 'live') {
    const slotMs = Number(arg ?? 200);
    node = await LogosNode.start({
      deployment: fastDeployment(slotMs, 2),
      config: nodeConfig(dir, true),
      baseDir: dir,
      logger,
      proofs: INSECURE_TEST_PROOFS,
    });
    // Wait for the first blocks so that the chain moves and the LIB is past genesis.
    const end = Date.now() + 30_000;
    while (node.chain.tip().height < 3 && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
  } else {
    const count = Number(arg ?? 10_000);
    const slotMs = 100;
    // Genesis far enough back that every slot 1..count is in the past.
    const genesisS = Math.floor(Date.now() / 1000) - Math.ceil(((count + 20) * slotMs) / 1000);
    node = await LogosNode.start({
      deployment: fastDeployment(slotMs, 2, genesisS),
      config: nodeConfig(dir, false),
      baseDir: dir,
      logger,
      proofs: INSECURE_TEST_PROOFS,
    });
    const t0 = performance.now();
    await feedBlocks(node.chain, count);
    buildMs = performance.now() - t0;
  }
  const tip = node.chain.tip();
  send({
    type: 'ready',
    url: `http://${node.api.listening}`,
    tipSlot: String(tip.slot),
    height: tip.height,
    ...(buildMs === undefined ? {} : { buildMs }),
  });
  process.on('message', (m: Msg) => {
    if (!node) return;
    if (m.type === 'stop') void shutdown(0);
    else if (m.type === 'mem') {
      const u = process.memoryUsage();
      send({
        type: 'mem',
        rss: u.rss,
        heapUsed: u.heapUsed,
        external: u.external,
        ...procRss(),
        height: node.chain.tip().height,
      });
    } else if (m.type === 'baseline') {
      const slotTo = BigInt(m.slotTo as string);
      const rates: number[] = [];
      for (let r = 0; r < Number(m.rounds ?? 1); r++) rates.push(baselineRate(node, slotTo, Number(m.batch)));
      send({ type: 'baseline', rates });
    }
  });
}

main().catch((e: Error) => {
  send({ type: 'error', message: e.stack ?? e.message });
  void shutdown(1);
});
