/**
 * Generates the WebAssembly module behind the fast Poseidon2 (BN254, t = 3). Everything is emitted at
 * module load by the small encoder in wasm-encoder.ts; no binary is checked in.
 *
 * ## Number representation
 *
 * A field element is held in Montgomery form x·R mod p with R = 2^261, as 9 limbs of 29 bits
 * (limb j carries weight 2^(29j)), each limb in an i64. The value held is NOT always reduced below p:
 * it is an integer congruent to x·R, kept below a bound that the generator tracks (see "Bounds").
 * "Normalized" means limbs 0..7 are in [0, 2^29) and limb 8 is the rest (value >> 232); a normalized
 * value below R = 2^261 has all 9 limbs in [0, 2^29).
 *
 * ## Montgomery multiplication (emitMontMul), separated operand scanning with lazy carries
 *
 * Inputs a, b: normalized, a, b < R, so every limb is < 2^29.
 * 1. Product columns col_k = Σ_{i+j=k} a_i·b_j, k = 0..16, no carries. Each product < 2^58, at most 9
 *    per column. (Squaring sums (2a_i)·a_j for i < j plus a_i² on the diagonal: the same integer.)
 * 2. For i = 0..8: m = col_i·(-p^-1) mod 2^29; col_i + m·p_0 is then divisible by 2^29, its quotient
 *    carries into col_{i+1}, and m·p_j is added to col_{i+j} for j = 1..8. Every m and p_j is < 2^29.
 *    A column receives at most 9 products a_i·b_j, at most 9 products m·p_j and at most one carry, the
 *    carry being (previous column) / 2^29 < 2^35. So every column stays below
 *    18·(2^29 - 1)^2 + 2^35 < 2^62.2: no i64 overflow, and unsigned shifts are exact.
 * 3. Columns 9..16 hold (a·b + M·p) / R with M = Σ m_i·2^(29i) < R; one carry pass normalizes them
 *    (limb 8 takes what is above bit 232).
 * Result: congruent to a·b·R^-1 and below a·b/R + p (exactly: floor((A·B + (R-1)·p) / R) for bounds
 * A, B). Since R > 169p, operands below αp and βp give a result below (αβ/169 + 1)p: an S-box input
 * below 33p squares to < 7.5p, then to < 1.4p, and x^5 comes out < 1.3p. That slack is what lets the
 * linear layers and the round-constant additions skip reductions.
 *
 * ## Linear layers and the one reduction (emitReduce)
 *
 * Additions are limb-wise (limbs < 5·2^29 before the carry pass) then normalized. In the full rounds
 * every lane passes through the S-box, which brings it back near p, so no reduction is needed. In the
 * partial rounds lanes 1 and 2 never meet the S-box and would grow ~4x per round, so after each
 * internal layer they are reduced: with h = value >> 232 (the normalized top limb) and
 * q = floor(h·MU / 2^48), MU = floor(2^48 / (p_8 + 1)), p_8 = p >> 232, we subtract q·p. Then
 * q ≤ h/(p_8+1) so q·p ≤ value (never negative), and value - q·p < 2^232 + h·2^232/(p_8+1) +
 * (h/2^48 + 1)·p, i.e. p + 2^241 at most for the inputs that occur (< 17.6p). Limbs after the
 * subtraction may be negative (≥ -2^38), so that carry pass uses arithmetic shifts. Lane 0 of the
 * partial rounds is left unreduced: it is 2·(S-box output) + lane 1 + lane 2, below 11p in the
 * first partial round (lanes 1, 2 still < 4.2p from the full rounds) and below 5p after.
 *
 * The bounds that come out (BoundReport, pinned by the tests): converted inputs < 1.007p; the
 * permutation takes lanes < ENTRY_BOUND = 8p and returns lanes < 4.2p (so digest's lane 0 + next
 * input, and a Merkle node, re-enter below 8p); largest multiplication operand < 33p (the first
 * S-box, after the initial linear layer on 8p lanes); largest reduction input < 17.6p (the first
 * partial round); canonical output: the final reduction gives a value <= p, one conditional
 * subtraction of p makes it canonical.
 *
 * ## Bounds are checked by the generator
 *
 * Each emitted operation also updates an upper bound (bigint) of the value it produces, and asserts
 * its preconditions (multiplication inputs < R, the reduction's h·MU < 2^63, the canonical subtraction
 * input < 2p, ...). Loop bodies are generated once and then re-run muted for the remaining iterations
 * so that every iteration's bounds are checked. A violated bound throws at module load, so a change
 * that breaks the reasoning cannot silently produce a wrong module. The entry bound of the
 * permutation (ENTRY_BOUND) is checked against every caller (permute, digest absorption, Merkle path).
 */
import { FR_MODULUS } from '../field.ts';
import { EXTERNAL_CONSTANTS_BEGIN, EXTERNAL_CONSTANTS_END, INTERNAL_CONSTANTS } from './constants.ts';
import { BLOCK_VOID, FunctionBuilder, I32, I64, ModuleBuilder, Op } from './wasm-encoder.ts';

const P = FR_MODULUS;
export const LIMB_BITS = 29;
export const LIMBS = 9;
const MASK = (1 << LIMB_BITS) - 1;
const MASK_N = BigInt(MASK);
/** Montgomery radix R = 2^(29·9) = 2^261. */
export const R = 1n << BigInt(LIMB_BITS * LIMBS);

export function toLimbs(x: bigint): number[] {
  const out: number[] = [];
  for (let j = 0; j < LIMBS; j++) out.push(Number((x >> BigInt(LIMB_BITS * j)) & MASK_N));
  return out;
}

const P_LIMBS = toLimbs(P);
/** -p^-1 mod 2^29, by Newton iteration (each step doubles the number of correct low bits). */
const NP = ((): number => {
  const m = 1n << BigInt(LIMB_BITS);
  let inv = P % m; // correct to 3 bits for odd p
  for (let i = 0; i < 6; i++) inv = (inv * (2n - ((P * inv) % m))) % m;
  inv = ((inv % m) + m) % m;
  if ((P * inv) % m !== 1n) throw new Error('wasm-gen: p is not invertible mod 2^29');
  return Number((m - inv) % m);
})();
/** R mod p, R^2 mod p: Montgomery one and the to-Montgomery factor. */
const R_MOD_P = R % P;
const R2_MOD_P = (R * R) % P;

/** Reduction estimate: q = (h·MU) >> SH approximates h / (p_8 + 1) from below. */
const SH = 48;
const P_TOP_PLUS_1 = (P >> 232n) + 1n;
const MU = (1n << BigInt(SH)) / P_TOP_PLUS_1;

/** Bound on any lane entering the permutation (Montgomery value, normalized). Checked at every call. */
export const ENTRY_BOUND = 8n * P;

// Static check of the column-accumulation argument above.
{
  const prod = (1n << BigInt(LIMB_BITS)) - 1n;
  if (18n * prod * prod + (1n << 35n) >= 1n << 63n) throw new Error('wasm-gen: column bound exceeded');
}

/**
 * Pushes local·c (mod 2^64). BN254 has p_0 = 2^28 + 1 and -p^-1 mod 2^29 = 2^28 - 1: those become a
 * shift and an add/sub, which saves 18 of the ~170 multiplications of each Montgomery product.
 */
function mulConst(fb: FunctionBuilder, local: number, c: number): void {
  const k = Math.round(Math.log2(c));
  if (c > 2 && 2 ** k + 1 === c) {
    fb.get(local).i64(k).op(Op.i64Shl).get(local).op(Op.i64Add);
  } else if (c > 2 && 2 ** k - 1 === c) {
    fb.get(local).i64(k).op(Op.i64Shl).get(local).op(Op.i64Sub);
  } else {
    fb.get(local).i64(c).op(Op.i64Mul);
  }
}

/** Memory layout (byte offsets). Lanes are 9 i64 limbs (72 bytes); I/O elements are 4 u64 words. */
export const LAYOUT = {
  /** Permutation state, 3 lanes of Montgomery limbs. */
  state: 0,
  /** Scratch lane (a converted input). */
  tmp: 256,
  /** Current Merkle node. */
  node: 384,
  /** Montgomery form of 1 (R mod p). */
  one: 512,
  /** Test-only operands and result of the exported arithmetic kernels. */
  testA: 640,
  testB: 768,
  testOut: 896,
  /** Round constants in Montgomery form, in round order (3 per full round, 1 per partial round). */
  constants: 1024,
  /** I/O area: field elements as 4 little-endian u64 words (32 bytes), up to the end of memory. */
  io: 8192,
} as const;
const LANE = LIMBS * 8;
const CONST_FULL_STRIDE = 3 * LANE;

/** Upper bound of the output of a Montgomery product of values bounded by a and b. */
export function montBound(a: bigint, b: bigint): bigint {
  return (a * b + (R - 1n) * P) / R;
}

/** Upper bound of the output of emitReduce for an input bounded by v (see header comment). */
export function reduceBound(v: bigint): bigint {
  const h = v >> 232n;
  const ceilDiv = (x: bigint, y: bigint): bigint => (x + y - 1n) / y;
  return (1n << 232n) + ceilDiv(h << 232n, P_TOP_PLUS_1) + P + ceilDiv(h * P, 1n << BigInt(SH));
}

/** Largest input emitReduce accepts (h·MU must stay below 2^63). */
export const REDUCE_INPUT_LIMIT = (((1n << 63n) / MU) << 232n) - 1n;

/** Bounds observed while generating, for tests and documentation. */
export interface BoundReport {
  /** Largest bound of any multiplication operand (fromMont's reduction aside, which takes any < R). */
  maxMulInput: bigint;
  /** Largest bound of any reduction input. */
  maxReduceInput: bigint;
  /** Largest bound of any value passed to the canonical subtraction (must be < 2p). */
  maxCanonicalInput: bigint;
  /** Bound of a freshly converted input (toMont). */
  converted: bigint;
  /** Bounds of the permutation's output lanes. */
  permOutput: bigint[];
}

class Fe {
  constructor(
    readonly limbs: number[],
    public max: bigint,
  ) {}
}

function check(cond: boolean, what: string): void {
  if (!cond) throw new Error(`wasm-gen: bound violated: ${what}`);
}

/** Per-function scratch locals shared by the arithmetic emitters. */
class Scratch {
  readonly cols: number[];
  readonly dbl: number[];
  readonly m: number;
  constructor(readonly fb: FunctionBuilder) {
    this.cols = fb.locals64(2 * LIMBS - 1);
    this.dbl = fb.locals64(LIMBS - 1);
    this.m = fb.local(I64);
  }
}

class Gen {
  readonly report: BoundReport = {
    maxMulInput: 0n,
    maxReduceInput: 0n,
    maxCanonicalInput: 0n,
    converted: 0n,
    permOutput: [],
  };

  fe(fb: FunctionBuilder, max = 0n): Fe {
    return new Fe(fb.locals64(LIMBS), max);
  }

  /** Loads 9 limbs from memory at (addr local or 0) + offset. */
  load(fb: FunctionBuilder, dst: Fe, addr: number | null, offset: number): void {
    for (let j = 0; j < LIMBS; j++) {
      if (addr === null) fb.i32(0);
      else fb.get(addr);
      fb.load64(offset + 8 * j).set(dst.limbs[j]!);
    }
  }

  store(fb: FunctionBuilder, src: Fe, addr: number | null, offset: number): void {
    for (let j = 0; j < LIMBS; j++) {
      if (addr === null) fb.i32(0);
      else fb.get(addr);
      fb.get(src.limbs[j]!).store64(offset + 8 * j);
    }
  }

  /** Carry pass: limbs 0..7 into [0, 2^29), the rest into limb 8. Signed uses arithmetic shifts. */
  normalize(fb: FunctionBuilder, v: Fe, signed = false): void {
    if (fb.muted) return;
    const l = v.limbs;
    for (let j = 0; j < LIMBS - 1; j++) {
      fb.get(l[j + 1]!)
        .get(l[j]!)
        .i64(LIMB_BITS)
        .op(signed ? Op.i64ShrS : Op.i64ShrU)
        .op(Op.i64Add)
        .set(l[j + 1]!);
      fb.get(l[j]!).i64(MASK).op(Op.i64And).set(l[j]!);
    }
  }

  /**
   * dst = a·b·R^-1 (mod p), or a²·R^-1 when b is 'square', or a·R^-1 when b is 'reduce'.
   * dst may be the same Fe as a or b (they are only read before dst is written).
   */
  montMul(s: Scratch, dst: Fe, a: Fe, b: Fe | 'square' | 'reduce'): void {
    const bMax = b === 'reduce' ? 1n : b === 'square' ? a.max : b.max;
    check(a.max < R, 'multiplication input a < R');
    check(bMax < R, 'multiplication input b < R');
    if (b !== 'reduce') {
      if (a.max > this.report.maxMulInput) this.report.maxMulInput = a.max;
      if (bMax > this.report.maxMulInput) this.report.maxMulInput = bMax;
    }
    if (!s.fb.muted) this.emitMontMul(s, dst, a, b);
    dst.max = montBound(a.max, bMax);
  }

  private emitMontMul(s: Scratch, dst: Fe, a: Fe, b: Fe | 'square' | 'reduce'): void {
    const fb = s.fb;
    const { cols, dbl, m } = s;
    const A = a.limbs;
    if (b === 'reduce') {
      for (let k = 0; k < 2 * LIMBS - 1; k++) {
        if (k < LIMBS) fb.get(A[k]!).set(cols[k]!);
        else fb.i64(0).set(cols[k]!);
      }
    } else if (b === 'square') {
      for (let i = 0; i < LIMBS - 1; i++) fb.get(A[i]!).i64(1).op(Op.i64Shl).set(dbl[i]!);
      for (let k = 0; k < 2 * LIMBS - 1; k++) {
        let first = true;
        for (let i = Math.max(0, k - (LIMBS - 1)); 2 * i <= k; i++) {
          const j = k - i;
          if (i === j) fb.get(A[i]!).get(A[i]!);
          else fb.get(dbl[i]!).get(A[j]!);
          fb.op(Op.i64Mul);
          if (!first) fb.op(Op.i64Add);
          first = false;
        }
        fb.set(cols[k]!);
      }
    } else {
      const B = b.limbs;
      for (let k = 0; k < 2 * LIMBS - 1; k++) {
        let first = true;
        for (let i = Math.max(0, k - (LIMBS - 1)); i <= Math.min(k, LIMBS - 1); i++) {
          fb.get(A[i]!)
            .get(B[k - i]!)
            .op(Op.i64Mul);
          if (!first) fb.op(Op.i64Add);
          first = false;
        }
        fb.set(cols[k]!);
      }
    }

    // Montgomery reduction, one 29-bit digit at a time.
    for (let i = 0; i < LIMBS; i++) {
      // m = col_i·NP mod 2^29 (the i64 product wraps, its low 29 bits are exact)
      mulConst(fb, cols[i]!, NP);
      fb.i64(MASK).op(Op.i64And).set(m);
      // col_{i+1} += (col_i + m·p_0) >> 29  +  m·p_1
      fb.get(cols[i + 1]!).get(cols[i]!);
      mulConst(fb, m, P_LIMBS[0]!);
      fb.op(Op.i64Add).i64(LIMB_BITS).op(Op.i64ShrU).op(Op.i64Add);
      mulConst(fb, m, P_LIMBS[1]!);
      fb.op(Op.i64Add).set(cols[i + 1]!);
      for (let j = 2; j < LIMBS; j++) {
        if (P_LIMBS[j] === 0) continue;
        fb.get(cols[i + j]!);
        mulConst(fb, m, P_LIMBS[j]!);
        fb.op(Op.i64Add).set(cols[i + j]!);
      }
    }
    // Columns 9..16 hold the result; carry pass into dst.
    const D = dst.limbs;
    for (let k = LIMBS; k < 2 * LIMBS - 2; k++) {
      fb.get(cols[k + 1]!)
        .get(cols[k]!)
        .i64(LIMB_BITS)
        .op(Op.i64ShrU)
        .op(Op.i64Add)
        .set(cols[k + 1]!);
      fb.get(cols[k]!)
        .i64(MASK)
        .op(Op.i64And)
        .set(D[k - LIMBS]!);
    }
    const top = cols[2 * LIMBS - 2]!;
    fb.get(top)
      .i64(MASK)
      .op(Op.i64And)
      .set(D[LIMBS - 2]!);
    fb.get(top)
      .i64(LIMB_BITS)
      .op(Op.i64ShrU)
      .set(D[LIMBS - 1]!);
  }

  /** dst <- x^5, with x² and x⁴ in `u` (Montgomery: each product carries one R^-1, as it should). */
  sbox(s: Scratch, dst: Fe, x: Fe, u: Fe): void {
    this.montMul(s, u, x, 'square');
    this.montMul(s, u, u, 'square');
    this.montMul(s, dst, u, x);
  }

  /** v <- v - q·p with q = ((v >> 232)·MU) >> 48. Input normalized; output normalized, ≈ < 1.001p. */
  reduce(s: Scratch, v: Fe): void {
    const fb = s.fb;
    const l = v.limbs;
    check(v.max <= REDUCE_INPUT_LIMIT, 'reduction input within h·MU < 2^63');
    if (v.max > this.report.maxReduceInput) this.report.maxReduceInput = v.max;
    const q = s.m;
    if (fb.muted) {
      v.max = reduceBound(v.max);
      return;
    }
    fb.get(l[LIMBS - 1]!)
      .i64(MU)
      .op(Op.i64Mul)
      .i64(SH)
      .op(Op.i64ShrU)
      .set(q);
    for (let j = 0; j < LIMBS; j++) {
      fb.get(l[j]!).get(q).i64(P_LIMBS[j]!).op(Op.i64Mul).op(Op.i64Sub).set(l[j]!);
    }
    this.normalize(fb, v, true);
    v.max = reduceBound(v.max);
  }

  /** v <- v + (constant at cp + offset), normalized. Constants are canonical (< p). */
  addConst(fb: FunctionBuilder, dst: Fe, v: Fe, cp: number, offset: number): void {
    dst.max = v.max + P - 1n;
    if (fb.muted) return;
    for (let j = 0; j < LIMBS; j++) {
      fb.get(v.limbs[j]!)
        .get(cp)
        .load64(offset + 8 * j)
        .op(Op.i64Add)
        .set(dst.limbs[j]!);
    }
    this.normalize(fb, dst);
  }

  /** Limb-wise sum x0 + x1 + x2 into `sum` (not normalized; limbs < 3·2^29). */
  laneSum(fb: FunctionBuilder, x: Fe[], sum: Fe): void {
    sum.max = x[0]!.max + x[1]!.max + x[2]!.max;
    if (fb.muted) return;
    for (let j = 0; j < LIMBS; j++) {
      fb.get(x[0]!.limbs[j]!)
        .get(x[1]!.limbs[j]!)
        .op(Op.i64Add)
        .get(x[2]!.limbs[j]!)
        .op(Op.i64Add)
        .set(sum.limbs[j]!);
    }
  }

  /** External matrix circ(2,1,1): x_i += Σx. Limbs < 4·2^29 before the carry pass. */
  externalLayer(fb: FunctionBuilder, x: Fe[], sum: Fe): void {
    this.laneSum(fb, x, sum);
    for (const lane of x) {
      for (let j = 0; j < LIMBS; j++) {
        fb.get(lane.limbs[j]!).get(sum.limbs[j]!).op(Op.i64Add).set(lane.limbs[j]!);
      }
      this.normalize(fb, lane);
      lane.max += sum.max;
    }
  }

  /** Internal matrix diag(1,1,2)+J: x_i = d_i·x_i + Σx. Limbs < 5·2^29 before the carry pass. */
  internalLayer(s: Scratch, x: Fe[], sum: Fe): void {
    const fb = s.fb;
    this.laneSum(fb, x, sum);
    x.forEach((lane, i) => {
      for (let j = 0; j < LIMBS; j++) {
        fb.get(lane.limbs[j]!);
        if (i === 2) fb.i64(1).op(Op.i64Shl);
        fb.get(sum.limbs[j]!).op(Op.i64Add).set(lane.limbs[j]!);
      }
      this.normalize(fb, lane);
      lane.max = (i === 2 ? 2n : 1n) * lane.max + sum.max;
      if (i > 0) this.reduce(s, lane);
    });
  }

  /** Emits a loop of `n` rounds over the constant pointer; the body is generated once, then re-run muted. */
  rounds(
    fb: FunctionBuilder,
    n: number,
    cp: number,
    cpStart: number,
    stride: number,
    body: () => void,
  ): void {
    fb.op(Op.loop, BLOCK_VOID);
    const wasMuted = fb.muted;
    for (let r = 0; r < n; r++) {
      fb.muted = wasMuted || r > 0;
      body();
    }
    fb.muted = wasMuted;
    fb.get(cp)
      .i32(stride)
      .op(Op.i32Add)
      .tee(cp)
      .i32(cpStart + n * stride)
      .op(Op.i32Ne)
      .op(Op.brIf, 0)
      .op(Op.end);
  }

  /** The permutation on the lanes at LAYOUT.state, each entering below ENTRY_BOUND. */
  perm(fb: FunctionBuilder): void {
    const s = new Scratch(fb);
    const x = [this.fe(fb), this.fe(fb), this.fe(fb)];
    const t = this.fe(fb);
    const u = this.fe(fb);
    const sum = this.fe(fb);
    const cp = fb.local(I32);
    x.forEach((lane, i) => {
      this.load(fb, lane, null, LAYOUT.state + i * LANE);
      lane.max = ENTRY_BOUND - 1n;
      check(lane.max < R, 'entry bound < R');
    });
    this.externalLayer(fb, x, sum);

    const fullRound = (): void => {
      x.forEach((lane, i) => {
        this.addConst(fb, t, lane, cp, i * LANE);
        this.sbox(s, lane, t, u);
      });
      this.externalLayer(fb, x, sum);
    };
    const partialRound = (): void => {
      const lane = x[0]!;
      this.addConst(fb, t, lane, cp, 0);
      this.sbox(s, lane, t, u);
      this.internalLayer(s, x, sum);
    };

    let at: number = LAYOUT.constants;
    fb.i32(at).set(cp);
    this.rounds(fb, EXTERNAL_CONSTANTS_BEGIN.length, cp, at, CONST_FULL_STRIDE, fullRound);
    at += EXTERNAL_CONSTANTS_BEGIN.length * CONST_FULL_STRIDE;
    this.rounds(fb, INTERNAL_CONSTANTS.length, cp, at, LANE, partialRound);
    at += INTERNAL_CONSTANTS.length * LANE;
    this.rounds(fb, EXTERNAL_CONSTANTS_END.length, cp, at, CONST_FULL_STRIDE, fullRound);

    x.forEach((lane, i) => {
      check(lane.max < R, 'permutation output < R');
      this.store(fb, lane, null, LAYOUT.state + i * LANE);
    });
    this.report.permOutput = x.map((lane) => lane.max);
  }

  /** toMont(dst, src): 4 LE u64 words at src (any 256-bit value) -> Montgomery limbs at dst. */
  toMont(fb: FunctionBuilder): void {
    const s = new Scratch(fb);
    const dst = fb.param(0);
    const src = fb.param(1);
    const w = fb.locals64(4);
    for (let k = 0; k < 4; k++)
      fb.get(src)
        .load64(8 * k)
        .set(w[k]!);
    const a = this.fe(fb, (1n << 256n) - 1n);
    for (let j = 0; j < LIMBS; j++) {
      const bit = LIMB_BITS * j;
      const wi = bit >> 6;
      const off = bit & 63;
      fb.get(w[wi]!);
      if (off > 0) fb.i64(off).op(Op.i64ShrU);
      if (off + LIMB_BITS > 64 && wi + 1 < 4) {
        fb.get(w[wi + 1]!)
          .i64(64 - off)
          .op(Op.i64Shl)
          .op(Op.i64Or);
      }
      fb.i64(MASK).op(Op.i64And).set(a.limbs[j]!);
    }
    const r2 = this.fe(fb, R2_MOD_P);
    toLimbs(R2_MOD_P).forEach((v, j) => {
      fb.i64(v).set(r2.limbs[j]!);
    });
    this.montMul(s, a, a, r2);
    this.store(fb, a, dst, 0);
    this.report.converted = a.max;
  }

  /** fromMont(dst, src): Montgomery limbs at src (value < R) -> canonical 4 LE u64 words at dst. */
  fromMont(fb: FunctionBuilder): void {
    const s = new Scratch(fb);
    const dst = fb.param(0);
    const src = fb.param(1);
    const a = this.fe(fb, R - 1n);
    this.load(fb, a, src, 0);
    this.montMul(s, a, a, 'reduce');
    // Canonical: a <= p here (a < R/R + p); subtract p unless that goes negative.
    check(a.max < 2n * P, 'canonical subtraction input < 2p');
    if (a.max > this.report.maxCanonicalInput) this.report.maxCanonicalInput = a.max;
    const d = this.fe(fb);
    for (let j = 0; j < LIMBS; j++) {
      fb.get(a.limbs[j]!).i64(P_LIMBS[j]!).op(Op.i64Sub).set(d.limbs[j]!);
    }
    this.normalize(fb, d, true);
    const neg = fb.local(I32);
    fb.get(d.limbs[LIMBS - 1]!)
      .i64(0)
      .op(Op.i64LtS)
      .set(neg);
    for (let j = 0; j < LIMBS; j++) {
      fb.get(a.limbs[j]!).get(d.limbs[j]!).get(neg).op(Op.select).set(a.limbs[j]!);
    }
    a.max = P - 1n;
    // Pack 29-bit limbs into 64-bit words (shl drops the bits that belong to the next word).
    for (let k = 0; k < 4; k++) {
      fb.get(dst);
      let first = true;
      for (let j = 0; j < LIMBS; j++) {
        const lo = LIMB_BITS * j;
        if (lo + LIMB_BITS <= 64 * k || lo >= 64 * (k + 1)) continue;
        fb.get(a.limbs[j]!);
        if (lo > 64 * k) fb.i64(lo - 64 * k).op(Op.i64Shl);
        else if (lo < 64 * k) fb.i64(64 * k - lo).op(Op.i64ShrU);
        if (!first) fb.op(Op.i64Or);
        first = false;
      }
      fb.store64(8 * k);
    }
  }

  /** addTo(dst, src): lane at dst += lane at src, normalized. Callers check the bounds. */
  addTo(fb: FunctionBuilder): void {
    const dst = fb.param(0);
    const src = fb.param(1);
    const a = this.fe(fb);
    const b = this.fe(fb);
    this.load(fb, a, dst, 0);
    this.load(fb, b, src, 0);
    for (let j = 0; j < LIMBS; j++) {
      fb.get(a.limbs[j]!).get(b.limbs[j]!).op(Op.i64Add).set(a.limbs[j]!);
    }
    this.normalize(fb, a);
    this.store(fb, a, dst, 0);
  }
}

/** Montgomery limbs of the constants, in round order, plus R mod p, as little-endian i64 bytes. */
function limbBytes(values: readonly bigint[]): Uint8Array {
  const out = new Uint8Array(values.length * LANE);
  const view = new DataView(out.buffer);
  values.forEach((v, i) => {
    toLimbs(v).forEach((limb, j) => {
      view.setUint32(i * LANE + 8 * j, limb, true);
    });
  });
  return out;
}

export interface Poseidon2Wasm {
  readonly bytes: Uint8Array;
  readonly bounds: BoundReport;
}

/**
 * Builds the module. Exports: memory; permute(); digest(n); merkle(n, indexPtr); the conversions
 * toMont(dstLane, srcWords) and fromMont(dstWords, srcLane); and the test kernels tmul(), tsqr(),
 * treduce() (operands at LAYOUT.testA/testB, result at LAYOUT.testOut).
 */
export function buildPoseidon2Wasm(): Poseidon2Wasm {
  const g = new Gen();
  const mod = new ModuleBuilder(1);
  const pp = [I32, I32] as const;

  const toMont = new FunctionBuilder(pp, []);
  const fromMont = new FunctionBuilder(pp, []);
  const addTo = new FunctionBuilder(pp, []);
  const perm = new FunctionBuilder([], []);
  const fToMont = mod.addFunction(toMont, 'toMont');
  const fFromMont = mod.addFunction(fromMont, 'fromMont');
  const fAddTo = mod.addFunction(addTo);
  const fPerm = mod.addFunction(perm);
  g.toMont(toMont);
  g.fromMont(fromMont);
  g.addTo(addTo);
  g.perm(perm);
  const L = g.report.converted;
  const O = g.report.permOutput;
  const E = ENTRY_BOUND - 1n;
  const IO = LAYOUT.io;
  const EL = 32;

  // permute(): three elements at io -> permuted elements at io.
  {
    const fb = new FunctionBuilder([], []);
    for (let i = 0; i < 3; i++)
      fb.i32(LAYOUT.state + i * LANE)
        .i32(IO + i * EL)
        .call(fToMont);
    check(L <= E, 'converted input below the entry bound');
    fb.call(fPerm);
    for (let i = 0; i < 3; i++)
      fb.i32(IO + i * EL)
        .i32(LAYOUT.state + i * LANE)
        .call(fFromMont);
    mod.addFunction(fb, 'permute');
  }

  // digest(n): sponge over n elements at io; the result at io[0].
  {
    const fb = new FunctionBuilder([I32], []);
    const n = fb.param(0);
    const k = fb.local(I32);
    for (let j = 0; j < 3 * LIMBS; j++)
      fb.i32(0)
        .i64(0)
        .store64(LAYOUT.state + 8 * j);
    // Lane 0 is at most max(0, O[0]) + L before each permutation; lanes 1, 2 are 0 or O[1], O[2].
    check(O[0]! + L <= E && O[0]! + P - 1n <= E && L <= E, 'digest: absorbed lane 0 below the entry bound');
    check(O[1]! <= E && O[2]! <= E, 'digest: lanes 1, 2 below the entry bound');
    fb.i32(0).set(k);
    fb.op(Op.block, BLOCK_VOID, Op.loop, BLOCK_VOID);
    fb.get(k).get(n).op(Op.i32LtU, Op.i32Eqz, Op.brIf, 1);
    fb.i32(LAYOUT.tmp).get(k).i32(5).op(Op.i32Shl).i32(IO).op(Op.i32Add).call(fToMont);
    fb.i32(LAYOUT.state).i32(LAYOUT.tmp).call(fAddTo);
    fb.call(fPerm);
    fb.get(k).i32(1).op(Op.i32Add).set(k);
    fb.op(Op.br, 0, Op.end, Op.end);
    fb.i32(LAYOUT.state).i32(LAYOUT.one).call(fAddTo).call(fPerm);
    fb.i32(IO).i32(LAYOUT.state).call(fFromMont);
    mod.addFunction(fb, 'digest');
  }

  // merkle(n, indexPtr): leaf at io[0], siblings at io[1..n], index bits as u64 words at indexPtr.
  {
    const fb = new FunctionBuilder([I32, I32], []);
    const n = fb.param(0);
    const idx = fb.param(1);
    const k = fb.local(I32);
    const bit = fb.local(I32);
    check(L <= E && O[0]! <= E, 'merkle: node and sibling below the entry bound');
    fb.i32(LAYOUT.node).i32(IO).call(fToMont);
    fb.i32(0).set(k);
    fb.op(Op.block, BLOCK_VOID, Op.loop, BLOCK_VOID);
    fb.get(k).get(n).op(Op.i32LtU, Op.i32Eqz, Op.brIf, 1);
    fb.i32(LAYOUT.tmp)
      .get(k)
      .i32(5)
      .op(Op.i32Shl)
      .i32(IO + EL)
      .op(Op.i32Add)
      .call(fToMont);
    // bit = (index word k>>6 >> (k & 63)) & 1
    fb.get(idx).get(k).i32(6).op(Op.i32ShrU).i32(3).op(Op.i32Shl).op(Op.i32Add).load64(0);
    fb.get(k).op(Op.i64ExtendI32U).op(Op.i64ShrU).op(Op.i32WrapI64).i32(1).op(Op.i32And).set(bit);
    for (let j = 0; j < LIMBS; j++) {
      // bit = 0: node is the left child: state = [node, sibling, 0]; bit = 1: [sibling, node, 0].
      fb.i32(0)
        .i32(0)
        .load64(LAYOUT.tmp + 8 * j)
        .i32(0)
        .load64(LAYOUT.node + 8 * j)
        .get(bit)
        .op(Op.select);
      fb.store64(LAYOUT.state + 8 * j);
      fb.i32(0)
        .i32(0)
        .load64(LAYOUT.node + 8 * j)
        .i32(0)
        .load64(LAYOUT.tmp + 8 * j)
        .get(bit)
        .op(Op.select);
      fb.store64(LAYOUT.state + LANE + 8 * j);
      fb.i32(0)
        .i64(0)
        .store64(LAYOUT.state + 2 * LANE + 8 * j);
    }
    fb.call(fPerm);
    for (let j = 0; j < LIMBS; j++)
      fb.i32(0)
        .i32(0)
        .load64(LAYOUT.state + 8 * j)
        .store64(LAYOUT.node + 8 * j);
    fb.get(k).i32(1).op(Op.i32Add).set(k);
    fb.op(Op.br, 0, Op.end, Op.end);
    fb.i32(IO).i32(LAYOUT.node).call(fFromMont);
    mod.addFunction(fb, 'merkle');
  }

  // Test kernels: the same emitters on arbitrary operands (normalized limbs, values < R).
  const kernel = (name: string, body: (fb: FunctionBuilder, s: Scratch, a: Fe, b: Fe) => Fe): void => {
    const fb = new FunctionBuilder([], []);
    const s = new Scratch(fb);
    const a = g.fe(fb, R - 1n);
    const b = g.fe(fb, R - 1n);
    g.load(fb, a, null, LAYOUT.testA);
    g.load(fb, b, null, LAYOUT.testB);
    const out = body(fb, s, a, b);
    g.store(fb, out, null, LAYOUT.testOut);
    mod.addFunction(fb, name);
  };
  const saved = { ...g.report };
  kernel('tmul', (_fb, s, a, b) => {
    g.montMul(s, a, a, b);
    return a;
  });
  kernel('tsqr', (_fb, s, a) => {
    g.montMul(s, a, a, 'square');
    return a;
  });
  kernel('treduce', (_fb, s, a) => {
    a.max = REDUCE_INPUT_LIMIT;
    g.reduce(s, a);
    return a;
  });
  Object.assign(g.report, saved); // the kernels' extreme operands are not part of the real bounds

  const constants = [
    ...EXTERNAL_CONSTANTS_BEGIN.flat(),
    ...INTERNAL_CONSTANTS,
    ...EXTERNAL_CONSTANTS_END.flat(),
  ].map((c) => (c * R) % P);
  mod.addData(LAYOUT.constants, limbBytes(constants));
  mod.addData(LAYOUT.one, limbBytes([R_MOD_P]));
  if (LAYOUT.constants + constants.length * LANE > LAYOUT.io) throw new Error('wasm-gen: layout overlap');

  return { bytes: mod.encode(), bounds: g.report };
}
