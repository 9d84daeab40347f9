/**
 * Block production of a devnet node with real Groth16 proofs (a fresh directory, the devnet
 * deployment and keys), run for `BENCH_LEADER_S` seconds (default 120): the share of won slots whose
 * block was applied within that slot, and the median time from a slot's start to its block applied.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { loadDeployment } from '../src/cli.ts';
import { devnetConfig } from '../src/node/devnet.ts';
import { LogosNode } from '../src/node/node.ts';
import { type Figure, median } from './harness.ts';

const SECONDS = Number(process.env.BENCH_LEADER_S ?? 120);

let run: Promise<{ inSlotPct: number; latencyP50: number }> | undefined;

function production(): Promise<{ inSlotPct: number; latencyP50: number }> {
  run ??= (async () => {
    const dir = mkdtempSync(join(tmpdir(), 'logos-bench-leader-'));
    const config = {
      ...devnetConfig(),
      api: { backend: { ...devnetConfig().api.backend, listen_address: '127.0.0.1:0' } },
      state: { base_folder: dir },
    };
    const node = await LogosNode.start({
      deployment: loadDeployment('devnet'),
      config,
      baseDir: dir,
      logger: pino({ level: 'warn' }),
    });
    try {
      await new Promise((r) => setTimeout(r, SECONDS * 1000));
      const l = node.leader;
      if (l.wonSlots === 0) throw new Error(`no slot won in ${SECONDS} s`);
      process.stderr.write(
        `leader: ${l.wonSlots} won slots, ${l.produced} blocks (${l.producedAhead} proved ahead), ${l.producedInSlot} within their slot\n`,
      );
      return { inSlotPct: (100 * l.producedInSlot) / l.wonSlots, latencyP50: median(l.latenciesMs) };
    } finally {
      await node.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  })();
  return run;
}

export const figures: Figure[] = [
  { name: 'chain.own_block_in_slot_pct', unit: '%', measure: async () => (await production()).inSlotPct },
  { name: 'chain.block_latency_ms_p50', unit: 'ms', measure: async () => (await production()).latencyP50 },
];
