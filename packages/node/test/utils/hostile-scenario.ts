/**
 * Three honest node processes on loopback (fast test deployment with 1,000-slot epochs, insecure test
 * proofs) with honest transfers submitted all along, first left alone (`baselineMs`), then attacked
 * (`attackMs`) by
 * hostile peers (hostile-peer.ts): junk transactions and forged proposals at node 0, oversized and
 * truncated chain-sync frames and a lying chain-sync server at node 1, connection churn and junk
 * transactions at node 2. Measured for each phase: the chain's growth (blocks a second), the latency
 * of the honest submissions (`POST /wallet/transactions/transfer-funds`, answered once the mempool
 * admitted the transfer), each node's resident memory and event-loop delay (from its `status` lines),
 * and whether every honest transfer was included; and the bans of the hostile identities.
 * Shared by the long sim test and the `hostile.*` benchmark.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseDeployment } from '../../src/ledger/deployment.ts';
import { HostilePeer } from './hostile-peer.ts';
import { type LogLine, SimCluster, type SimNode, until } from './sim-cluster.ts';

export interface PhaseFigures {
  /** Blocks a second on the best chain (node 0's view). */
  readonly growthPerS: number;
  /** Honest submissions and their latencies, ms. */
  readonly submitted: number;
  readonly refused: number;
  readonly admitLatencyP99Ms: number;
  /** Per node: the highest resident memory and event-loop delay p99 of its status lines. */
  readonly rssMb: readonly number[];
  readonly meanRssMb: readonly number[];
  readonly loopDelayP99Ms: readonly number[];
}

export interface HostileFigures {
  readonly baseline: PhaseFigures;
  readonly attacked: PhaseFigures;
  readonly growthRatio: number;
  readonly admitLatencyP99Ms: number;
  readonly rssDeltaMb: number;
  readonly loopDelayP99Ms: number;
  /** Honest transfers submitted, admitted (201), and included by the end. */
  readonly honestTxs: number;
  readonly honestAdmitted: number;
  readonly honestIncluded: number;
  /** Admitted honest transfers not included: origin node, seconds after the attack began, status per node. */
  readonly notIncluded: readonly {
    node: number;
    atS: number;
    hash: string;
    status: string[];
    /** The nodes' log lines naming it. */
    lines: string[];
  }[];
  /** `peer banned` lines per node of peers that are not honest nodes. */
  readonly bansOfAttackers: readonly number[];
  /** Ban lines of honest nodes (by any node). */
  readonly bansOfHonest: number;
  readonly attacks: Record<string, number>;
}

const p99 = (xs: number[]) => {
  if (xs.length === 0) return 0;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(0.99 * s.length) - 1)]!;
};

function statusIn(n: SimNode, from: number, to: number): LogLine[] {
  return n.logs.filter((l) => l.msg === 'status' && l.time >= from && l.time <= to);
}

export async function runHostileScenario(opts: {
  readonly baselineMs: number;
  readonly attackMs: number;
  readonly log?: (line: string) => void;
  /** The nodes' log level (default info). */
  readonly logLevel?: string;
}): Promise<HostileFigures> {
  const log = opts.log ?? (() => {});
  // k = 50: 1,000-slot epochs, longer than the run. At an epoch's change the storage price moves, and
  // an honest transfer priced at the old one (the wallet pays the exact fee) rightly never applies.
  const net = await SimCluster.create({
    nodes: 3,
    k: 50,
    ...(opts.logLevel ? { logLevel: opts.logLevel } : {}),
  });
  const peers: HostilePeer[] = [];
  try {
    const nodes = net.nodes as [SimNode, SimNode, SimNode];
    const names = parseDeployment(readFileSync(join(net.dir, 'net', 'deployment.yaml'), 'utf8')).network;
    const keyOf = (n: SimNode) =>
      /funding_pk: '([0-9a-f]{64})'/.exec(
        readFileSync(join(net.dir, 'net', n.name, 'user_config.yaml'), 'utf8'),
      )![1]!;
    const keys = nodes.map(keyOf);
    await net.start();
    await net.converged({ minHeight: 2 });
    await until(
      'every node follows',
      async () => (await Promise.all(nodes.map((n) => n.info()))).every((i) => i.phase === 'Following'),
      60_000,
    );

    // Honest transfers all along: one every 1.5 s, from each node's wallet in turn to the next node.
    const honest: { at: number; ms: number; status: number; hash?: string; node: SimNode }[] = [];
    const stopHonest = new AbortController();
    const honestLoop = (async () => {
      for (let i = 0; !stopHonest.signal.aborted; i++) {
        const n = nodes[i % 3]!;
        const t0 = Date.now();
        try {
          const r = await n.post<{ hash: string }>('/wallet/transactions/transfer-funds', {
            recipient_public_key: keys[(i + 1) % 3],
            amount: 1 + (i % 7),
            change_public_key: keys[i % 3],
            funding_public_keys: [keys[i % 3]],
          });
          honest.push({ at: t0, ms: Date.now() - t0, status: r.status, hash: r.body?.hash, node: n });
        } catch {
          honest.push({ at: t0, ms: Date.now() - t0, status: 0, node: n });
        }
        await new Promise((r) => setTimeout(r, 1500));
      }
    })();

    const phase = async (ms: number): Promise<{ from: number; to: number; h0: number; h1: number }> => {
      const from = Date.now();
      const h0 = (await nodes[0].info()).height;
      await new Promise((r) => setTimeout(r, ms));
      return { from, to: Date.now(), h0, h1: (await nodes[0].info()).height };
    };
    const figures = (p: { from: number; to: number; h0: number; h1: number }): PhaseFigures => {
      const subs = honest.filter((h) => h.at >= p.from && h.at <= p.to);
      const rss = nodes.map((n) => statusIn(n, p.from, p.to).map((l) => Number(l.rss_mb)));
      return {
        growthPerS: ((p.h1 - p.h0) * 1000) / (p.to - p.from),
        submitted: subs.length,
        refused: subs.filter((h) => h.status !== 201).length,
        admitLatencyP99Ms: p99(subs.map((h) => h.ms)),
        rssMb: rss.map((r) => Math.max(0, ...r)),
        meanRssMb: rss.map((r) => (r.length ? r.reduce((a, b) => a + b, 0) / r.length : 0)),
        loopDelayP99Ms: nodes.map((n) =>
          Math.max(0, ...statusIn(n, p.from, p.to).map((l) => Number(l.loop_delay_p99_ms))),
        ),
      };
    };

    log(`baseline: ${opts.baselineMs} ms`);
    const base = await phase(opts.baselineMs);

    log(`attack: ${opts.attackMs} ms`);
    const stopAttack = new AbortController();
    const target = (i: number) => ({
      peerId: nodes[i]!.peerId,
      p2pAddress: nodes[i]!.p2pAddress,
      api: nodes[i]!.api,
    });
    const a0 = new HostilePeer(names, target(0));
    const a0b = new HostilePeer(names, target(0));
    const a1 = new HostilePeer(names, target(1));
    const a2 = new HostilePeer(names, target(2));
    const a2b = new HostilePeer(names, target(2));
    peers.push(a0, a0b, a1, a2, a2b);
    const sig = stopAttack.signal;
    const attacks = Promise.allSettled([
      a0.junk(100, sig),
      a0b.proposals(4, sig),
      a1.badFrames(500, sig),
      a2.churn(1000, sig),
      a2b.junk(50, sig),
    ]);
    const att = await phase(opts.attackMs);
    stopAttack.abort();
    await attacks;
    stopHonest.abort();
    await honestLoop;

    // Every honest transfer that was admitted is included (given the time of a few blocks).
    const admitted = honest.filter((h) => h.status === 201 && h.hash);
    const included = async () => {
      let n = 0;
      for (const h of admitted) {
        const r = await fetch(`${nodes[0].api}/cryptarchia/transaction/${h.hash}`, {
          signal: AbortSignal.timeout(5000),
        }).catch(() => undefined);
        if (r?.status === 200) {
          n++;
          isIncluded.add(h.hash!);
        }
        await r?.arrayBuffer();
      }
      return n;
    };
    const isIncluded = new Set<string>();
    let honestIncluded = 0;
    await until(
      'the honest transfers included',
      async () => {
        honestIncluded = await included();
        return honestIncluded === admitted.length;
      },
      60_000,
    ).catch(() => {});

    const notIncluded = [];
    for (const h of admitted.filter((x) => !isIncluded.has(x.hash!))) {
      const status = await Promise.all(
        nodes.map((n) =>
          n.post<string[]>('/mantle/status', [h.hash]).then(
            (r) => String(r.body?.[0]),
            () => 'error',
          ),
        ),
      );
      const lines = nodes.flatMap((n) =>
        n.logs
          .filter((l) => JSON.stringify(l).includes(h.hash!))
          .map((l) => `${n.name} ${JSON.stringify(l)}`),
      );
      notIncluded.push({
        node: h.node.index,
        atS: Math.round((h.at - att.from) / 1000),
        hash: h.hash!,
        status,
        lines,
      });
    }
    const honestIds = new Set(nodes.map((n) => n.peerId));
    const banLines = nodes.map((n) => n.logs.filter((l) => l.msg.startsWith('peer banned')));
    const baseline = figures(base);
    const attacked = figures(att);
    const attackCounts: Record<string, number> = {};
    for (const p of peers)
      for (const [k, v] of Object.entries(p.counts)) attackCounts[k] = (attackCounts[k] ?? 0) + v;
    return {
      baseline,
      attacked,
      growthRatio: baseline.growthPerS > 0 ? attacked.growthPerS / baseline.growthPerS : 0,
      admitLatencyP99Ms: attacked.admitLatencyP99Ms,
      rssDeltaMb: Math.max(...attacked.rssMb.map((r, i) => r - baseline.meanRssMb[i]!)),
      loopDelayP99Ms: Math.max(...attacked.loopDelayP99Ms),
      honestTxs: honest.length,
      honestAdmitted: admitted.length,
      honestIncluded,
      notIncluded,
      bansOfAttackers: banLines.map((ls) => ls.filter((l) => !honestIds.has(String(l.peer))).length),
      bansOfHonest: banLines.flat().filter((l) => honestIds.has(String(l.peer))).length,
      attacks: attackCounts,
    };
  } finally {
    await Promise.all(peers.map((p) => p.stop()));
    await net.close();
  }
}
