/**
 * HTTP API figures, against a real node in its own child process (bench/api-node.ts: a LogosNode on a
 * fresh data directory, fast test deployment, insecure test proofs, API on 127.0.0.1:<ephemeral>), the
 * load generated from this process:
 *
 * - `api.info_*`: GET /cryptarchia/info with autocannon (50 connections, pipelining 1), alternating
 *   3 × 5 s rounds with a bare `node:http` server (bench/api-bare.ts, its own child process) that
 *   answers the same bytes and headers; medians of the rounds.
 * - `api.blocks_range_*`: the blocks_range NDJSON stream over 10,000 stored canonical blocks (fed to the
 *   node's chain service as valid blocks, a quarter of them with transfers), lines per second read by
 *   a client here; compared with reading and serialising the same blocks in the node process without
 *   HTTP (the same store reads and the same line as src/api/streams.ts).
 * - `api.stream_rss_drift_pct`: the node's RSS drift while it produces blocks (~0.4 s apart) to 100
 *   clients of /cryptarchia/events/blocks/stream and 5 of /cryptarchia/lib-stream, over
 *   BENCH_STREAM_MINUTES minutes (default 10) after a warm-up of BENCH_STREAM_WARMUP_S seconds (default
 *   180: V8 grows its young generation to its cap during the first minutes of block production, a
 *   bounded step that is not the steady state the figure is about): median of the last minute's
 *   samples against the first minute's (half the sampling time each when it is under two minutes).
 *
 * Children are killed when this process exits or is interrupted; temporary directories are removed.
 * With BENCH_API_CPU_PROF=<dir> the child processes write V8 CPU profiles (.cpuprofile) into <dir>.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { type IncomingMessage, request } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { childExecArgv } from '@logos-ts/shared/runtime';
import { type Figure, median } from './harness.ts';

// ---------- autocannon (no type declarations of its own) ----------

interface Histogram {
  readonly average: number;
  readonly p50: number;
  readonly p99: number;
  readonly total: number;
}

interface CannonResult {
  readonly duration: number;
  readonly errors: number;
  readonly timeouts: number;
  readonly non2xx: number;
  readonly '2xx': number;
  readonly latency: Histogram;
  readonly requests: Histogram;
}

interface CannonOptions {
  readonly url: string;
  readonly connections: number;
  readonly pipelining: number;
  readonly duration: number;
}

const autocannon = createRequire(import.meta.url)('autocannon') as (
  o: CannonOptions,
) => Promise<CannonResult>;

// ---------- child processes ----------

const ROOT = fileURLToPath(new URL('..', import.meta.url));

type Msg = { type: string; [k: string]: unknown };

/** BENCH_API_CPU_PROF=<dir>: the children write V8 CPU profiles there (to see where the time goes). */
const PROF = process.env.BENCH_API_CPU_PROF
  ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_API_CPU_PROF}`]
  : [];

const children = new Set<ChildProcess>();
const dirs = new Set<string>();
let hooked = false;

function cleanupNow(): void {
  for (const c of children) c.kill('SIGKILL');
  children.clear();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  dirs.clear();
}

function hookExit(): void {
  if (hooked) return;
  hooked = true;
  process.on('exit', cleanupNow);
  for (const [sig, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const) {
    process.once(sig, () => {
      cleanupNow();
      process.exit(code);
    });
  }
}

function tempDir(): string {
  hookExit();
  const d = mkdtempSync(join(tmpdir(), 'logos-bench-api-'));
  dirs.add(d);
  return d;
}

function removeDir(d: string): void {
  rmSync(d, { recursive: true, force: true });
  dirs.delete(d);
}

class Child {
  private readonly proc: ChildProcess;
  private readonly exited: Promise<number | null>;
  private waiters: { type: string; resolve(m: Msg): void; reject(e: Error): void }[] = [];

  constructor(script: string, args: readonly string[]) {
    hookExit();
    this.proc = spawn(
      process.execPath,
      [...PROF, ...childExecArgv(), `bench/${script}`, ...args],
      // The child's stdout and stderr go to our stderr: stdout carries only the `bench` lines.
      { cwd: ROOT, stdio: ['ignore', 2, 2, 'ipc'] },
    );
    children.add(this.proc);
    this.exited = new Promise((resolve) => {
      this.proc.once('exit', (code) => {
        children.delete(this.proc);
        const err = new Error(`${script} exited (${code}) while a reply was awaited`);
        for (const w of this.waiters) w.reject(err);
        this.waiters = [];
        resolve(code);
      });
    });
    this.proc.on('error', (e) => {
      for (const w of this.waiters) w.reject(e);
      this.waiters = [];
    });
    this.proc.on('message', (m: Msg) => {
      if (m.type === 'error') {
        const err = new Error(`${script}: ${String(m.message)}`);
        for (const w of this.waiters) w.reject(err);
        this.waiters = [];
        return;
      }
      const i = this.waiters.findIndex((w) => w.type === m.type);
      if (i >= 0) this.waiters.splice(i, 1)[0]!.resolve(m);
    });
  }

  get pid(): number {
    return this.proc.pid!;
  }

  /** The next message of `type` (sending `msg` first, if given). */
  next(type: string, timeoutMs: number, msg?: Msg): Promise<Msg> {
    return new Promise<Msg>((resolve, reject) => {
      if (this.proc.exitCode !== null || this.proc.signalCode !== null) {
        reject(new Error('the child process has exited'));
        return;
      }
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(new Error(`no ${type} reply within ${timeoutMs} ms`));
      }, timeoutMs);
      const waiter = {
        type,
        resolve: (m: Msg) => {
          clearTimeout(timer);
          resolve(m);
        },
        reject: (e: Error) => {
          clearTimeout(timer);
          reject(e);
        },
      };
      this.waiters.push(waiter);
      if (msg) this.proc.send(msg);
    });
  }

  send(msg: Msg): void {
    this.proc.send(msg);
  }

  /** Asks the child to stop; kills it if it has not exited within 15 s. */
  async stop(): Promise<void> {
    if (this.proc.pid === undefined || this.proc.exitCode !== null || this.proc.signalCode !== null) return;
    if (this.proc.connected) this.proc.send({ type: 'stop' });
    else this.proc.kill('SIGTERM');
    const timer = setTimeout(() => this.proc.kill('SIGKILL'), 15_000);
    await this.exited;
    clearTimeout(timer);
  }
}

/** Starts a node child and waits for it to be ready; the directory and the child are cleaned up by `use`. */
async function withNode<T>(
  args: readonly string[],
  readyMs: number,
  use: (node: Child, ready: Msg, dir: string) => Promise<T>,
): Promise<T> {
  const dir = tempDir();
  const node = new Child('api-node.ts', [args[0]!, dir, ...args.slice(1)]);
  try {
    const ready = await node.next('ready', readyMs);
    return await use(node, ready, dir);
  } finally {
    await node.stop();
    removeDir(dir);
  }
}

// ---------- HTTP helpers ----------

function get(url: string): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent: false }, resolve);
    req.on('error', reject);
    req.end();
  });
}

/** Status, headers (as sent) and body of one GET. */
async function fetchRaw(url: string): Promise<{ status: number; headers: [string, string][]; body: Buffer }> {
  const res = await get(url);
  const chunks: Buffer[] = [];
  for await (const c of res) chunks.push(c as Buffer);
  const headers: [string, string][] = [];
  for (let i = 0; i < res.rawHeaders.length; i += 2)
    headers.push([res.rawHeaders[i]!, res.rawHeaders[i + 1]!]);
  return { status: res.statusCode ?? 0, headers, body: Buffer.concat(chunks) };
}

/** Reads a whole NDJSON response, counting its lines; returns lines and seconds from request to end. */
async function readLines(url: string): Promise<{ lines: number; bytes: number; seconds: number }> {
  const t0 = performance.now();
  const res = await get(url);
  if (res.statusCode !== 200) throw new Error(`${url}: HTTP ${res.statusCode}`);
  let lines = 0;
  let bytes = 0;
  for await (const c of res) {
    const b = c as Buffer;
    bytes += b.length;
    let i = b.indexOf(10);
    while (i >= 0) {
      lines++;
      i = b.indexOf(10, i + 1);
    }
  }
  return { lines, bytes, seconds: (performance.now() - t0) / 1000 };
}

const log = (s: string) => process.stderr.write(`api: ${s}\n`);

// ---------- /cryptarchia/info against a bare server ----------

const CANNON = { connections: 50, pipelining: 1 } as const;
const ROUND_S = 5;
const ROUNDS = 3;
const WARMUP_S = 3;

interface InfoRun {
  readonly info: number;
  readonly bare: number;
  readonly p99: number;
}

async function cannon(url: string, duration: number, what: string): Promise<CannonResult> {
  const r = await autocannon({ url, ...CANNON, duration });
  if (r.errors > 0 || r.non2xx > 0)
    log(`${what}: ${r.errors} errors (${r.timeouts} timeouts), ${r.non2xx} non-2xx responses`);
  return r;
}

const reqPerS = (r: CannonResult) => r['2xx'] / r.duration;

let infoRun: Promise<InfoRun> | undefined;

function measureInfo(): Promise<InfoRun> {
  infoRun ??= withNode(['live', '1000'], 60_000, async (_node, ready) => {
    const nodeUrl = `${String(ready.url)}/cryptarchia/info`;
    const sample = await fetchRaw(nodeUrl);
    if (sample.status !== 200) throw new Error(`GET /cryptarchia/info: HTTP ${sample.status}`);
    // The same headers as the node's, less those node:http writes itself.
    const skip = new Set(['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding']);
    const headers: Record<string, string> = {};
    for (const [k, v] of sample.headers) if (!skip.has(k.toLowerCase())) headers[k] = v;
    const bare = new Child('api-bare.ts', []);
    try {
      const bareReady = await bare.next('ready', 30_000, {
        type: 'serve',
        headers,
        body: sample.body.toString('base64'),
      });
      const bareUrl = `${String(bareReady.url)}/cryptarchia/info`;
      const check = await fetchRaw(bareUrl);
      if (!check.body.equals(sample.body)) throw new Error('the bare server answers other bytes');
      log(`info body ${sample.body.length} bytes, headers ${JSON.stringify(headers)}`);
      await cannon(nodeUrl, WARMUP_S, 'node warm-up');
      await cannon(bareUrl, WARMUP_S, 'bare warm-up');
      const infoRates: number[] = [];
      const bareRates: number[] = [];
      const p99s: number[] = [];
      for (let r = 0; r < ROUNDS; r++) {
        const n = await cannon(nodeUrl, ROUND_S, 'node');
        const b = await cannon(bareUrl, ROUND_S, 'bare');
        infoRates.push(reqPerS(n));
        p99s.push(n.latency.p99);
        bareRates.push(reqPerS(b));
        log(
          `round ${r + 1}: node ${Math.round(reqPerS(n))} req/s (p50 ${n.latency.p50} ms, p99 ${n.latency.p99} ms), ` +
            `bare ${Math.round(reqPerS(b))} req/s (p99 ${b.latency.p99} ms)`,
        );
      }
      return { info: median(infoRates), bare: median(bareRates), p99: median(p99s) };
    } finally {
      await bare.stop();
    }
  });
  return infoRun;
}

// ---------- blocks_range over 10,000 blocks ----------

const RANGE_BLOCKS = 10_000;
const RANGE_ROUNDS = 5;

interface RangeRun {
  readonly http: number;
  readonly direct: number;
}

let rangeRun: Promise<RangeRun> | undefined;

function measureRange(): Promise<RangeRun> {
  rangeRun ??= withNode(['range', String(RANGE_BLOCKS)], 180_000, async (node, ready) => {
    const tipSlot = String(ready.tipSlot);
    const expected = Number(ready.height) + 1; // and the genesis block at slot 0
    log(`${ready.height} blocks built and stored in ${(Number(ready.buildMs) / 1000).toFixed(1)} s`);
    const url =
      `${String(ready.url)}/cryptarchia/blocks_range?slot_from=0&slot_to=${tipSlot}` +
      '&order=ascending&server_batch_size=1000';
    const baseline = (rounds: number) =>
      node.next('baseline', 120_000, { type: 'baseline', slotTo: tipSlot, batch: 1000, rounds });
    // Warm-up: one pass each.
    await readLines(url);
    await baseline(1);
    const http: number[] = [];
    const direct: number[] = [];
    for (let r = 0; r < RANGE_ROUNDS; r++) {
      const { lines, bytes, seconds } = await readLines(url);
      if (lines !== expected) throw new Error(`blocks_range streamed ${lines} lines, expected ${expected}`);
      if (r === 0) log(`blocks_range: ${lines} lines, ${(bytes / 2 ** 20).toFixed(1)} MiB`);
      http.push(lines / seconds);
      const rate = ((await baseline(1)).rates as number[])[0]!;
      direct.push(rate);
      log(
        `round ${r + 1}: HTTP ${Math.round(lines / seconds)} blocks/s, without HTTP ${Math.round(rate)} blocks/s`,
      );
    }
    return { http: median(http), direct: median(direct) };
  });
  return rangeRun;
}

// ---------- RSS of a node serving long-lived streams ----------

const STREAM_CLIENTS = 100;
const LIB_CLIENTS = 5;
const STREAM_WARMUP_MS = Number(process.env.BENCH_STREAM_WARMUP_S ?? 180) * 1000;
const SAMPLE_MS = 2_000;

async function measureStreamRss(): Promise<number> {
  const minutes = Number(process.env.BENCH_STREAM_MINUTES ?? 10);
  if (!(minutes > 0)) throw new Error('BENCH_STREAM_MINUTES must be a positive number');
  return withNode(['live', '200'], 60_000, async (node, ready) => {
    const base = String(ready.url);
    let running = true;
    let blockLines = 0;
    let libLines = 0;
    let reconnects = 0;
    const open = new Set<IncomingMessage>();
    const perClient = new Array<number>(STREAM_CLIENTS).fill(0);
    const hold = (path: string, onLines: (n: number) => void) => {
      const req = request(`${base}${path}`, { agent: false }, (res) => {
        open.add(res);
        res.on('data', (b: Buffer) => {
          let n = 0;
          let i = b.indexOf(10);
          while (i >= 0) {
            n++;
            i = b.indexOf(10, i + 1);
          }
          onLines(n);
        });
        const again = () => {
          open.delete(res);
          if (running) {
            reconnects++;
            setTimeout(() => hold(path, onLines), 100);
          }
        };
        res.once('end', again);
        res.once('error', again);
      });
      req.on('error', () => {
        if (running) {
          reconnects++;
          setTimeout(() => hold(path, onLines), 500);
        }
      });
      req.end();
    };
    for (let c = 0; c < STREAM_CLIENTS; c++)
      hold('/cryptarchia/events/blocks/stream', (n) => {
        blockLines += n;
        perClient[c]! += n;
      });
    for (let c = 0; c < LIB_CLIENTS; c++)
      hold('/cryptarchia/lib-stream', (n) => {
        libLines += n;
      });
    try {
      const mem = async () =>
        (await node.next('mem', 10_000, { type: 'mem' })) as Msg & {
          rss: number;
          heapUsed: number;
          rssAnon?: number;
          rssFile?: number;
        };
      await new Promise((r) => setTimeout(r, STREAM_WARMUP_MS));
      const heightAtStart = Number((await mem()).height);
      const linesAtStart = blockLines;
      const totalMs = minutes * 60_000;
      const samples: { t: number; rss: number; heap: number; anon: number; file: number }[] = [];
      const t0 = performance.now();
      for (;;) {
        const t = performance.now() - t0;
        const m = await mem();
        samples.push({
          t,
          rss: m.rss,
          heap: m.heapUsed,
          anon: m.rssAnon ?? Number.NaN,
          file: m.rssFile ?? Number.NaN,
        });
        if (t >= totalMs) break;
        await new Promise((r) => setTimeout(r, Math.min(SAMPLE_MS, totalMs - t)));
      }
      const heightAtEnd = Number((await mem()).height);
      const window = Math.min(60_000, totalMs / 2);
      const first = samples.filter((s) => s.t <= window);
      const last = samples.filter((s) => s.t >= totalMs - window);
      const mb = (x: number) => (x / 2 ** 20).toFixed(1);
      const f = median(first.map((s) => s.rss));
      const l = median(last.map((s) => s.rss));
      log(
        `streams: ${blockLines} block lines (${blockLines - linesAtStart} while sampling; per client ` +
          `${Math.min(...perClient)}..${Math.max(...perClient)}), ${libLines} lib lines, ${reconnects} reconnects, ` +
          `${open.size} streams open at the end; blocks ${heightAtStart} → ${heightAtEnd}`,
      );
      log(
        `rss: ${samples.length} samples over ${minutes} min; first ${first.length} median ${mb(f)} MiB, ` +
          `last ${last.length} median ${mb(l)} MiB; heap used ${mb(first[0]!.heap)} → ${mb(samples[samples.length - 1]!.heap)} MiB`,
      );
      const part = (k: 'anon' | 'file') =>
        `${mb(median(first.map((s) => s[k])))} → ${mb(median(last.map((s) => s[k])))} MiB`;
      log(`rss anonymous ${part('anon')}, file-backed (lmdb map, code) ${part('file')}`);
      if (blockLines === 0) throw new Error('the stream clients read no line');
      return ((l - f) / f) * 100;
    } finally {
      running = false;
      for (const res of open) res.destroy();
    }
  });
}

export const figures: Figure[] = [
  {
    name: 'api.info_req_per_s',
    unit: 'req/s',
    measure: async () => (await measureInfo()).info,
  },
  {
    name: 'api.bare_req_per_s',
    unit: 'req/s',
    measure: async () => (await measureInfo()).bare,
  },
  {
    name: 'api.info_ratio_vs_bare',
    unit: 'ratio',
    measure: async (ctx) => (await ctx.value('api.info_req_per_s')) / (await ctx.value('api.bare_req_per_s')),
  },
  {
    name: 'api.info_p99_ms',
    unit: 'ms',
    measure: async () => (await measureInfo()).p99,
  },
  {
    name: 'api.blocks_range_blocks_per_s',
    unit: 'blocks/s',
    measure: async () => (await measureRange()).http,
  },
  {
    name: 'api.blocks_range_ratio',
    unit: 'ratio',
    measure: async (ctx) =>
      (await ctx.value('api.blocks_range_blocks_per_s')) / (await measureRange()).direct,
  },
  {
    name: 'api.stream_rss_drift_pct',
    unit: '%',
    measure: measureStreamRss,
  },
];
