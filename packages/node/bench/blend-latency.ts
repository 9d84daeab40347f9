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
 *
 * Besides, from the same logs: the time until a node applied the block by any route (its chain's
 * `block applied` line), and for Blend the leader's wait from `block produced` to `proposal sent
 * through Blend` (its proofs of quota), the mixing from there to the exit node's `blended proposal
 * handed to gossip`, and from there to each other node's `proposal applied`.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type LogLine, SimCluster } from '../test/utils/sim-cluster.ts';

const DEVNET_YAML = fileURLToPath(new URL('../deployments/devnet.yaml', import.meta.url));

export interface LatencyRun {
  /** One latency (ms) per (block, other node) pair that applied the block from gossip. */
  readonly latenciesMs: number[];
  /** One latency (ms) per (block, other node) pair applied by any route (see the header). */
  readonly anyRouteMs: number[];
  /** Per block, `block produced` → `proposal sent through Blend` at the leader (ms). */
  readonly leaderWaitMs: number[];
  /** Of those, the proposals whose proofs of quota were ready (`proved_ahead`). */
  readonly provedAhead: number;
  /** Per block, `proposal sent through Blend` → the exit node's `blended proposal handed to gossip` (ms). */
  readonly mixMs: number[];
  /** Per (block, other node), `proposal sent through Blend` at the leader → `proposal applied` (ms). */
  readonly afterSendMs: number[];
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
  /** A folder to write each node's log lines to (`<label>-node-<i>.log`, JSON lines). */
  readonly logDir?: string;
  readonly label?: string;
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
    const finalChain = await net.nodes[0]!.chain(genesis);
    for (const n of net.nodes) await n.kill();
    if (o.logDir !== undefined) {
      mkdirSync(o.logDir, { recursive: true });
      for (const n of net.nodes)
        writeFileSync(
          join(o.logDir, `${o.label ?? 'run'}-${n.name}.log`),
          `${n.logs.map((l) => JSON.stringify(l)).join('\n')}\n${n.other}`,
        );
    }
    return analyseLogs(
      net.nodes.map((n) => n.logs),
      finalChain,
      o.warmupSlots,
    );
  } finally {
    await net.close();
  }
}

/** The figures of a run from each node's log lines (index = node) and node 0's final chain. */
export function analyseLogs(
  logs: readonly (readonly LogLine[])[],
  finalChain: readonly string[],
  warmupSlots: number,
): LatencyRun {
  const lines = (i: number, msg: string) => logs[i]!.filter((l) => l.msg === msg);
  const nodes = logs.map((_, i) => i);
  const produced: {
    node: number;
    block: string;
    slot: number;
    height: number;
    time: number;
    late: number;
  }[] = [];
  for (const i of nodes)
    for (const l of lines(i, 'block produced')) {
      const block = str(l.block);
      const slot = num(l.slot);
      const height = num(l.height);
      if (block === undefined || slot === undefined || height === undefined)
        throw new Error('a block produced line without block, slot or height');
      produced.push({ node: i, block, slot, height, time: l.time, late: num(l.late_slots) ?? 0 });
    }
  const firstTimes = (i: number, msg: string, key: (l: LogLine) => string | undefined) => {
    const m = new Map<string, number>();
    for (const l of lines(i, msg)) {
      const k = key(l);
      if (k !== undefined && !m.has(k)) m.set(k, l.time);
    }
    return m;
  };
  const gossip = nodes.map((i) => firstTimes(i, 'proposal applied', (l) => str(l.block)));
  const anyRoute = nodes.map((i) => firstTimes(i, 'block applied', (l) => str(l.block)));
  const sent = nodes.map((i) => firstTimes(i, 'proposal sent through Blend', (l) => String(num(l.slot))));
  const aheadOf = nodes.map(
    (i) =>
      new Map(
        lines(i, 'proposal sent through Blend').map((l) => [String(num(l.slot)), l.proved_ahead === true]),
      ),
  );
  const exits = new Map<string, number>();
  for (const i of nodes)
    for (const [b, t] of firstTimes(i, 'blended proposal handed to gossip', (l) => str(l.block)))
      exits.set(b, Math.min(t, exits.get(b) ?? t));

  const measured = produced.filter((p) => p.slot >= warmupSlots);
  const latenciesMs: number[] = [];
  const anyRouteMs: number[] = [];
  const leaderWaitMs: number[] = [];
  const mixMs: number[] = [];
  const afterSendMs: number[] = [];
  let missing = 0;
  let provedAhead = 0;
  for (const p of measured) {
    for (const i of nodes) {
      if (i === p.node) continue;
      const t = gossip[i]!.get(p.block);
      if (t === undefined) missing++;
      else latenciesMs.push(t - p.time);
      const a = anyRoute[i]!.get(p.block);
      if (a !== undefined) anyRouteMs.push(a - p.time);
    }
    const s = sent[p.node]!.get(String(p.slot));
    if (s !== undefined)
      for (const i of nodes) {
        const t = i === p.node ? undefined : gossip[i]!.get(p.block);
        if (t !== undefined) afterSendMs.push(t - s);
      }
    if (s !== undefined) {
      leaderWaitMs.push(s - p.time);
      if (aheadOf[p.node]!.get(String(p.slot))) provedAhead++;
      const e = exits.get(p.block);
      if (e !== undefined) mixMs.push(e - s);
    }
  }
  const problems = new Map<string, number>();
  for (const i of nodes)
    for (const l of logs[i]!)
      if (l.level >= 40) {
        const key = `node-${i} ${l.level} ${l.msg}${typeof l.err === 'string' ? `: ${l.err.slice(0, 160)}` : ''}`;
        problems.set(key, (problems.get(key) ?? 0) + 1);
      }
  const onChain = new Set(finalChain);
  return {
    latenciesMs,
    anyRouteMs,
    leaderWaitMs,
    provedAhead,
    mixMs,
    afterSendMs,
    produced: measured.length,
    inSlot: measured.filter((p) => p.late === 0).length,
    missing,
    orphaned: produced.filter((p) => !onChain.has(p.block)).length,
    producedAll: produced.length,
    problems,
  };
}

/** The `q`-quantile (0..1) of `values`, nearest rank. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))]!;
}

const pct = (v: readonly number[]) =>
  v.length === 0 ? 'none' : `p50 ${quantile(v, 0.5)} ms, p99 ${quantile(v, 0.99)} ms (${v.length})`;

/** A summary of a run for stderr: counts, forks, the latencies' parts and the nodes' warnings and errors. */
export function describeRun(label: string, r: LatencyRun): string {
  const lines = [
    `${label}: ${r.produced} blocks after the warm-up (${r.inSlot} within their slot, ${r.produced - r.inSlot} late), ` +
      `${r.latenciesMs.length} (block, node) latencies, ${r.missing} pairs without a gossip application; ` +
      `${r.producedAll} blocks produced in all, ${r.orphaned} not on node-0's final chain`,
    `  applied from gossip: ${pct(r.latenciesMs)}`,
    `  applied by any route: ${pct(r.anyRouteMs)}`,
  ];
  if (r.leaderWaitMs.length > 0)
    lines.push(
      `  leader, block produced → sent through Blend: ${pct(r.leaderWaitMs)}, ${r.provedAhead} with proofs made ahead`,
      `  sent through Blend → exit node hands it to gossip: ${pct(r.mixMs)}`,
      `  sent through Blend → applied from gossip by another node: ${pct(r.afterSendMs)}`,
    );
  for (const [k, c] of [...r.problems].sort((a, b) => b[1] - a[1])) lines.push(`  ${c}× ${k}`);
  return lines.join('\n');
}
