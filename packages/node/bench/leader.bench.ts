/**
 * Block production of a devnet node with real Groth16 proofs (a fresh directory, the devnet
 * deployment and keys), run for `BENCH_LEADER_S` seconds (default 120): the share of won slots whose
 * block was applied within that slot, and the median time from a slot's start to its block applied.
 */
import { withDevnetNode } from './devnet-node.ts';
import { type Figure, median } from './harness.ts';

const SECONDS = Number(process.env.BENCH_LEADER_S ?? 120);

let run: Promise<{ inSlotPct: number; latencyP50: number }> | undefined;

function production(): Promise<{ inSlotPct: number; latencyP50: number }> {
  run ??= withDevnetNode(async (node) => {
    await new Promise((r) => setTimeout(r, SECONDS * 1000));
    const l = node.leader;
    if (l.wonSlots === 0) throw new Error(`no slot won in ${SECONDS} s`);
    process.stderr.write(
      `leader: ${l.wonSlots} won slots, ${l.produced} blocks (${l.producedAhead} proved ahead), ${l.producedInSlot} within their slot\n`,
    );
    return { inSlotPct: (100 * l.producedInSlot) / l.wonSlots, latencyP50: median(l.latenciesMs) };
  });
  return run;
}

export const figures: Figure[] = [
  { name: 'chain.own_block_in_slot_pct', unit: '%', measure: async () => (await production()).inSlotPct },
  { name: 'chain.block_latency_ms_p50', unit: 'ms', measure: async () => (await production()).latencyP50 },
];
