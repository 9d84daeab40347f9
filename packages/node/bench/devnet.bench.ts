/**
 * A network on this machine: `npm run devnet -- --nodes N` with real proofs (every node a Blend core
 * node, the devnet deployment as shipped), run until every node is Online plus a warm-up, then for
 * `BENCH_DEVNET_S` seconds (default 240), while transfers go out at one per expected block, round
 * robin over the nodes, each paid from the node's payments account (a genesis account of five notes of
 * 1e6 in its wallet, `--genesis-account`), as an operator keeps spending money apart from the stake:
 * a spent staking note leaves the lottery until a later epoch's snapshot ages its change (Cryptarchia's
 * rule), and the wallet spends its largest notes first (F), so transfers from the staking keys would
 * take a note out of the lottery each:
 * - `devnet.growth_ratio`: the canonical height's growth over the run ÷ the lottery's expectation
 *   (seconds · f / slot duration);
 * - `devnet.blocks_in_slot_pct`: of the blocks the nodes made during the run, the share each other node
 *   applied within the block's own slot (a pair of block and other node each);
 * - `devnet.transfers_included_pct`: the transfers sent during the run that are in the chain by its end
 *   plus one minute;
 * - `zk.wasted_proof_s_per_min`: proving seconds spent on proofs dropped under way or made for nothing
 *   (the prover pool's `proof request dropped` lines, module `proofs` at debug), all nodes, per minute.
 * The same four for 5 nodes are `devnet.n5_*`. Each network runs once for its figures (about six
 * minutes). With `BENCH_DEVNET_LOG=<folder>` the nodes' lines of each run are kept there
 * (`devnet-<nodes>.jsonl`, one JSON line each with its node's index), with the run's times
 * (`devnet-<nodes>.json`), for a closer look.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { bytesToHex } from '../src/codec/hex.ts';
import { frToBytes } from '../src/crypto/field.ts';
import { zkPublicKey } from '../src/crypto/zk-keys.ts';
import { readMeta } from '../src/devnet/folder.ts';
import { runDevnet } from '../src/devnet/index.ts';
import { ACCOUNT_KEY_BASE } from '../src/devnet/plan.ts';
import { devnetSecretKey } from '../src/ledger/devnet-keys.ts';
import { loadDeployment } from '../src/node/load.ts';
import type { Figure } from './harness.ts';

const RUN_S = Number(process.env.BENCH_DEVNET_S ?? 240);
const WARMUP_S = 20;
const INCLUSION_WAIT_S = 60;
/** Each node's payments account: notes × value (`--genesis-account <node>:<notes>x<value>`). */
const PAYMENT_NOTES = 5;
const PAYMENT_NOTE_VALUE = 1_000_000n;

interface Line {
  readonly node: number;
  readonly time: number;
  readonly msg: string;
  readonly [k: string]: unknown;
}

interface DevnetFigures {
  growthRatio: number;
  blocksInSlotPct: number;
  transfersIncludedPct: number;
  wastedProofSPerMin: number;
}

/** `BENCH_DEVNET_DEBUG=<module>,…`: more log modules at debug (kept with BENCH_DEVNET_LOG). */
const debugModules = (process.env.BENCH_DEVNET_DEBUG ?? '').split(',').filter((m) => m !== '');

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function getJson<T>(url: string, init?: RequestInit): Promise<{ status: number; body: T }> {
  const r = await fetch(url, { ...init, signal: AbortSignal.timeout(10_000) });
  const text = await r.text();
  return { status: r.status, body: (text ? JSON.parse(text) : null) as T };
}

interface Info {
  readonly cryptarchia_info: { readonly height: number; readonly state: string };
}

async function measure(nodes: number): Promise<DevnetFigures> {
  const dir = mkdtempSync(join(tmpdir(), 'logos-devnet-bench-'));
  const lines: Line[] = [];
  /** The devnet's own lines and anything else that is not a node's JSON line, for a failure's message. */
  const other: string[] = [];
  let partial = '';
  const out = new Writable({
    write(chunk, _enc, done) {
      partial += String(chunk);
      const parts = partial.split('\n');
      partial = parts.pop() ?? '';
      for (const l of parts) {
        const m = /^\[node-(\d+)\] (\{.*\})$/.exec(l);
        if (!m) {
          other.push(l);
          continue;
        }
        try {
          lines.push({ node: Number(m[1]), ...(JSON.parse(m[2]!) as { time: number; msg: string }) });
        } catch {
          // a line that is not JSON: not ours to count
        }
      }
      done();
    },
  });
  const stop = new AbortController();
  const apiBase = 21000 + Math.floor(Math.random() * 400) * 10;
  const running = runDevnet({
    dir,
    nodes,
    apiPortBase: apiBase,
    p2pPortBase: apiBase + 5000,
    reset: true,
    // Node i's account is the i-th: devnet key ACCOUNT_KEY_BASE + i.
    genesisAccounts: Array.from({ length: nodes }, (_, i) => `${i}:${PAYMENT_NOTES}x${PAYMENT_NOTE_VALUE}`),
    pretty: false,
    color: false,
    stopOnExit: false,
    signal: stop.signal,
    out,
  });
  const api = (i: number) => `http://127.0.0.1:${apiBase + i}`;
  try {
    // The folder is written before the nodes start.
    let meta = readMeta(dir);
    for (let waited = 0; meta === undefined && waited < 60_000; waited += 200) {
      await sleep(200);
      meta = readMeta(dir);
    }
    if (!meta) throw new Error('the devnet folder was not written within a minute');
    const deployment = loadDeployment(join(dir, 'deployment.yaml'));
    const slotMs = deployment.slot_duration_ms;
    const f = deployment.ledger.consensus.active_slot_coeff;
    const genesisMs = meta.genesis_time * 1000;
    // Every node Online, the proofs module at debug (its drops), then a warm-up.
    const deadline = Date.now() + 180_000;
    for (let i = 0; i < nodes; i++) {
      for (;;) {
        if (Date.now() > deadline)
          throw new Error(
            `node ${i} did not come online:\n${[
              ...other.slice(-20),
              ...lines.filter((l) => Number(l.level) >= 50).map((l) => JSON.stringify(l)),
            ].join('\n')}`,
          );
        const info = await getJson<Info>(`${api(i)}/cryptarchia/info`).catch(() => undefined);
        if (info?.body.cryptarchia_info.state === 'Online') break;
        await sleep(500);
      }
      await getJson(`${api(i)}/admin/tracing/filter`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          filters: {
            '*': 'info',
            proofs: 'debug',
            ...Object.fromEntries(debugModules.map((m) => [m, 'debug'])),
          },
        }),
      });
    }
    await sleep(WARMUP_S * 1000);
    const startMs = Date.now();
    const h0 = (await getJson<Info>(`${api(0)}/cryptarchia/info`)).body.cryptarchia_info.height;
    // Transfers at one per expected block, round robin over the nodes, each from the node's payments
    // account to the next node's.
    const accountOf = Array.from({ length: nodes }, (_, i) =>
      bytesToHex(frToBytes(zkPublicKey(devnetSecretKey(ACCOUNT_KEY_BASE + i)))),
    );
    const sent: string[] = [];
    let refused = 0;
    const gapMs = (slotMs * Number(f.den)) / Number(f.num);
    let k = 0;
    while (Date.now() - startMs < RUN_S * 1000) {
      const i = k % nodes;
      const from = accountOf[i];
      const to = accountOf[(i + 1) % nodes];
      k++;
      if (from !== undefined && to !== undefined) {
        const r = await getJson<{ hash: string }>(`${api(i)}/wallet/transactions/transfer-funds`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            change_public_key: from,
            funding_public_keys: [from],
            recipient_public_key: to,
            amount: 1,
          }),
        }).catch(() => undefined);
        if (r?.status === 201) sent.push(r.body.hash);
        else refused++;
      }
      await sleep(Math.max(0, startMs + k * gapMs - Date.now()));
    }
    const endMs = Date.now();
    const h1 = (await getJson<Info>(`${api(0)}/cryptarchia/info`)).body.cryptarchia_info.height;
    // Inclusion: by the end plus one minute.
    const included = new Set<string>();
    const until = Date.now() + INCLUSION_WAIT_S * 1000;
    while (included.size < sent.length && Date.now() < until) {
      for (const h of sent) {
        if (included.has(h)) continue;
        const r = await fetch(`${api(0)}/cryptarchia/transaction/${h}`, {
          signal: AbortSignal.timeout(10_000),
        }).catch(() => undefined);
        if (r?.status === 200) included.add(h);
        await r?.arrayBuffer();
      }
      await sleep(2000);
    }
    // Blocks made during the run, applied by each other node within their slot.
    const produced = lines.filter((l) => l.msg === 'block produced' && l.time >= startMs && l.time <= endMs);
    const appliedAt = new Map<string, number>();
    for (const l of lines)
      if (l.msg === 'block applied') appliedAt.set(`${l.node}:${String(l.block)}`, l.time);
    let pairs = 0;
    let inSlot = 0;
    for (const b of produced) {
      const slotEnd = genesisMs + (Number(b.slot) + 1) * slotMs;
      for (let j = 0; j < nodes; j++) {
        if (j === b.node) continue;
        pairs++;
        const t = appliedAt.get(`${j}:${String(b.block)}`);
        if (t !== undefined && t < slotEnd) inSlot++;
      }
    }
    const wastedMs = lines
      .filter((l) => l.msg === 'proof request dropped' && l.time >= startMs && l.time <= endMs)
      .reduce((s, l) => s + Number(l.proved_ms ?? 0), 0);
    const keep = process.env.BENCH_DEVNET_LOG;
    if (keep) {
      mkdirSync(keep, { recursive: true });
      writeFileSync(join(keep, `devnet-${nodes}.jsonl`), lines.map((l) => JSON.stringify(l)).join('\n'));
      const run = { nodes, genesisMs, slotMs, startMs, endMs, sent, included: [...included] };
      writeFileSync(join(keep, `devnet-${nodes}.json`), JSON.stringify(run));
    }
    const seconds = (endMs - startMs) / 1000;
    const expected = (seconds * 1000 * Number(f.num)) / (slotMs * Number(f.den));
    if (refused > 0) console.error(`devnet bench (${nodes} nodes): ${refused} transfers refused at sending`);
    return {
      growthRatio: (h1 - h0) / expected,
      blocksInSlotPct: pairs === 0 ? 0 : (100 * inSlot) / pairs,
      transfersIncludedPct: sent.length === 0 ? 0 : (100 * included.size) / sent.length,
      wastedProofSPerMin: wastedMs / 1000 / (seconds / 60),
    };
  } finally {
    stop.abort();
    await running.catch(() => 1);
    rmSync(dir, { recursive: true, force: true });
  }
}

const runs = new Map<number, Promise<DevnetFigures>>();
function figuresOf(nodes: number): Promise<DevnetFigures> {
  let r = runs.get(nodes);
  if (!r) {
    r = measure(nodes);
    runs.set(nodes, r);
  }
  return r;
}

/** The figures of an n-node network: the 3-node ones as the issue names them, the 5-node ones `devnet.n5_*`. */
const per = (nodes: number, name: (figure: string, zk?: boolean) => string): Figure[] => [
  {
    name: name('growth_ratio'),
    unit: 'ratio',
    measure: async () => (await figuresOf(nodes)).growthRatio,
  },
  {
    name: name('blocks_in_slot_pct'),
    unit: '%',
    measure: async () => (await figuresOf(nodes)).blocksInSlotPct,
  },
  {
    name: name('transfers_included_pct'),
    unit: '%',
    measure: async () => (await figuresOf(nodes)).transfersIncludedPct,
  },
  {
    name: name('wasted_proof_s_per_min', true),
    unit: 's/min',
    measure: async () => (await figuresOf(nodes)).wastedProofSPerMin,
  },
];

export const figures: Figure[] = [
  ...per(3, (f, zk) => (zk ? `zk.${f}` : `devnet.${f}`)),
  ...per(5, (f) => `devnet.n5_${f}`),
];
