/**
 * Initial block download of the blocks a real chain mostly holds: small blocks (here empty) each with
 * one real Groth16 proof of leadership, through a real `ChainService` (temporary LMDB store) that
 * verifies them fully, the proof of leadership included (`bench/ibd.ts`). The blocks are those of
 * `proven-blocks.ts` (a devnet chain of `BENCH_IBD_POL_BLOCKS` blocks, 48 by default, proved once and
 * cached). Figures, each the median of 5 rounds after a warm one, each round on a fresh store:
 * - `chain.ibd_pol_blocks_per_s`: handed to the chain by the sync's orphan downloader (several
 *   submitted before the first is through), the proofs verified by the node's verifier pool (one
 *   worker per core), which verifies the proofs of consecutive blocks together;
 * - `chain.ibd_pol_serial_blocks_per_s`: the same blocks one at a time (each awaited), same pool;
 * - `chain.ibd_pol_single_core_blocks_per_s`: one at a time, each proof verified by the proof system
 *   itself on this thread (one verification at a time on one core);
 * - `chain.ibd_pol_speedup`: the first against the third.
 */
import type { Figure } from './harness.ts';
import { type IbdBlocks, type IbdMode, type IbdVerifier, ibdRate } from './ibd.ts';
import { POL_GENESIS_TIME_S, provenBlocks } from './proven-blocks.ts';

let built: Promise<IbdBlocks> | undefined;

function polSet(): Promise<IbdBlocks> {
  built ??= provenBlocks().then((c) => ({
    deployment: c.deployment,
    genesisMs: POL_GENESIS_TIME_S * 1000,
    blocks: c.blocks,
    own: false,
  }));
  return built;
}

async function rate(mode: IbdMode, verifier: IbdVerifier): Promise<number> {
  return ibdRate(await polSet(), mode, verifier, 'chain.ibd_pol (empty blocks with a proof of leadership)');
}

export const figures: Figure[] = [
  { name: 'chain.ibd_pol_blocks_per_s', unit: 'blocks/s', measure: () => rate('pipelined', 'pool') },
  { name: 'chain.ibd_pol_serial_blocks_per_s', unit: 'blocks/s', measure: () => rate('serial', 'pool') },
  {
    name: 'chain.ibd_pol_single_core_blocks_per_s',
    unit: 'blocks/s',
    measure: () => rate('serial', 'this-thread'),
  },
  {
    name: 'chain.ibd_pol_speedup',
    unit: 'x',
    async measure(ctx) {
      return (
        (await ctx.value('chain.ibd_pol_blocks_per_s')) /
        (await ctx.value('chain.ibd_pol_single_core_blocks_per_s'))
      );
    },
  },
];
