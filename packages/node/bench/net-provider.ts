/**
 * Child process of the IBD benchmark (bench/net.bench.ts): the block provider. A real LogosNode on the
 * data directory the parent gives (the parent removes it), with a fast test deployment whose genesis the
 * parent fixes, the insecure test proof backend, no leader keys, and its peer-to-peer network on a free
 * QUIC port of 127.0.0.1. It is fed `<blocks>` valid blocks through its chain service (one per slot from
 * slot 1, each with `<txs>` transfers), waits until it is `Following` (it serves chain sync only then)
 * and reports to the parent over IPC.
 *
 *   net-provider.ts <dir> <blocks> <txs per block> <genesis unix s> <slot ms> <k>
 *
 * Messages: child → parent `{type:'ready', peerId, addrs, api, tip, height, txs, buildMs}` or
 * `{type:'error', message}`; parent → child `{type:'stop'}` (the node stops cleanly, so its data folder
 * can be opened next, and the process exits). The child stops too when the parent goes away.
 */
import { pino } from 'pino';
import { bytesToHex } from '../src/codec/hex.ts';
import { LogosNode } from '../src/node/node.ts';
import { INSECURE_TEST_PROOFS } from '../src/zk/insecure-test-proofs.ts';
import { feedBlocks, followerConfig } from '../test/mocks/chain-feed.ts';
import { fastDeployment } from '../test/mocks/fast-deployment.ts';
import { nodeChildExit } from './child-exit.ts';

type Msg = { type: string; [k: string]: unknown };

const send = (m: Msg) => process.send?.(m);

let node: LogosNode | undefined;
const shutdown = nodeChildExit(() => node);
process.on('message', (m: Msg) => {
  if (m.type === 'stop') void shutdown(0);
});

async function main(): Promise<void> {
  const [dir, blocksArg, txsArg, genesisArg, slotArg, kArg] = process.argv.slice(2);
  if (!dir || !blocksArg || !txsArg || !genesisArg || !slotArg || !kArg)
    throw new Error('usage: net-provider.ts <dir> <blocks> <txs per block> <genesis unix s> <slot ms> <k>');
  const cfg = followerConfig();
  node = await LogosNode.start({
    deployment: fastDeployment(Number(slotArg), Number(kArg), Number(genesisArg)),
    config: {
      ...cfg,
      api: { backend: { ...cfg.api.backend, listen_address: '127.0.0.1:0' } },
      metrics: { listen_address: null, configured: true },
      state: { base_folder: dir },
    },
    baseDir: dir,
    logger: pino({ level: 'warn' }, pino.destination(2)),
    proofs: INSECURE_TEST_PROOFS,
  });
  const t0 = performance.now();
  const txs = await feedBlocks(node.chain, Number(blocksArg), { txEvery: 1, txPerBlock: Number(txsArg) });
  const buildMs = performance.now() - t0;
  const end = Date.now() + 30_000;
  while (node.phase !== 'Following') {
    if (Date.now() > end) throw new Error(`the provider is still ${node.phase} after 30 s`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const tip = node.chain.tip();
  send({
    type: 'ready',
    peerId: node.network.peerId,
    addrs: node.network.info().listen_addresses,
    api: node.api.listening,
    tip: bytesToHex(tip.id),
    height: tip.height,
    txs: txs.length,
    buildMs,
  });
}

main().catch((e: Error) => {
  send({ type: 'error', message: e.stack ?? e.message });
  void shutdown(1);
});
