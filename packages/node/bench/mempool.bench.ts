/**
 * Mempool figures, with real Groth16 ZkSig proofs of single-transfer transactions (N of them, each
 * spending its own genesis note of a bench deployment: the devnet with N notes of devnet key 0; the
 * proofs are made once and cached in `.bench-cache/`, as a proof takes about a second here; N =
 * BENCH_MEMPOOL_TXS, default 192):
 *
 * - `mempool.verify_bound_tx_per_s`: the ZkSig proofs of the N transactions verified on a verifier pool
 *   of W worker threads (W = available cores, or BENCH_MEMPOOL_WORKERS), all submitted at once; the
 *   median of 3 rounds, measured before and after the admission run (the mean of both). What admission
 *   cannot exceed.
 * - `mempool.add_tx_per_s`: the same N transactions through `POST /mempool/add/tx` of a node started
 *   through the command line (Groth16, `mempool.verifier_threads` = W, not leading so nothing is
 *   included meanwhile), 16 concurrent clients (BENCH_MEMPOOL_CLIENTS); the first of each client warm
 *   the node up, the rest are timed from the first request to the last answer.
 * - `mempool.add_ratio_vs_verify`: add / verify bound of the same run (target ≥ 0.8).
 * - `mempool.verify_cpu_ms_per_tx`, `mempool.add_cpu_ms_per_tx`: CPU time (all threads) per
 *   transaction of the verify bound (the bench process with its verifier threads), and of the
 *   admission run (the node process, from /proc, plus the load generator): where the cores are shared
 *   by everything, the ratio above cannot exceed their quotient.
 * - `mempool.block_build_ms_1024`: choosing a block from 5,000 applicable candidates (the FIFO pool,
 *   transfers of 5,000 notes): the time to select the first 1,024, median of 5.
 * - `mempool.view_new_tip_ms_5000`: the mempool's view computed in full on a new tip with the same
 *   5,000 pending transfers (what a tip change costs when the view cannot be moved: a reorg, an epoch
 *   change, a block with transactions the view lacks, competing spends), median of 5.
 * - `mempool.view_moved_ms_5000`: the same view moved onto a block of 100 of its transactions
 *   (`PendingView.rebase`, what an ordinary new tip costs), median of 5.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringifyJson } from '@logos-ts/shared/json';
import { childExecArgv } from '@logos-ts/shared/runtime';
import { selectTransactions } from '../src/leader/block-builder.ts';
import { Draft } from '../src/ledger/draft.ts';
import { advanceEpoch } from '../src/ledger/epoch.ts';
import { PROOFS_ALREADY_VERIFIED } from '../src/ledger/proof-system.ts';
import { encodeSignedTx, type SignedMantleTx, signedMantleTx, txHash, txHashToFr } from '../src/mantle/tx.ts';
import type { PendingTx } from '../src/mempool/pool.ts';
import { PendingView } from '../src/mempool/view.ts';
import { SHIPPED_CIRCUITS_DIR } from '../src/zk/circuit-folder.ts';
import { Groth16ProofSystem } from '../src/zk/groth16-system.ts';
import { VerifierPool, withVerifierPool } from '../src/zk/verifier-pool.ts';
import { genesisNotes, KEYS, TestChain, transfer } from '../test/mocks/ledger.ts';
import { type Figure, median } from './harness.ts';
import { provenTxs, type Setup } from './proven-transfers.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const N = Number(process.env.BENCH_MEMPOOL_TXS ?? 192);

const W = Number(process.env.BENCH_MEMPOOL_WORKERS ?? availableParallelism());
const CLIENTS = Number(process.env.BENCH_MEMPOOL_CLIENTS ?? 16);
/** Admissions before the timed run (the verify bound warms its curves too). */
const WARMUP = CLIENTS;

/** The devnet deployment with `n` genesis notes of 1e8, all of devnet key 0. */
let proven: Promise<{ s: Setup; txs: SignedMantleTx[] }> | undefined;
const getProven = () => {
  proven ??= provenTxs(N);
  return proven;
};

interface Measured {
  readonly rate: number;
  /** CPU time (all threads) per transaction, ms. */
  readonly cpuMsPerTx: number;
}

/** CPU time (user + system, all threads) of a process so far, ms; from /proc (Linux). */
function processCpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) * 10; // clock ticks of 10 ms (USER_HZ 100)
}

async function verifyBound(): Promise<Measured> {
  const { s, txs } = await getProven();
  const zk = new Groth16ProofSystem({ circuits: SHIPPED_CIRCUITS_DIR });
  const pool = await VerifierPool.start({ verificationKeys: zk.verificationKeys(), size: W });
  const proofs = withVerifierPool(zk, pool);
  try {
    const pk = genesisNotes(s.genesis)[0]!.note.pk;
    const jobs = txs.map((t) => {
      const p = t.ops_proofs[0]!;
      if (p.type !== 'ZkSig') throw new Error('expected a ZkSig proof');
      return { st: { msg: txHashToFr(txHash(t.mantle_tx)), publicKeys: [pk] }, sig: p.signature };
    });
    await Promise.all(jobs.slice(0, W).map((j) => proofs.verifyZkSign(j.st, j.sig))); // warm the curves
    const rates: number[] = [];
    const cpu0 = process.cpuUsage();
    for (let r = 0; r < 3; r++) {
      const t0 = performance.now();
      const ok = await Promise.all(jobs.map((j) => proofs.verifyZkSign(j.st, j.sig)));
      rates.push((txs.length * 1000) / (performance.now() - t0));
      if (ok.some((x) => !x)) throw new Error('a bench proof does not verify');
    }
    const cpu = process.cpuUsage(cpu0);
    return { rate: median(rates), cpuMsPerTx: (cpu.user + cpu.system) / 1000 / (3 * txs.length) };
  } finally {
    await pool.close();
    await zk.close();
  }
}

async function addRate(): Promise<Measured> {
  const { s, txs } = await getProven();
  const dir = mkdtempSync(join(tmpdir(), 'logos-bench-mempool-'));
  writeFileSync(join(dir, 'bench.yaml'), s.yaml);
  writeFileSync(
    join(dir, 'node.yaml'),
    `api: { backend: { listen_address: '127.0.0.1:0' } }\nstate: { base_folder: './state' }\nmempool: { verifier_threads: ${W} }\n`,
    { mode: 0o600 },
  );
  const p = spawn(
    process.execPath,
    [
      ...(process.env.BENCH_MEMPOOL_CPU_PROF
        ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_MEMPOOL_CPU_PROF]
        : []),
      ...childExecArgv(),
      join(ROOT, 'src/main.ts'),
      'start',
      '--config',
      'node.yaml',
      '--deployment',
      'bench.yaml',
      '--log-format',
      'json',
    ],
    { cwd: dir, stdio: ['ignore', 'pipe', 2] },
  );
  const exited = new Promise<void>((r) => p.once('exit', () => r()));
  try {
    const base = await new Promise<string>((resolve, reject) => {
      let buf = '';
      const timer = setTimeout(
        () => reject(new Error(`the bench node did not start: ${buf.slice(-500)}`)),
        60_000,
      );
      p.stdout!.on('data', (d: Buffer) => {
        buf += d.toString();
        const m = /"msg":"chain ready".*?"api":"([^"]+)"|"api":"([^"]+)"[^\n]*"msg":"chain ready"/.exec(buf);
        if (m) {
          clearTimeout(timer);
          resolve(`http://${m[1] ?? m[2]}`);
        }
      });
    });
    for (let i = 0; ; i++) {
      try {
        if ((await fetch(`${base}/mantle/metrics`)).status === 200) break;
      } catch {}
      if (i > 400) throw new Error('the bench node does not answer');
      await new Promise((r) => setTimeout(r, 50));
    }
    const bodies = txs.map((t) => stringifyJson(signedMantleTx.toJson(t)));
    // A light load generator (node:http, kept-alive connections): fetch costs the client more CPU, which
    // it takes from the node on a machine with few cores.
    const agent = new http.Agent({ keepAlive: true, maxSockets: CLIENTS });
    const url = new URL(`${base}/mempool/add/tx`);
    const post = (body: string) =>
      new Promise<void>((resolve, reject) => {
        const req = http.request(
          url,
          { method: 'POST', agent, headers: { 'content-type': 'application/json' } },
          (res) => {
            let text = '';
            res.setEncoding('utf8');
            res.on('data', (d: string) => {
              text += d;
            });
            res.on('end', () =>
              res.statusCode === 200
                ? resolve()
                : reject(new Error(`add/tx answered ${res.statusCode}: ${text}`)),
            );
          },
        );
        req.on('error', reject);
        req.end(body);
      });
    // Warm-up, as the verify bound has: the first WARMUP transactions (one per client) are not timed.
    await Promise.all(bodies.slice(0, WARMUP).map(post));
    let next = WARMUP;
    const nodeCpu0 = processCpuMs(p.pid!);
    const ownCpu0 = process.cpuUsage();
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        while (next < bodies.length) await post(bodies[next++]!);
      }),
    );
    const rate = ((txs.length - WARMUP) * 1000) / (performance.now() - t0);
    const own = process.cpuUsage(ownCpu0);
    const cpuMs = processCpuMs(p.pid!) - nodeCpu0 + (own.user + own.system) / 1000;
    agent.destroy();
    const m = JSON.parse(await (await fetch(`${base}/mantle/metrics`)).text()) as { pending_items: number };
    if (m.pending_items !== txs.length) throw new Error(`${m.pending_items} pending, want ${txs.length}`);
    return { rate, cpuMsPerTx: cpuMs / (txs.length - WARMUP) };
  } finally {
    p.kill('SIGTERM');
    await exited;
    rmSync(dir, { recursive: true, force: true });
  }
}

/** 5,000 applicable transfers on a test chain (a first block splits the 20 devnet genesis notes into 250 each). */
function fiveThousandTransfers(): { c: TestChain; candidates: SignedMantleTx[] } {
  const c = new TestChain();
  const pk = KEYS[0]!.publicKey;
  const splits = genesisNotes(c.genesis).map((n) =>
    transfer(
      c.state,
      [n],
      Array.from({ length: 250 }, () => ({ value: 100_000n, pk })),
    ),
  );
  c.apply(splits.map((x) => x.tx));
  const notes = splits.flatMap((x) => x.outputs.slice(0, 250));
  const candidates = notes.map((n) => transfer(c.state, [n], [{ value: 1n, pk: KEYS[3]!.publicKey }]).tx);
  return { c, candidates };
}

function blockBuildMs(): number {
  const { c, candidates } = fiveThousandTransfers();
  const ctx = { config: c.ctx.config, proofs: PROOFS_ALREADY_VERIFIED };
  const times: number[] = [];
  for (let r = 0; r < 5; r++) {
    const t0 = performance.now();
    const sel = selectTransactions(c.state, ctx, c.state.slot + 1n, candidates);
    times.push(performance.now() - t0);
    if (sel.txs.length !== 1024) throw new Error(`selected ${sel.txs.length}, want 1024`);
  }
  return median(times);
}

/** The 5,000 transfers as pending transactions, with the ledger context to apply them. */
function fiveThousandPending() {
  const { c, candidates } = fiveThousandTransfers();
  const ctx = { config: c.ctx.config, proofs: PROOFS_ALREADY_VERIFIED };
  const items: PendingTx[] = candidates.map((tx) => ({
    hash: txHash(tx.mantle_tx),
    tx,
    size: encodeSignedTx(tx).length,
    insertedAtMs: 0,
  }));
  return { c, candidates, ctx, items };
}

function viewNewTipMs(): number {
  const { c, ctx, items } = fiveThousandPending();
  const slot = c.state.slot + 1n;
  const times: number[] = [];
  for (let r = 0; r < 5; r++) {
    const t0 = performance.now();
    const start = new Draft(c.state); // as the mempool computes it: the tip advanced to the next slot
    advanceEpoch(start, c.ctx.config, slot);
    const { view } = PendingView.compute(r, c.tip, start, slot, items, ctx, () => true);
    times.push(performance.now() - t0);
    if (view.applied.size !== items.length)
      throw new Error(`${view.applied.size} applied, want ${items.length}`);
  }
  return median(times);
}

function viewMovedMs(): number {
  const { c, candidates, ctx, items } = fiveThousandPending();
  const parent = c.state;
  const parentTip = c.tip;
  const block = candidates.slice(0, 100);
  c.apply(block);
  const slot = c.state.slot + 1n;
  const included = items.slice(0, 100);
  const times: number[] = [];
  for (let r = 0; r < 5; r++) {
    const start = new Draft(parent);
    advanceEpoch(start, c.ctx.config, parent.slot + 1n);
    const { view } = PendingView.compute(r, parentTip, start, parent.slot + 1n, items, ctx, () => true);
    const t0 = performance.now();
    const next = new Draft(c.state);
    advanceEpoch(next, c.ctx.config, slot);
    const moved = view.rebase(r + 1, c.tip, next, slot, included);
    times.push(performance.now() - t0);
    if (!moved || view.applied.size !== items.length - 100) throw new Error('the view did not move');
  }
  return median(times);
}

/**
 * The verify bound measured right before and right after the admission run (their mean), so that the
 * ratio compares the two under the same load of the machine.
 */
let paired: Promise<{ verify: Measured; add: Measured }> | undefined;
function pairedRun(): Promise<{ verify: Measured; add: Measured }> {
  paired ??= (async () => {
    const before = await verifyBound();
    const add = await addRate();
    const after = await verifyBound();
    return {
      verify: {
        rate: (before.rate + after.rate) / 2,
        cpuMsPerTx: (before.cpuMsPerTx + after.cpuMsPerTx) / 2,
      },
      add,
    };
  })();
  return paired;
}

export const figures: Figure[] = [
  {
    name: 'mempool.verify_bound_tx_per_s',
    unit: 'tx/s',
    measure: async () => (await pairedRun()).verify.rate,
  },
  { name: 'mempool.add_tx_per_s', unit: 'tx/s', measure: async () => (await pairedRun()).add.rate },
  {
    name: 'mempool.add_ratio_vs_verify',
    unit: 'ratio',
    measure: async () => {
      const r = await pairedRun();
      return r.add.rate / r.verify.rate;
    },
  },
  {
    name: 'mempool.verify_cpu_ms_per_tx',
    unit: 'ms',
    measure: async () => (await pairedRun()).verify.cpuMsPerTx,
  },
  {
    name: 'mempool.add_cpu_ms_per_tx',
    unit: 'ms',
    measure: async () => (await pairedRun()).add.cpuMsPerTx,
  },
  { name: 'mempool.block_build_ms_1024', unit: 'ms', measure: () => blockBuildMs() },
  { name: 'mempool.view_new_tip_ms_5000', unit: 'ms', measure: () => viewNewTipMs() },
  { name: 'mempool.view_moved_ms_5000', unit: 'ms', measure: () => viewMovedMs() },
];
