/**
 * Hostile peers against three honest nodes (test/utils/hostile-scenario.ts): the same run measures
 * the nodes left alone (BENCH_HOSTILE_BASELINE_S, default 60) and under attack (BENCH_HOSTILE_ATTACK_S,
 * default 180):
 * - `hostile.growth_ratio`: blocks a second under attack / left alone;
 * - `hostile.admit_latency_p99_ms`: p99 latency of the honest transfers submitted under attack;
 * - `hostile.rss_delta_mb`: the largest resident memory of a node under attack, less its mean left alone;
 * - `hostile.loop_delay_p99_ms`: the largest event-loop delay p99 of a node's status lines under attack.
 * What the attackers did, the bans and the honest inclusions are printed as comments.
 */
import { type HostileFigures, runHostileScenario } from '../test/utils/hostile-scenario.ts';
import type { Figure } from './harness.ts';

let run: Promise<HostileFigures> | undefined;
function scenario(): Promise<HostileFigures> {
  run ??= runHostileScenario({
    baselineMs: Number(process.env.BENCH_HOSTILE_BASELINE_S ?? 60) * 1000,
    attackMs: Number(process.env.BENCH_HOSTILE_ATTACK_S ?? 180) * 1000,
    ...(process.env.BENCH_HOSTILE_LOG_LEVEL ? { logLevel: process.env.BENCH_HOSTILE_LOG_LEVEL } : {}),
  }).then((f) => {
    console.log(
      `# hostile: attacks ${JSON.stringify(f.attacks)}; bans of attackers per node ${f.bansOfAttackers.join('/')}, ` +
        `of honest nodes ${f.bansOfHonest}; honest transfers: ${f.honestTxs} sent, ${f.honestAdmitted} admitted, ${f.honestIncluded} included ` +
        `(refused: ${f.baseline.refused} left alone, ${f.attacked.refused} attacked); growth ` +
        `${f.baseline.growthPerS.toFixed(2)} -> ${f.attacked.growthPerS.toFixed(2)} blocks/s` +
        (f.notIncluded.length > 0 ? `; not included: ${JSON.stringify(f.notIncluded)}` : ''),
    );
    return f;
  });
  return run;
}

export const figures: Figure[] = [
  { name: 'hostile.growth_ratio', unit: 'ratio', measure: async () => (await scenario()).growthRatio },
  {
    name: 'hostile.admit_latency_p99_ms',
    unit: 'ms',
    measure: async () => (await scenario()).admitLatencyP99Ms,
  },
  { name: 'hostile.rss_delta_mb', unit: 'MB', measure: async () => (await scenario()).rssDeltaMb },
  { name: 'hostile.loop_delay_p99_ms', unit: 'ms', measure: async () => (await scenario()).loopDelayP99Ms },
];
