/**
 * Replaying blocks of 100 transfers with every ZkSig proof verified (Groth16, the shipped keys): the
 * node's verifier pool (one worker per core, each checking the proofs it receives as batches) against
 * single verification on one core (the WebAssembly verifier in this process, one proof after the
 * other); the same blocks from the same state, in the same run. The transfers are the cached real
 * ones of `proven-transfers.ts` (200 by default, two blocks); the proof of leadership is not checked
 * (the blocks have none), so the figure is the transactions' verification and the ledger.
 */
import { availableParallelism } from 'node:os';
import type { Block } from '../src/block/block.ts';
import type { ProofSystem } from '../src/ledger/proof-system.ts';
import type { LedgerState } from '../src/ledger/state.ts';
import { applyBlockVerified } from '../src/ledger/verified.ts';
import { SHIPPED_CIRCUITS_DIR } from '../src/zk/circuit-folder.ts';
import { Groth16ProofSystem } from '../src/zk/groth16-system.ts';
import { VerifierPool, withVerifierPool } from '../src/zk/verifier-pool.ts';
import { blocksOf } from './fixtures.ts';
import { type Figure, median } from './harness.ts';
import { provenTxs } from './proven-transfers.ts';

const TXS_PER_BLOCK = 100;
const BLOCKS = Number(process.env.BENCH_REPLAY_BLOCKS ?? 2);

interface Replay {
  readonly start: LedgerState;
  readonly blocks: Block[];
  readonly config: Parameters<typeof applyBlockVerified>[2];
}

let built: Promise<Replay> | undefined;

function replaySet(): Promise<Replay> {
  built ??= (async () => {
    const { s, txs } = await provenTxs(TXS_PER_BLOCK * BLOCKS);
    const config = s.deployment.ledger;
    const start = s.genesis.state;
    const blocks = blocksOf(start, s.genesis.id, txs, TXS_PER_BLOCK, config);
    return { start, blocks, config };
  })();
  return built;
}

/** Blocks per second replaying the set with `proofs`, median of 3 rounds after a warm one. */
async function rate(proofs: ProofSystem): Promise<number> {
  const { start, blocks, config } = await replaySet();
  const round = async () => {
    let state = start;
    const t = performance.now();
    for (const b of blocks)
      state = (await applyBlockVerified(state, b, config, proofs, { skipProofOfLeadership: true })).state;
    return (blocks.length * 1000) / (performance.now() - t);
  };
  await round();
  const rates: number[] = [];
  for (let i = 0; i < 3; i++) rates.push(await round());
  return median(rates);
}

async function singleRate(): Promise<number> {
  const zk = new Groth16ProofSystem({ circuits: SHIPPED_CIRCUITS_DIR });
  try {
    return await rate(zk);
  } finally {
    await zk.close();
  }
}

async function pooledRate(): Promise<number> {
  const zk = new Groth16ProofSystem({ circuits: SHIPPED_CIRCUITS_DIR });
  const pool = await VerifierPool.start({
    verificationKeys: zk.verificationKeys(),
    size: availableParallelism(),
  });
  try {
    return await rate(withVerifierPool(zk, pool));
  } finally {
    await pool.close();
    await zk.close();
  }
}

export const figures: Figure[] = [
  { name: 'chain.replay_verified_blocks_per_s', unit: 'blocks/s', measure: () => pooledRate() },
  {
    name: 'chain.replay_verified_speedup',
    unit: 'x',
    async measure(ctx) {
      const single = await singleRate();
      process.stderr.write(
        `chain.replay_verified: single verification on one core ${single.toFixed(2)} blocks/s\n`,
      );
      return (await ctx.value('chain.replay_verified_blocks_per_s')) / single;
    },
  },
];
