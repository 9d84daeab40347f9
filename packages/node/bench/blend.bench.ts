/**
 * Blend figures of a core node.
 *
 * Received messages (`blend.msgs*`), with 16 real cover messages of one layer (real proofs of quota
 * of the core branch with the shipped keys, zk/keys/poq; cached, see proven-blend-messages.ts), each
 * processed as the node does it (`EpochProcessor`): its id for de-duplication (decode), the public
 * header (decode, Ed25519 signature, Groth16 proof of quota against the epoch's inputs) and the removal
 * of the layer, by the node the layer is addressed to (decode, key exchange, decryption, proof of
 * selection). The messages repeat, but nothing on this path caches a verification: no de-duplication
 * cache or nullifier set is consulted (those belong to the swarm and the service, and would drop a
 * repeat), and the Groth16 verifier caches only the prepared key.
 * - `blend.msgs_per_s_core`: one message after the other on the main thread, the proofs verified
 *   in-process by `Groth16ProofSystem` (its WebAssembly curve on this thread): one core.
 * - `blend.msgs_per_s_core_pool1`: the proofs verified as a node verifies them, by the verifier pool
 *   (a node runs several worker threads; here one), one message at a time: each proof alone, after
 *   the pool's 1 ms collection window and a hop to the worker thread and back.
 * - `blend.msgs_per_s_core_pool1_batch`: the same pool with 64 messages in flight, which it verifies
 *   as batches of up to 32 proofs (`verifyBatch`); here the main thread (decoding, signatures,
 *   decryption) runs beside the worker, so up to two cores work: `blend.msgs_per_cpu_s_pool1_batch`
 *   is the same run's messages per second of CPU time (main thread and worker together).
 *
 * Needed rate (`blend.msgs_per_s_needed_100`), the model: with the reference deployment
 * (deployments/reference.yaml: F_c = 1 cover message per round, β_c = 1 layer, 1 s rounds) and every
 * one of N = 100 core nodes sending F_c · β_c messages per round, each message flooded to every core
 * node, which verifies it: N · F_c · β_c / round = 100 messages/s. `blend.msgs_core_headroom` is
 * `blend.msgs_per_s_core` over it. The reference's quota formula is lower: `C = rounds_per_epoch · F_c`
 * is the cover messages of all core nodes together in an epoch (F core/src/blend/mod.rs `core_quota`:
 * each node gets `Q_c = ceil(C · β_c / N)`), so the network carries F_c · β_c cover messages a round
 * whatever N, plus the proposals (f · β_c · (1 + R_c) a slot, f = 1/30, R_c = 1):
 * `blend.msgs_per_s_needed_100_by_quota` and `blend.msgs_core_headroom_by_quota`.
 *
 * Proposal latency (`blend.proposal_latency_ms_*`, see blend-latency.ts): the five-node devnet with
 * real proofs for `BENCH_BLEND_RUN_S` seconds (default 180) with nodes 0–3 declared as core nodes, then
 * as long with none (Broadcast mode, the `_broadcast` baseline); p50 and p99 over all (block, other
 * node) pairs after the first 40 slots (`BENCH_BLEND_WARMUP_SLOTS`). `blend.proposal_after_send_ms_*`
 * count from the leader's `proposal sent through Blend` instead of its `block produced`: the mixing
 * and gossip alone, without the leader's wait for its proofs of quota. The runs' block counts, forks
 * and the nodes' warnings and errors go to stderr; `BENCH_BLEND_LOG_DIR` keeps the nodes' logs.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { EpochProcessor } from '../src/blend/processor.ts';
import { parseDeployment } from '../src/ledger/deployment.ts';
import type { ProofSystem } from '../src/ledger/proof-system.ts';
import { SHIPPED_CIRCUITS_DIR } from '../src/zk/circuit-folder.ts';
import { Groth16ProofSystem } from '../src/zk/groth16-system.ts';
import { VerifierPool, withVerifierPool } from '../src/zk/verifier-pool.ts';
import { describeRun, type LatencyRun, proposalLatencies, quantile } from './blend-latency.ts';
import type { Figure } from './harness.ts';
import { median } from './harness.ts';
import { processorOf, provenBlendMessages } from './proven-blend-messages.ts';

const MESSAGES = 16;
const CORE_NODES = 100;
/** Measuring time per round, and rounds (the median is reported). */
const ROUND_MS = 4000;
const ROUNDS = 3;
const IN_FLIGHT = 64;

/** What one core node does with a received message; throws unless it verifies and yields its payload. */
async function receive(p: EpochProcessor, bytes: Uint8Array): Promise<void> {
  if (p.messageId(bytes) === null) throw new Error('the benchmark message does not decode');
  const v = await p.verify(bytes);
  if (v !== 'valid') throw new Error(`the benchmark message is ${v}`);
  const out = await p.unwrap(bytes);
  if (out.kind !== 'payload') throw new Error(`the benchmark message unwrapped to ${out.kind}`);
}

interface Throughput {
  readonly perS: number;
  readonly perCpuS: number;
}

/** Messages per second (median of rounds), `inFlight` at a time, with the processors verifying on `proofs`. */
async function throughput(proofs: ProofSystem, inFlight: number): Promise<Throughput> {
  const msgs = await provenBlendMessages(MESSAGES);
  const procs = new Map<number, EpochProcessor>();
  const items = msgs.map((m) => {
    const p = procs.get(m.recipient) ?? processorOf(m.recipient, proofs);
    procs.set(m.recipient, p);
    return { p, bytes: m.bytes };
  });
  let next = 0;
  const one = () => {
    const it = items[next++ % items.length]!;
    return receive(it.p, it.bytes);
  };
  for (let i = 0; i < items.length; i++) await one(); // warm: keys prepared, code compiled
  const rates: number[] = [];
  const cpuRates: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    let done = 0;
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    while (performance.now() - t0 < ROUND_MS) {
      await Promise.all(Array.from({ length: inFlight }, one));
      done += inFlight;
    }
    const s = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    rates.push(done / s);
    cpuRates.push(done / ((cpu.user + cpu.system) / 1e6));
  }
  return { perS: median(rates), perCpuS: median(cpuRates) };
}

async function withPool<T>(zk: Groth16ProofSystem, f: (proofs: ProofSystem) => Promise<T>): Promise<T> {
  const pool = await VerifierPool.start({ verificationKeys: zk.verificationKeys(), size: 1 });
  try {
    return await f(withVerifierPool(zk, pool));
  } finally {
    await pool.close();
  }
}

async function withZk<T>(f: (zk: Groth16ProofSystem) => Promise<T>): Promise<T> {
  const zk = new Groth16ProofSystem({ circuits: SHIPPED_CIRCUITS_DIR });
  try {
    return await f(zk);
  } finally {
    await zk.close();
  }
}

let batchRun: Promise<Throughput> | undefined;
const pooledBatch = () => {
  batchRun ??= withZk((zk) => withPool(zk, (proofs) => throughput(proofs, IN_FLIGHT)));
  return batchRun;
};

/** The reference deployment's Blend settings and slot. */
function reference() {
  const path = fileURLToPath(new URL('../deployments/reference.yaml', import.meta.url));
  const d = parseDeployment(readFileSync(path, 'utf8'), 'reference');
  const roundsPerS = 1000 / d.slot_duration_ms;
  const f = d.ledger.consensus.active_slot_coeff;
  return { b: d.blend, roundsPerS, f: Number(f.num) / Number(f.den) };
}

let latencyRuns: Promise<{ blend: LatencyRun; broadcast: LatencyRun }> | undefined;
/** Both devnet runs, one after the other (each on the machine alone), measured once per bench run. */
function latencies(): Promise<{ blend: LatencyRun; broadcast: LatencyRun }> {
  latencyRuns ??= (async () => {
    const runMs = Number(process.env.BENCH_BLEND_RUN_S ?? 180) * 1000;
    const warmupSlots = Number(process.env.BENCH_BLEND_WARMUP_SLOTS ?? 40);
    const logDir = process.env.BENCH_BLEND_LOG_DIR;
    const logs = (label: string) => (logDir === undefined ? {} : { logDir, label });
    const blend = await proposalLatencies({ coreNodes: 4, runMs, warmupSlots, ...logs('blend') });
    console.error(describeRun('blend (4 core nodes, 1 edge node)', blend));
    const broadcast = await proposalLatencies({ coreNodes: 0, runMs, warmupSlots, ...logs('broadcast') });
    console.error(describeRun('broadcast (no core node)', broadcast));
    return { blend, broadcast };
  })();
  return latencyRuns;
}

export const figures: Figure[] = [
  {
    name: 'blend.msgs_per_s_core',
    unit: 'msgs/s',
    measure: () => withZk(async (zk) => (await throughput(zk, 1)).perS),
  },
  {
    name: 'blend.msgs_per_s_core_pool1',
    unit: 'msgs/s',
    measure: () => withZk((zk) => withPool(zk, async (proofs) => (await throughput(proofs, 1)).perS)),
  },
  {
    name: 'blend.msgs_per_s_core_pool1_batch',
    unit: 'msgs/s',
    measure: async () => (await pooledBatch()).perS,
  },
  {
    name: 'blend.msgs_per_cpu_s_pool1_batch',
    unit: 'msgs/cpu-s',
    measure: async () => (await pooledBatch()).perCpuS,
  },
  {
    name: 'blend.msgs_per_s_needed_100',
    unit: 'msgs/s',
    measure() {
      const { b, roundsPerS } = reference();
      return CORE_NODES * b.message_frequency_per_round * b.num_blend_layers * roundsPerS;
    },
  },
  {
    name: 'blend.msgs_core_headroom',
    unit: 'x',
    async measure(ctx) {
      return (await ctx.value('blend.msgs_per_s_core')) / (await ctx.value('blend.msgs_per_s_needed_100'));
    },
  },
  {
    name: 'blend.msgs_per_s_needed_100_by_quota',
    unit: 'msgs/s',
    measure() {
      const { b, roundsPerS, f } = reference();
      const cover = b.message_frequency_per_round * b.num_blend_layers;
      const proposals = f * b.num_blend_layers * (1 + b.data_replication_factor);
      return (cover + proposals) * roundsPerS;
    },
  },
  {
    name: 'blend.msgs_core_headroom_by_quota',
    unit: 'x',
    async measure(ctx) {
      return (
        (await ctx.value('blend.msgs_per_s_core')) / (await ctx.value('blend.msgs_per_s_needed_100_by_quota'))
      );
    },
  },
  {
    name: 'blend.proposal_latency_ms_p50',
    unit: 'ms',
    measure: async () => quantile((await latencies()).blend.latenciesMs, 0.5),
  },
  {
    name: 'blend.proposal_latency_ms_p99',
    unit: 'ms',
    measure: async () => quantile((await latencies()).blend.latenciesMs, 0.99),
  },
  {
    name: 'blend.proposal_after_send_ms_p50',
    unit: 'ms',
    measure: async () => quantile((await latencies()).blend.afterSendMs, 0.5),
  },
  {
    name: 'blend.proposal_after_send_ms_p99',
    unit: 'ms',
    measure: async () => quantile((await latencies()).blend.afterSendMs, 0.99),
  },
  {
    name: 'blend.proposal_latency_ms_p50_broadcast',
    unit: 'ms',
    measure: async () => quantile((await latencies()).broadcast.latenciesMs, 0.5),
  },
  {
    name: 'blend.proposal_latency_ms_p99_broadcast',
    unit: 'ms',
    measure: async () => quantile((await latencies()).broadcast.latenciesMs, 0.99),
  },
];
