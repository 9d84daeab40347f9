/**
 * Initial block download of small blocks through a real `ChainService` (temporary LMDB store, every
 * proof verified by the node's verifier pool, one worker per core): the downloaded blocks handed to
 * the chain by the sync's orphan downloader (`src/sync/orphans.ts`, several submitted before the first
 * is through, so the chain prepares the next blocks while the proofs of the previous ones are verified
 * and the pool verifies the proofs of consecutive blocks together), against the same blocks submitted
 * one at a time, each awaited. Blocks of 10 real transfers (the cached proven transfers of
 * `proven-transfers.ts`, 200 by default: 20 blocks). The blocks carry no proof of leadership (none is
 * available cheaply): they are submitted as the node's own blocks, whose leader proof is not checked,
 * so the figures count the ZkSig proofs of the transactions, the ledger and storage; real blocks add
 * one PoL each, verified alongside (`chain-ibd-pol.bench.ts` measures blocks with a real one). The
 * download itself is `bench/ibd.ts`.
 */
import type { Block } from '../src/block/block.ts';
import { TEST_LEADER } from '../test/mocks/ledger.ts';
import { blocksOf } from './fixtures.ts';
import type { Figure } from './harness.ts';
import { type IbdBlocks, ibdRate } from './ibd.ts';
import { provenTxs } from './proven-transfers.ts';

const TXS_PER_BLOCK = 10;
const TXS = Number(process.env.BENCH_IBD_TXS ?? 200);
const GENESIS_MS = 1_700_000_000_000;

let built: Promise<IbdBlocks> | undefined;

function ibdSet(): Promise<IbdBlocks> {
  built ??= (async () => {
    const { s, txs } = await provenTxs(TXS);
    const blocks: Block[] = blocksOf(
      s.genesis.state,
      s.genesis.id,
      txs,
      TXS_PER_BLOCK,
      s.deployment.ledger,
      TEST_LEADER,
    );
    return { deployment: s.deployment, genesisMs: GENESIS_MS, blocks, own: true };
  })();
  return built;
}

/** Blocks per second in `mode`, median of 5 rounds after a warm one. */
async function rate(mode: 'pipelined' | 'serial'): Promise<number> {
  return ibdRate(await ibdSet(), mode, 'pool', `chain.ibd (blocks of ${TXS_PER_BLOCK} transfers)`);
}

export const figures: Figure[] = [
  { name: 'chain.ibd_verified_blocks_per_s', unit: 'blocks/s', measure: () => rate('pipelined') },
  { name: 'chain.ibd_serial_blocks_per_s', unit: 'blocks/s', measure: () => rate('serial') },
  {
    name: 'chain.ibd_pipeline_speedup',
    unit: 'x',
    async measure(ctx) {
      return (
        (await ctx.value('chain.ibd_verified_blocks_per_s')) /
        (await ctx.value('chain.ibd_serial_blocks_per_s'))
      );
    },
  },
];
