/**
 * The Groth16 prover figures, with the shipped devnet keys, on warm provers (medians of 5):
 * - `zk.prover_pol_s`, `zk.prover_poq_s`, `zk.prover_zksig_s`: one proof through the node's backend
 *   (this node's prover, `proofs.backend: wasm`), witness included, as the node makes it;
 * - `zk.prover_snarkjs_pol_s`: the same PoL statement through the snarkjs backend, in the same run;
 *   `zk.prover_speedup_vs_snarkjs` = that / `zk.prover_pol_s`;
 * - `zk.msm_g1_2p15_ms` / `zk.msm_g1_2p15_ffjs_ms`, `zk.msm_g2_2p15_ms` / `zk.msm_g2_2p15_ffjs_ms`: one
 *   MSM of 2^15 points (G1: the PoL key's H points; G2: points of a random chain) with random scalars,
 *   ours on every core and ffjavascript's (snarkjs' engine, its own threads), same inputs — and the
 *   two results are checked equal;
 * - `zk.prover_keys_mb`: the prover's shared memory with all four proving keys placed;
 * - `zk.pol_step_*`: one PoL proof step by step, this node's prover (thread time of each MSM and of
 *   the FFTs; wall time of the witness and of the whole) and snarkjs (its stages, timed by its log).
 */
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { parseZkey } from '@logos-ts/groth16/files';
import { NodeRunner } from '@logos-ts/groth16/node/node-runner';
import { Groth16Prover } from '@logos-ts/groth16/prover';
import { WitnessCalculatorBuilder } from 'circom_runtime';
import { FR_MODULUS } from '../src/crypto/field.ts';
import { SHIPPED_CIRCUITS_DIR } from '../src/zk/circuit-folder.ts';
import { Groth16ProofSystem, polCircuitInput } from '../src/zk/groth16-system.ts';
import { validCoreQuotaInputs } from '../test/spec/blend/poq-fixtures.ts';
import { type Figure, medianCallMs } from './harness.ts';
import { polCase } from './zk.bench.ts';

const RUNS = 5;
const systems: Partial<Record<'wasm' | 'snarkjs', Groth16ProofSystem>> = {};
function system(backend: 'wasm' | 'snarkjs'): Groth16ProofSystem {
  systems[backend] ??= new Groth16ProofSystem({ circuits: SHIPPED_CIRCUITS_DIR, backend });
  return systems[backend];
}

async function seconds(fn: () => Promise<unknown>): Promise<number> {
  await fn(); // warm: prover started, key placed, witness generator built
  return (await medianCallMs(fn, RUNS)) / 1000;
}

const keyFile = (dir: string) =>
  new Uint8Array(readFileSync(join(SHIPPED_CIRCUITS_DIR, dir, 'proving_key.zkey')));

/** Random 32-byte little-endian scalars below r. */
function scalars(n: number, seed: number): Uint8Array {
  const out = new Uint8Array(n * 32);
  let s = seed;
  for (let i = 0; i < n; i++) {
    let v = 0n;
    for (let k = 0; k < 16; k++) {
      s = (s * 1103515245 + 12345) & 0x7fffffff;
      v = (v << 16n) | BigInt(s & 0xffff);
    }
    v %= FR_MODULUS;
    for (let b = 0; b < 32; b++) out[i * 32 + b] = Number((v >> BigInt(8 * b)) & 0xffn);
  }
  return out;
}

interface FfjsCurve {
  G1: FfjsGroup;
  G2: FfjsGroup;
  terminate(): Promise<void>;
}
interface FfjsGroup {
  g: unknown;
  F: { n8: number; fromRprLEM(b: Uint8Array, o: number): unknown };
  add(a: unknown, b: unknown): unknown;
  timesScalar(a: unknown, k: Uint8Array): unknown;
  toAffine(a: unknown): unknown;
  toRprLEM(b: Uint8Array, o: number, p: unknown): void;
  toObject(p: unknown): unknown;
  multiExpAffine(bases: Uint8Array, scalars: Uint8Array): Promise<unknown>;
}
const FFJS: string = 'ffjavascript';
let ffjs: FfjsCurve | undefined;
async function ffjsCurve(): Promise<FfjsCurve> {
  ffjs ??= await ((await import(FFJS)) as { buildBn128(): Promise<FfjsCurve> }).buildBn128();
  return ffjs;
}

let ours: Groth16Prover | undefined;
async function ownProver(): Promise<Groth16Prover> {
  const threads = availableParallelism();
  ours ??= await Groth16Prover.start({ threads, runner: (h, m) => NodeRunner.start(h, m, threads) });
  return ours;
}

/** 2^15 bases in ffjavascript's form: the PoL key's H points (G1), a chain P, P + Q, … (G2). */
async function bases(curve: 'g1' | 'g2'): Promise<Uint8Array> {
  if (curve === 'g1') return parseZkey(keyFile('pol')).h.slice();
  const c = await ffjsCurve();
  const n = 1 << 15;
  const out = new Uint8Array(n * 128);
  const k = (v: number) => scalars(1, v);
  let p = c.G2.timesScalar(c.G2.g, k(7));
  const q = c.G2.timesScalar(c.G2.g, k(11));
  for (let i = 0; i < n; i++) {
    c.G2.toRprLEM(out, i * 128, c.G2.toAffine(p));
    p = c.G2.add(p, q);
  }
  return out;
}

/** ms of one MSM of ours and of ffjavascript's on the same inputs (their results compared). */
const msmMs: Partial<Record<string, number>> = {};
async function measureMsm(curve: 'g1' | 'g2'): Promise<void> {
  const pts = await bases(curve);
  const sc = scalars(1 << 15, curve === 'g1' ? 3 : 5);
  const p = await ownProver();
  const c = await ffjsCurve();
  const group = curve === 'g1' ? c.G1 : c.G2;
  const placed = p.msmBases(curve, pts);
  const ourResult = await p.msm(placed, sc);
  const theirs = group.toObject(group.toAffine(await group.multiExpAffine(pts, sc))) as unknown[];
  const flat = (theirs.flat() as bigint[]).slice(0, ourResult.length);
  if (flat.some((x, i) => BigInt(x) !== ourResult[i])) throw new Error(`the ${curve} MSMs differ`);
  msmMs[curve] = await medianCallMs(() => p.msm(placed, sc), RUNS);
  msmMs[`${curve}_ffjs`] = await medianCallMs(() => group.multiExpAffine(pts, sc), RUNS);
}

/** One PoL proof, step by step, with this node's prover in this process and with snarkjs. */
const steps: Record<string, number> = {};
async function measureSteps(): Promise<void> {
  const c = polCase();
  const input = polCircuitInput(c.inputs, c.witness);
  const dir = join(SHIPPED_CIRCUITS_DIR, 'pol');
  const wc = await WitnessCalculatorBuilder(
    new Uint8Array(readFileSync(join(dir, 'witness_generator.wasm'))),
  );
  const p = await ownProver();
  if (!p.hasKey('pol')) p.addKey('pol', keyFile('pol'));
  let wtns = await wc.calculateWTNSBin(input, true);
  await p.prove('pol', wtns);
  const t0 = performance.now();
  wtns = await wc.calculateWTNSBin(input, true);
  steps.own_witness_ms = performance.now() - t0;
  await p.prove('pol', wtns);
  const t = p.lastTimings!;
  steps.own_total_ms = steps.own_witness_ms + t.totalMs;
  for (const [label, ms] of Object.entries(t.busyMs))
    steps[`own_${label.replace(' ', '_').toLowerCase()}_ms`] = ms;
  // snarkjs, timed between the stages it logs.
  const SNARKJS: string = 'snarkjs';
  const snarkjs = (await import(SNARKJS)) as {
    wtns: { calculate(i: unknown, w: unknown, o: { type: 'mem'; data?: Uint8Array }): Promise<void> };
    groth16: { prove(z: unknown, w: unknown, logger: unknown): Promise<unknown> };
  };
  const zkey = { type: 'mem', data: keyFile('pol') };
  const w0 = performance.now();
  const out: { type: 'mem'; data?: Uint8Array } = { type: 'mem' };
  await snarkjs.wtns.calculate(
    input,
    { type: 'mem', data: new Uint8Array(readFileSync(join(dir, 'witness_generator.wasm'))) },
    out,
  );
  steps.snarkjs_witness_ms = performance.now() - w0;
  const marks: [string, number][] = [];
  const logger = {
    debug: (m: string) => marks.push([m, performance.now()]),
    info() {},
    warn() {},
    error() {},
  };
  await snarkjs.groth16.prove(zkey, out.data, logger);
  marks.length = 0;
  const p0 = performance.now();
  await snarkjs.groth16.prove(zkey, out.data, logger);
  const end = performance.now();
  steps.snarkjs_total_ms = steps.snarkjs_witness_ms + (end - p0);
  const stage = (from: RegExp, to: RegExp | null) => {
    const a = marks.find(([m]) => from.test(m))?.[1];
    const b = to === null ? end : marks.find(([m]) => to.test(m))?.[1];
    return a !== undefined && b !== undefined ? b - a : Number.NaN;
  };
  steps.snarkjs_fft_ms = stage(/^Building ABC/, /^Reading A Points/);
  steps.snarkjs_msm_a_ms = stage(/^Reading A Points/, /^Reading B1 Points/);
  steps.snarkjs_msm_b1_ms = stage(/^Reading B1 Points/, /^Reading B2 Points/);
  steps.snarkjs_msm_b2_ms = stage(/^Reading B2 Points/, /^Reading C Points/);
  steps.snarkjs_msm_c_ms = stage(/^Reading C Points/, /^Reading H Points/);
  steps.snarkjs_msm_h_ms = stage(/^Reading H Points/, null);
}

const stepNames = [
  'own_witness_ms',
  'own_fft_ms',
  'own_msm_a_ms',
  'own_msm_b1_ms',
  'own_msm_b2_ms',
  'own_msm_c_ms',
  'own_msm_h_ms',
  'own_total_ms',
  'snarkjs_witness_ms',
  'snarkjs_fft_ms',
  'snarkjs_msm_a_ms',
  'snarkjs_msm_b1_ms',
  'snarkjs_msm_b2_ms',
  'snarkjs_msm_c_ms',
  'snarkjs_msm_h_ms',
  'snarkjs_total_ms',
];

export const figures: Figure[] = [
  {
    name: 'zk.prover_pol_s',
    unit: 's',
    measure: () => {
      const c = polCase();
      return seconds(() => system('wasm').provePol(c.inputs, c.witness));
    },
  },
  {
    name: 'zk.prover_poq_s',
    unit: 's',
    measure: () => {
      const core = validCoreQuotaInputs(new Uint8Array(32).fill(200), 1n);
      return seconds(() => system('wasm').provePoq(core.public, { ...core.witness, key_index: 0n }));
    },
  },
  {
    name: 'zk.prover_zksig_s',
    unit: 's',
    measure: () => seconds(() => system('wasm').proveZkSign(7n, [1n, 2n])),
  },
  {
    name: 'zk.prover_snarkjs_pol_s',
    unit: 's',
    async measure(ctx) {
      await ctx.value('zk.prover_pol_s');
      const c = polCase();
      const s = await seconds(() => system('snarkjs').provePol(c.inputs, c.witness));
      await systems.snarkjs?.close();
      delete systems.snarkjs;
      return s;
    },
  },
  {
    name: 'zk.prover_speedup_vs_snarkjs',
    unit: 'x',
    async measure(ctx) {
      return (await ctx.value('zk.prover_snarkjs_pol_s')) / (await ctx.value('zk.prover_pol_s'));
    },
  },
  ...(['g1', 'g2'] as const).flatMap((curve): Figure[] => [
    {
      name: `zk.msm_${curve}_2p15_ms`,
      unit: 'ms',
      async measure() {
        if (msmMs[curve] === undefined) await measureMsm(curve);
        return msmMs[curve]!;
      },
    },
    {
      name: `zk.msm_${curve}_2p15_ffjs_ms`,
      unit: 'ms',
      async measure(ctx) {
        await ctx.value(`zk.msm_${curve}_2p15_ms`);
        return msmMs[`${curve}_ffjs`]!;
      },
    },
  ]),
  {
    name: 'zk.prover_keys_mb',
    unit: 'MB',
    async measure() {
      const p = await Groth16Prover.start();
      try {
        for (const dir of ['signature', 'pol', 'poc', 'poq']) p.addKey(dir, keyFile(dir));
        return p.memoryBytes / 2 ** 20;
      } finally {
        await p.close();
      }
    },
  },
  ...stepNames.map(
    (name): Figure => ({
      name: `zk.pol_step_${name}`,
      unit: 'ms',
      async measure() {
        if (steps.own_total_ms === undefined) await measureSteps();
        return steps[name] ?? Number.NaN;
      },
    }),
  ),
];
