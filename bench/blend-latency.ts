/**
 * Proposal latency on the five-node devnet with real proofs (deployments/devnet.yaml, node processes
 * run as `npm run devnet` runs them, on free ports): for each block a node produced (its `block
 * produced` line: `block`, `slot`, `height`, the time), the time until each other node applied it
 * from gossip (its debug line `proposal applied`, same `block`). Blocks of the first `warmupSlots`
 * slots are left out: the five provers share the machine's cores and catch up there.
 *
 * With `coreNodes` 4 the genesis declares nodes 0–3 as Blend core nodes (node 4 is an edge node):
 * a proposal goes through one Blend layer to a core node, which publishes it on gossip. With 0 the
 * epoch runs in Broadcast mode: the leader publishes it on gossip at once.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type LogLine, SimCluster } from '../test/utils/sim-cluster.ts';

const DEVNET_YAML = fileURLToPath(new URL('../deployments/devnet.yaml', import.meta.url));

export interface LatencyRun {
  /** One latency (ms) per (block, other node) pair that applied the block from gossip. */
  readonly latenciesMs: number[];
  /** Blocks produced after the warm-up. */
  readonly produced: number;
  /** Of those, the ones produced within their slot (`late_slots` 0). */
  readonly inSlot: number;
  /** (block, other node) pairs after the warm-up with no `proposal applied` line (synced otherwise, or never). */
  readonly missing: number;
  /** Blocks produced (all slots) that are not on node 0's final chain: forks that lost. */
  readonly orphaned: number;
  /** Blocks produced in all. */
  readonly producedAll: number;
  /** Log lines of level ≥ 40 (warn, error, fatal), by node and message, with their count. */
  readonly problems: Map<string, number>;
}

export interface LatencyOptions {
  readonly coreNodes: number;
  readonly runMs: number;
  readonly warmupSlots: number;
}

const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
const num = (v: unknown) => (typeof v === 'number' ? v : undefined);

/** Runs the devnet for `runMs` and reads the latencies from its logs; every node is killed at the end. */
export async function proposalLatencies(o: LatencyOptions): Promise<LatencyRun> {
  const net = await SimCluster.create({
    nodes: 5,
    coreNodes: o.coreNodes,
    logLevel: 'debug',
    baseDeployment: readFileSync(DEVNET_YAML, 'utf8'),
    insecureTestProofs: false,
  });
  try {
    await net.start(undefined, 120_000);
    await new Promise((r) => setTimeout(r, o.runMs));
    const genesis = await net.genesis();
    const finalChain = new Set(await net.nodes[0]!.chain(genesis));
    for (const n of net.nodes) await n.kill();

    const produced: { node: number; block: string; slot: number; time: number; late: number }[] = [];
    for (const n of net.nodes)
      for (const l of n.lines('block produced')) {
        const block = str(l.block);
        const slot = num(l.slot);
        if (block === undefined || slot === undefined)
          throw new Error('a block produced line without block/slot');
        produced.push({ node: n.index, block, slot, time: l.time, late: num(l.late_slots) ?? 0 });
      }
    const applied = net.nodes.map((n) => {
      const m = new Map<string, number>();
      for (const l of n.lines('proposal applied')) {
        const b = str(l.block);
        if (b !== undefined && !m.has(b)) m.set(b, l.time);
      }
      return m;
    });
    const measured = produced.filter((p) => p.slot >= o.warmupSlots);
    const latenciesMs: number[] = [];
    let missing = 0;
    for (const p of measured)
      for (const n of net.nodes) {
        if (n.index === p.node) continue;
        const t = applied[n.index]!.get(p.block);
        if (t === undefined) missing++;
        else latenciesMs.push(t - p.time);
      }
    const problems = new Map<string, number>();
    for (const n of net.nodes)
      for (const l of n.logs as LogLine[])
        if (l.level >= 40) {
          const key = `${n.name} ${l.level} ${l.msg}${typeof l.err === 'string' ? `: ${l.err.slice(0, 160)}` : ''}`;
          problems.set(key, (problems.get(key) ?? 0) + 1);
        }
    return {
      latenciesMs,
      produced: measured.length,
      inSlot: measured.filter((p) => p.late === 0).length,
      missing,
      orphaned: produced.filter((p) => !finalChain.has(p.block)).length,
      producedAll: produced.length,
      problems,
    };
  } finally {
    await net.close();
  }
}

/** The `q`-quantile (0..1) of `values`, nearest rank. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))]!;
}

/** A summary of a run for stderr: counts, forks and the nodes' warnings and errors. */
export function describeRun(label: string, r: LatencyRun): string {
  const lines = [
    `${label}: ${r.produced} blocks after the warm-up (${r.inSlot} within their slot, ${r.produced - r.inSlot} late), ` +
      `${r.latenciesMs.length} (block, node) latencies, ${r.missing} pairs without a gossip application; ` +
      `${r.producedAll} blocks produced in all, ${r.orphaned} not on node-0's final chain`,
  ];
  for (const [k, c] of [...r.problems].sort((a, b) => b[1] - a[1])) lines.push(`  ${c}× ${k}`);
  return lines.join('\n');
}
