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
 * one PoL each, verified alongside.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import type { Block } from '../src/block/block.ts';
import { headerId } from '../src/block/header.ts';
import { ChainService } from '../src/chain/chain-service.ts';
import { SlotClock } from '../src/chain/clock.ts';
import type { ProofSystem } from '../src/ledger/proof-system.ts';
import { openStore } from '../src/storage/open.ts';
import { OrphanDownloader, RejectedBlocks } from '../src/sync/orphans.ts';
import { DEFAULT_KEYS_DIR } from '../src/zk/artifacts.ts';
import { Groth16ProofSystem } from '../src/zk/groth16-system.ts';
import { VerifierPool, withVerifierPool } from '../src/zk/verifier-pool.ts';
import { TEST_LEADER } from '../test/mocks/ledger.ts';
import { blocksOf } from './fixtures.ts';
import { type Figure, median } from './harness.ts';
import { provenTxs, type Setup } from './proven-transfers.ts';

const TXS_PER_BLOCK = 10;
const TXS = Number(process.env.BENCH_IBD_TXS ?? 200);
const GENESIS_MS = 1_700_000_000_000;
const logger = pino({ level: 'silent' });

interface IbdSet {
  readonly s: Setup;
  readonly blocks: Block[];
}

let built: Promise<IbdSet> | undefined;

export function ibdSet(): Promise<IbdSet> {
  built ??= (async () => {
    const { s, txs } = await provenTxs(TXS);
    const blocks = blocksOf(
      s.genesis.state,
      s.genesis.id,
      txs,
      TXS_PER_BLOCK,
      s.deployment.ledger,
      TEST_LEADER,
    );
    return { s, blocks };
  })();
  return built;
}

type Mode = 'pipelined' | 'serial';

/** One download of the whole set into a fresh chain; blocks per second. */
export async function round(set: IbdSet, proofs: ProofSystem, mode: Mode): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'logos-bench-ibd-'));
  const store = await openStore(dir);
  const chain = await ChainService.init(
    { deployment: set.s.deployment, genesisTimeMs: GENESIS_MS, online: false },
    {
      store: store.chain,
      proofs,
      clock: new SlotClock(GENESIS_MS, set.s.deployment.slot_duration_ms, () => GENESIS_MS + 10 ** 9),
      logger,
    },
  );
  try {
    const { blocks } = set;
    const t = performance.now();
    if (mode === 'serial') {
      for (const b of blocks) await chain.submit(b, { own: true });
    } else {
      // The sync's downloader, fed by a peer that has the blocks at hand.
      const downloader = new OrphanDownloader(
        { maxPending: 10, retryRecoverable: true },
        {
          chain: {
            submit: (b) => chain.submit(b, { own: true }),
            tip: () => chain.tip(),
            lib: () => chain.lib(),
            has: (id) => chain.has(id),
          },
          source: async function* () {
            for (const block of blocks) yield { block, id: headerId(block.header), peer: 'bench-peer' };
          },
          network: { penalize: () => {} },
          rejected: new RejectedBlocks(0),
          logger,
          signal: new AbortController().signal,
        },
      );
      downloader.enqueue(headerId(blocks[blocks.length - 1]!.header));
      await downloader.whenIdle();
    }
    const ms = performance.now() - t;
    if (chain.tip().height !== blocks.length)
      throw new Error(`${mode}: the chain reached height ${chain.tip().height}, not ${blocks.length}`);
    return (blocks.length * 1000) / ms;
  } finally {
    await chain.close();
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Blocks per second in `mode`, median of 5 rounds after a warm one. */
async function ibdRate(mode: Mode): Promise<number> {
  const set = await ibdSet();
  const zk = new Groth16ProofSystem({ keysDir: DEFAULT_KEYS_DIR });
  const pool = await VerifierPool.start({
    verificationKeys: zk.verificationKeys(),
    size: availableParallelism(),
  });
  const proofs = withVerifierPool(zk, pool);
  try {
    await round(set, proofs, mode);
    const rates: number[] = [];
    for (let i = 0; i < 5; i++) rates.push(await round(set, proofs, mode));
    process.stderr.write(
      `chain.ibd ${mode}: ${set.blocks.length} blocks of ${TXS_PER_BLOCK} transfers, ${pool.size} verifier threads, ` +
        `rounds ${rates.map((r) => r.toFixed(1)).join(' ')} blocks/s, ${pool.messagesSent} pool messages\n`,
    );
    return median(rates);
  } finally {
    await pool.close();
    await zk.close();
  }
}

export const figures: Figure[] = [
  { name: 'chain.ibd_verified_blocks_per_s', unit: 'blocks/s', measure: () => ibdRate('pipelined') },
  { name: 'chain.ibd_serial_blocks_per_s', unit: 'blocks/s', measure: () => ibdRate('serial') },
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
