/**
 * Groth16 proofs on BN254 from snarkjs/circom proving keys and witnesses, as snarkjs makes them
 * (`groth16_prove.js`), so that they verify under the key's verification key whoever made it:
 *   A, B = Σ coef·w over the key's QAP coefficients, C = A∘B (over the domain);
 *   H = A'∘B' − C' on the odd coset (each of A, B, C: inverse FFT, shift, FFT), in normal form;
 *   π_A = α1 + Σ w_i·A_i + r·δ1
 *   π_B = β2 + Σ w_i·B2_i + s·δ2,    B1 = β1 + Σ w_i·B1_i + s·δ1
 *   π_C = Σ w_i·C_i (private signals) + Σ h_j·H_j + s·π_A + r·B1 − r·s·δ1
 * with r, s fresh random scalars. The scalar-field steps and the five MSMs are tasks the runner
 * spreads over its threads; the blinding terms are small MSMs on the coordinating thread.
 */
import { LogosError } from '@logos-ts/shared/errors';
import { FR_MODULUS } from './engine/code.ts';
import { EngineInstance, SharedHeap, unpackLe256 } from './engine/instance.ts';
import { parseWtns, parseZkey, type Wtns } from './files.ts';
import { type LoadedKey, loadKey, type PointSet, placePoints } from './key.ts';
import {
  type CurveName,
  combineWindows,
  msmWindows,
  POINT_BYTES,
  taskHeapBytes,
  windowBits,
  windowsOf,
} from './msm.ts';
import { LocalRunner, type TaskRunner, ThreadHeap } from './runner.ts';
import type { Task } from './tasks.ts';
import { ELEMENT_BYTES, LIMBS } from './wasm/field-code.ts';

export class ProverError extends LogosError {
  constructor(message: string) {
    super('GROTH16_PROVER', message);
  }
}

/** A proof as snarkjs writes it (decimal strings; affine with the projective 1 appended). */
export interface SnarkjsProof {
  readonly pi_a: [string, string, string];
  readonly pi_b: [[string, string], [string, string], [string, string]];
  readonly pi_c: [string, string, string];
  readonly protocol: 'groth16';
  readonly curve: 'bn128';
}

export interface ProveResult {
  readonly proof: SnarkjsProof;
  readonly publicSignals: string[];
}

/**
 * How long the steps of the last proof took, ms: wall time of each phase (the tasks on the threads
 * between the QAP and the blinding), and the thread time of each kind of task (`msm A`, `msm B1`,
 * `msm B2`, `msm C`, `msm H`, `fft`), which threads overlap.
 */
export interface ProofTimings {
  readonly witnessMs: number;
  readonly qapMs: number;
  readonly tasksMs: number;
  readonly finishMs: number;
  readonly totalMs: number;
  readonly busyMs: Readonly<Record<string, number>>;
}

/**
 * MSM tasks per MSM: two, so that threads can share one, each with half of the windows' buckets
 * (more, smaller tasks would leave each with too few buckets to fill batches without meeting one
 * twice).
 */
const TASKS_PER_MSM = 2;

/** Random scalar below r, from the platform's CSPRNG. */
function randomScalar(): bigint {
  const b = new Uint8Array(40);
  crypto.getRandomValues(b);
  let v = 0n;
  for (const x of b) v = (v << 8n) | BigInt(x);
  return v % FR_MODULUS;
}

/** Points placed for MSMs (`Groth16Prover.msmBases`). */
export interface MsmBases {
  readonly curve: CurveName;
  readonly count: number;
  readonly set: PointSet;
  /** Room for the scalars of one MSM. */
  readonly scalars: number;
}

export interface ProverOptions {
  /** Runs the tasks; the coordinating thread alone when absent. */
  readonly runner?: (heap: SharedHeap, module: WebAssembly.Module) => Promise<TaskRunner>;
  /** Threads the shared memory keeps scratch space for (the runner's, plus this one). */
  readonly threads?: number;
}

export class Groth16Prover {
  private readonly keys = new Map<string, LoadedKey>();
  private readonly own: ThreadHeap;
  private readonly cancelFlag: number;
  private busy = false;
  /** Timings of the last proof. */
  lastTimings: ProofTimings | undefined;

  private constructor(
    readonly heap: SharedHeap,
    private readonly e: EngineInstance,
    private readonly runner: TaskRunner,
  ) {
    this.own = new ThreadHeap(heap);
    this.cancelFlag = heap.alloc(64);
  }

  static async start(opts: ProverOptions = {}): Promise<Groth16Prover> {
    const heap = new SharedHeap(opts.threads ?? 1);
    const module = await WebAssembly.compile(heap.code.bytes as Uint8Array<ArrayBuffer>);
    const e = new EngineInstance(heap.memory, module, heap.scratchOf(0));
    const runner = opts.runner ? await opts.runner(heap, module) : new LocalRunner(heap, e);
    return new Groth16Prover(heap, e, runner);
  }

  /** Reads and places a proving key under `name` (replacing one of that name is refused). */
  addKey(
    name: string,
    zkey: Uint8Array,
  ): { nVars: number; nPublic: number; domainSize: number; bytes: number } {
    if (this.keys.has(name)) throw new ProverError(`a key named ${name} is already loaded`);
    const k = loadKey(this.heap, this.e, parseZkey(zkey, `proving key ${name}`), TASKS_PER_MSM);
    this.keys.set(name, k);
    return { nVars: k.nVars, nPublic: k.nPublic, domainSize: k.domainSize, bytes: k.bytes };
  }

  hasKey(name: string): boolean {
    return this.keys.has(name);
  }

  /** Shared memory in use (keys, buffers, thread heaps), bytes. */
  get memoryBytes(): number {
    return this.heap.used;
  }

  /**
   * A proof of key `name` for a witness (a `.wtns` file's bytes). One proof at a time; an aborted
   * `signal` stops the tasks under way and rejects.
   */
  async prove(name: string, wtns: Uint8Array, opts: { signal?: AbortSignal } = {}): Promise<ProveResult> {
    const k = this.keys.get(name);
    if (!k) throw new ProverError(`no proving key named ${name}`);
    if (this.busy) throw new ProverError('a proof is under way');
    const w = parseWtns(wtns, `witness for ${name}`);
    if (w.count !== k.nVars) throw new ProverError(`the witness has ${w.count} values, the key ${k.nVars}`);
    this.busy = true;
    const i32 = () => this.e.i32;
    Atomics.store(i32(), this.cancelFlag >>> 2, 0);
    const onAbort = () => Atomics.store(i32(), this.cancelFlag >>> 2, 1);
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      if (opts.signal?.aborted) throw new ProverError('the proof was no longer needed');
      return await this.run(k, w);
    } finally {
      opts.signal?.removeEventListener('abort', onAbort);
      this.busy = false;
    }
  }

  private async run(k: LoadedKey, w: Wtns): Promise<ProveResult> {
    const e = this.e;
    const t0 = performance.now();
    // The witness, in normal form (the MSMs' scalars) and Montgomery form (the QAP's).
    unpackLe256(w.values, k.nVars, e.u32, k.witness);
    for (let i = 0; i < k.nVars; i++) {
      const at = (k.witness >>> 2) + i * LIMBS;
      if (!this.below(at, FR_MODULUS)) throw new ProverError(`witness value ${i} is not below r`);
    }
    if (e.readLimbs(k.witness) !== 1n) throw new ProverError('witness value 0 is not 1');
    e.u8.copyWithin(k.witnessMont, k.witness, k.witness + k.nVars * ELEMENT_BYTES);
    e.call('fr_batchToMont', k.witnessMont, k.nVars);
    const t1 = performance.now();
    // A, B over the domain, C = A∘B.
    const n = k.domainSize;
    e.u8.fill(0, k.evalA, k.evalA + n * ELEMENT_BYTES);
    e.u8.fill(0, k.evalB, k.evalB + n * ELEMENT_BYTES);
    e.call('fr_buildAB', k.coefficients, k.nCoefficients, k.witnessMont, k.evalA, k.evalB);
    e.call('fr_mulEach', k.evalC, k.evalA, k.evalB, n);
    const t2 = performance.now();
    const coset = (values: number): Task => ({
      kind: 'coset',
      label: 'fft',
      values,
      logDomain: k.logDomain,
      roots: k.roots,
      rootsInv: k.rootsInv,
      shift: k.shift,
      nInv: k.nInv,
    });
    const witnessMsm = (set: PointSet, label: string) => this.msmTasks(set, k.witness, label);
    // The FFT chains first: once the three are done, H's scalars are computed here and its MSM goes
    // to the front of the queue, while the threads go on with the witness MSMs (largest first).
    const cosets = [coset(k.evalA), coset(k.evalB), coset(k.evalC)];
    let cosetsLeft = cosets.length;
    const onDone = (t: Task): Task[] | undefined => {
      if (t.kind !== 'coset' || --cosetsLeft > 0) return undefined;
      // H = A∘B − C on the coset, in normal form: the scalars of the H points.
      e.call('fr_mulEach', k.evalA, k.evalA, k.evalB, n);
      e.call('fr_subEach', k.evalA, k.evalA, k.evalC, n);
      e.call('fr_batchFromMont', k.evalA, n);
      return this.msmTasks(k.h, k.evalA, 'msm H');
    };
    const tasks: Task[] = [
      ...cosets,
      ...witnessMsm(k.b2, 'msm B2'),
      ...witnessMsm(k.a, 'msm A'),
      ...witnessMsm(k.c, 'msm C'),
      ...witnessMsm(k.b1, 'msm B1'),
    ];
    const r = await this.runner.run(tasks, this.cancelFlag, onDone);
    if (!r.finished) throw new ProverError('the proof was no longer needed');
    const t3 = performance.now();
    const result = this.finish(k);
    const t4 = performance.now();
    this.lastTimings = {
      witnessMs: t1 - t0,
      qapMs: t2 - t1,
      tasksMs: t3 - t2,
      finishMs: t4 - t3,
      totalMs: t4 - t0,
      busyMs: r.busyMs,
    };
    return result;
  }

  /** Whether the 9 limbs at u32 index `at` are below `m` (the top limb decides but for a tie). */
  private below(at: number, m: bigint): boolean {
    const u32 = this.e.u32;
    const top = Number(m >> 232n);
    const t = u32[at + LIMBS - 1]!;
    if (t !== top) return t < top;
    let v = 0n;
    for (let i = LIMBS - 1; i >= 0; i--) v = (v << 29n) | BigInt(u32[at + i]!);
    return v < m;
  }

  /** Each task's first window: the MSM's windows cut in `TASKS_PER_MSM` ranges. */
  private ranges(set: PointSet): [number, number][] {
    const count = windowsOf(set.c).count;
    const per = Math.ceil(count / TASKS_PER_MSM);
    const out: [number, number][] = [];
    for (let w0 = 0; w0 < count; w0 += per) out.push([w0, Math.min(count, w0 + per)]);
    return out;
  }

  private msmTasks(set: PointSet, scalars: number, label: string): Task[] {
    const b = POINT_BYTES[set.curve];
    const input = {
      curve: set.curve,
      points: set.points,
      count: set.count,
      scalars,
      indices: set.indices,
      c: set.c,
      shifted: set.shifted,
    };
    return this.ranges(set).map(
      ([w0, w1]): Task => ({
        kind: 'msm',
        label,
        input,
        w0,
        w1,
        out: set.sums + w0 * b.jacobian,
      }),
    );
  }

  /** The MSM's result (Jacobian): its window sums combined, or its tasks' set sums added (shifted). */
  private sum(set: PointSet, out: number): void {
    if (!set.shifted) {
      combineWindows(this.e, set.curve, set.c, set.sums, windowsOf(set.c).count, out);
      return;
    }
    const b = POINT_BYTES[set.curve];
    this.e.u8.fill(0, out, out + b.jacobian);
    for (const [w0] of this.ranges(set))
      for (const k of [0, 1]) this.e.call(`${set.curve}_jacAdd`, out, out, set.sums + (w0 + k) * b.jacobian);
  }

  /** Σ k_i·P_i over a few affine points, on this thread, into `out` (Jacobian). */
  private small(curve: CurveName, points: readonly number[], scalars: readonly bigint[], out: number): void {
    const b = POINT_BYTES[curve];
    const n = points.length;
    const c = windowBits(n);
    const win = windowsOf(c);
    // The points, scalars and sums sit after the MSM heap in one region of this thread.
    const heapBytes = taskHeapBytes(curve, c, 0, win.count);
    const base = this.own.fit(heapBytes + n * (b.affine + ELEMENT_BYTES) + win.count * b.jacobian);
    const at = base + heapBytes;
    const sc = at + n * b.affine;
    const sums = sc + n * ELEMENT_BYTES;
    points.forEach((p, i) => {
      this.e.u8.copyWithin(at + i * b.affine, p, p + b.affine);
      this.e.writeLimbs(sc + i * ELEMENT_BYTES, scalars[i]!);
    });
    msmWindows(this.e, { curve, points: at, count: n, scalars: sc, indices: 0, c }, 0, win.count, base, sums);
    combineWindows(this.e, curve, c, sums, win.count, out);
  }

  private finish(k: LoadedKey): ProveResult {
    const e = this.e;
    const r = randomScalar();
    const s = randomScalar();
    const J2 = POINT_BYTES.g2.jacobian;
    const A2 = POINT_BYTES.g2.affine;
    const area = this.scratchArea(8 * J2 + 8 * A2);
    const jac = (i: number) => area + i * J2;
    const aff = (i: number) => area + 8 * J2 + i * A2;
    const add1 = (o: number, p: number, q: number) => e.call('g1_jacAdd', o, p, q);
    const add2 = (o: number, p: number, q: number) => e.call('g2_jacAdd', o, p, q);
    // π_A = Σ w·A + α1 + r·δ1
    this.sum(k.a, jac(0));
    this.small('g1', [k.alpha1, k.delta1], [1n, r], jac(1));
    add1(jac(0), jac(0), jac(1));
    // π_B = Σ w·B2 + β2 + s·δ2
    this.sum(k.b2, jac(2));
    this.small('g2', [k.beta2, k.delta2], [1n, s], jac(3));
    add2(jac(2), jac(2), jac(3));
    // B1 = Σ w·B1 + β1 + s·δ1
    this.sum(k.b1, jac(4));
    this.small('g1', [k.beta1, k.delta1], [1n, s], jac(5));
    add1(jac(4), jac(4), jac(5));
    // π_C = Σ w·C + Σ h·H + s·π_A + r·B1 − r·s·δ1
    this.sum(k.c, jac(5));
    this.sum(k.h, jac(6));
    add1(jac(5), jac(5), jac(6));
    e.call('g1_toAffine', aff(0), jac(0));
    e.call('g1_toAffine', aff(1), jac(4));
    this.small(
      'g1',
      [aff(0), aff(1), k.delta1],
      [s, r, (FR_MODULUS - ((r * s) % FR_MODULUS)) % FR_MODULUS],
      jac(6),
    );
    add1(jac(5), jac(5), jac(6));
    e.call('g1_toAffine', aff(2), jac(5));
    e.call('g2_toAffine', aff(3), jac(2));
    const coord = (at: number) => {
      e.call('fq_fromMont', at, at);
      return e.readLimbs(at).toString();
    };
    const g1 = (at: number): [string, string, string] => [coord(at), coord(at + ELEMENT_BYTES), '1'];
    const piA = g1(aff(0));
    const piC = g1(aff(2));
    const b = aff(3);
    const piB: SnarkjsProof['pi_b'] = [
      [coord(b), coord(b + ELEMENT_BYTES)],
      [coord(b + 2 * ELEMENT_BYTES), coord(b + 3 * ELEMENT_BYTES)],
      ['1', '0'],
    ];
    const publicSignals: string[] = [];
    for (let i = 1; i <= k.nPublic; i++)
      publicSignals.push(e.readLimbs(k.witness + i * ELEMENT_BYTES).toString());
    return { proof: { pi_a: piA, pi_b: piB, pi_c: piC, protocol: 'groth16', curve: 'bn128' }, publicSignals };
  }

  private area = 0;
  private areaBytes = 0;
  /** A region of this thread for the last steps' points. */
  private scratchArea(bytes: number): number {
    if (bytes > this.areaBytes) {
      this.area = this.heap.alloc(bytes);
      this.areaBytes = bytes;
    }
    return this.area;
  }

  /**
   * Places points for MSMs (`msm`): as snarkjs files hold them (ffjavascript's Montgomery form, 64 or
   * 128 bytes each, all zero at infinity), read once and kept in the shared memory.
   */
  msmBases(curve: CurveName, points: Uint8Array): MsmBases {
    const size = curve === 'g1' ? 64 : 128;
    const n = points.length / size;
    if (!Number.isInteger(n)) throw new ProverError(`${points.length} bytes are not ${curve} points`);
    const set = placePoints(this.heap, this.e, curve, points, n, 0);
    return { curve, count: n, set, scalars: this.heap.alloc(n * ELEMENT_BYTES) };
  }

  /**
   * One MSM Σ k_i·P_i over placed bases on the runner's threads, scalars 32 bytes little-endian each
   * (below r). Returns the affine result's coordinates in normal form (G2: x.c0, x.c1, y.c0, y.c1),
   * all zero at infinity.
   */
  async msm(bases: MsmBases, scalars: Uint8Array): Promise<bigint[]> {
    const n = bases.count;
    if (scalars.length !== n * 32)
      throw new ProverError(`${scalars.length} bytes of scalars for ${n} points`);
    if (this.busy) throw new ProverError('a proof is under way');
    this.busy = true;
    try {
      const { curve, set } = bases;
      const sc = bases.scalars;
      unpackLe256(scalars, n, this.e.u32, sc);
      for (let i = 0; i < n; i++)
        if (!this.below((sc >>> 2) + i * LIMBS, FR_MODULUS))
          throw new ProverError(`scalar ${i} is not below r`);
      Atomics.store(this.e.i32, this.cancelFlag >>> 2, 0);
      const r = await this.runner.run(this.msmTasks(set, sc, `msm ${curve}`), this.cancelFlag);
      if (!r.finished) throw new ProverError('the MSM was cancelled');
      const b = POINT_BYTES[curve];
      const out = this.scratchArea(b.jacobian + b.affine);
      this.sum(set, out);
      const aff = out + b.jacobian;
      this.e.call(`${curve}_toAffine`, aff, out);
      return Array.from({ length: b.affine / ELEMENT_BYTES }, (_, i) => {
        const at = aff + i * ELEMENT_BYTES;
        this.e.call('fq_fromMont', at, at);
        return this.e.readLimbs(at);
      });
    } finally {
      this.busy = false;
    }
  }

  async close(): Promise<void> {
    await this.runner.close();
  }
}
