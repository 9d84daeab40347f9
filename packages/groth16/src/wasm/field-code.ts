/**
 * Arithmetic modulo a prime below 2^255 (BN254's base field Fq and scalar field Fr), generated as
 * WebAssembly. An element is 9 limbs of 29 bits, each stored as a u32 (36 bytes), in Montgomery form
 * with R = 2^261. With 29-bit limbs a 64-bit accumulator takes 2^6 products before it can overflow,
 * so the Montgomery product (operand scanning, fully unrolled, the modulus as immediates) never
 * propagates a carry inside its loop: only once at the end. R is 2^7 times the modulus, so results
 * need no final subtraction: every stored element is below 2p, and only `reduce` brings one to [0, p)
 * (for comparison and output).
 */
import type { Layout } from './layout.ts';
import type { FunctionBuilder, ModuleBuilder } from './module-builder.ts';

export const LIMBS = 9;
export const LIMB_BITS = 29;
export const LIMB_MASK = (1n << 29n) - 1n;
/** Bytes of one element in memory. */
export const ELEMENT_BYTES = LIMBS * 4;
export const R_BITS = BigInt(LIMBS * LIMB_BITS);

/** The 18 limbs of a value below 2^522 (a product before its reduction). */
export function toWideLimbs(v: bigint): bigint[] {
  return Array.from({ length: 2 * LIMBS }, (_, i) => (v >> BigInt(i * LIMB_BITS)) & LIMB_MASK);
}

/** The limbs of a value below 2^261. */
export function toLimbs(v: bigint): bigint[] {
  return Array.from({ length: LIMBS }, (_, i) => (v >> BigInt(i * LIMB_BITS)) & LIMB_MASK);
}

export function limbBytes(v: bigint): Uint8Array {
  const out = new Uint8Array(ELEMENT_BYTES);
  const dv = new DataView(out.buffer);
  toLimbs(v).forEach((l, i) => {
    dv.setUint32(i * 4, Number(l), true);
  });
  return out;
}

/** b^e mod m. */
export function modPow(b: bigint, e: bigint, m: bigint): bigint {
  let r = 1n;
  let x = b % m;
  for (let k = e; k > 0n; k >>= 1n) {
    if (k & 1n) r = (r * x) % m;
    x = (x * x) % m;
  }
  return r;
}

/** The operations a curve is built from: (out, a, b) pointers, i32; `isZero`/`eq` answer an i32. */
export interface FieldOps {
  readonly name: string;
  readonly bytes: number;
  readonly mul: FunctionBuilder;
  readonly square: FunctionBuilder;
  readonly add: FunctionBuilder;
  readonly sub: FunctionBuilder;
  readonly neg: FunctionBuilder;
  readonly double: FunctionBuilder;
  readonly copy: FunctionBuilder;
  readonly zero: FunctionBuilder;
  readonly one: FunctionBuilder;
  readonly isZero: FunctionBuilder;
  readonly eq: FunctionBuilder;
  readonly inv: FunctionBuilder;
  /** Brings an element to its canonical value in [0, p) (still Montgomery form). */
  readonly reduce: FunctionBuilder;
}

export class MontgomeryField implements FieldOps {
  readonly bytes = ELEMENT_BYTES;
  readonly mul: FunctionBuilder;
  readonly square: FunctionBuilder;
  readonly add: FunctionBuilder;
  readonly sub: FunctionBuilder;
  readonly neg: FunctionBuilder;
  readonly double: FunctionBuilder;
  readonly copy: FunctionBuilder;
  readonly zero: FunctionBuilder;
  readonly one: FunctionBuilder;
  readonly isZero: FunctionBuilder;
  readonly eq: FunctionBuilder;
  readonly inv: FunctionBuilder;
  readonly reduce: FunctionBuilder;
  /** Montgomery form of a normal-form element: `toMont(out, a)`. */
  readonly toMont: FunctionBuilder;
  /** Normal form of a Montgomery element, canonical: `fromMont(out, a)`. */
  readonly fromMont: FunctionBuilder;
  /** Montgomery form of 1 and R² mod p, and 2^266 mod p (from ffjavascript's Montgomery form, R' = 2^256). */
  readonly oneAddress: number;
  readonly r2Address: number;
  readonly fromFfjsAddress: number;
  readonly plainOneAddress: number;
  /** `batchToMont(ptr, n)`, `batchFromMont(ptr, n)`, `batchFromFfjs(ptr, n)`: in place, n elements. */
  readonly batchToMont: FunctionBuilder;
  readonly batchFromMont: FunctionBuilder;
  readonly batchFromFfjs: FunctionBuilder;

  private readonly p: bigint[];
  private readonly twoP: bigint[];
  private readonly mu: bigint;

  constructor(
    m: ModuleBuilder,
    private readonly layout: Layout,
    readonly name: string,
    readonly modulus: bigint,
  ) {
    if (modulus >= 1n << 255n || (modulus & 1n) === 0n) throw new Error('an odd modulus below 2^255');
    this.p = toLimbs(modulus);
    this.twoP = toLimbs(2n * modulus);
    const base = 1n << 29n;
    // mu = -p^-1 mod 2^29
    this.mu = (base - modPow(modulus % base, (1n << 28n) - 1n, base)) % base;
    if ((this.mu * (modulus % base) + 1n) % base !== 0n) throw new Error('no Montgomery constant');
    const R = 1n << R_BITS;
    this.oneAddress = layout.constant(limbBytes(R % modulus));
    this.r2Address = layout.constant(limbBytes((R * R) % modulus));
    this.fromFfjsAddress = layout.constant(limbBytes((1n << 266n) % modulus));
    this.plainOneAddress = layout.constant(limbBytes(1n));
    const n = (s: string) => `${name}_${s}`;
    const ptr3 = ['i32', 'i32', 'i32'] as const;
    this.mul = m.fn(n('mul'), ptr3);
    this.square = m.fn(n('square'), ['i32', 'i32']);
    this.add = m.fn(n('add'), ptr3);
    this.sub = m.fn(n('sub'), ptr3);
    this.neg = m.fn(n('neg'), ['i32', 'i32']);
    this.double = m.fn(n('double'), ['i32', 'i32']);
    this.copy = m.fn(n('copy'), ['i32', 'i32']);
    this.zero = m.fn(n('zero'), ['i32']);
    this.one = m.fn(n('one'), ['i32']);
    this.isZero = m.fn(n('isZero'), ['i32'], ['i32']);
    this.eq = m.fn(n('eq'), ['i32', 'i32'], ['i32']);
    this.inv = m.fn(n('inv'), ['i32', 'i32']);
    this.reduce = m.fn(n('reduce'), ['i32', 'i32']);
    this.toMont = m.fn(n('toMont'), ['i32', 'i32']);
    this.fromMont = m.fn(n('fromMont'), ['i32', 'i32']);
    this.batchToMont = m.fn(n('batchToMont'), ['i32', 'i32']);
    this.batchFromMont = m.fn(n('batchFromMont'), ['i32', 'i32']);
    this.batchFromFfjs = m.fn(n('batchFromFfjs'), ['i32', 'i32']);
    this.writeMul();
    this.writeSquare();
    this.writeAddSub();
    this.writeSmall();
    this.writeInv();
    this.writeConversions();
  }

  private loadLimbs(f: FunctionBuilder, ptr: number): number[] {
    const l = f.localsOf('i64', LIMBS);
    for (let i = 0; i < LIMBS; i++)
      f.get(ptr)
        .i64Load32u(i * 4)
        .set(l[i]!);
    return l;
  }

  /** out = a·b/R: operand scanning with the reduction interleaved, carries only at the end. */
  private writeMul(): void {
    const f = this.mul;
    const a = this.loadLimbs(f, 1);
    const b = this.loadLimbs(f, 2);
    const s = f.localsOf('i64', LIMBS);
    const t = f.local('i64');
    const q = f.local('i64');
    const carry = f.local('i64');
    const M = LIMB_MASK;
    for (let i = 0; i < LIMBS; i++) {
      // t = s0 + a_i·b_0; q = t·mu mod 2^29; carry = (t + q·p_0) / 2^29 (exact)
      if (i > 0) f.get(s[0]!);
      f.get(a[i]!).get(b[0]!).i64Mul();
      if (i > 0) f.i64Add();
      f.tee(t).i64Const(this.mu).i64Mul().i64Const(M).i64And().set(q);
      f.get(t).get(q).i64Const(this.p[0]!).i64Mul().i64Add().i64Const(29n).i64ShrU().set(carry);
      // s_{j-1} = s_j + a_i·b_j + q·p_j
      for (let j = 1; j < LIMBS; j++) {
        const hasS = i > 0 && j < LIMBS - 1;
        if (hasS) f.get(s[j]!);
        f.get(a[i]!).get(b[j]!).i64Mul();
        if (hasS) f.i64Add();
        if (this.p[j] !== 0n) f.get(q).i64Const(this.p[j]!).i64Mul().i64Add();
        if (j === 1) f.get(carry).i64Add();
        f.set(s[j - 1]!);
      }
    }
    // Carries: s_0..s_7 hold the result, below 2p < 2^255.
    for (let j = 0; j < LIMBS - 1; j++) {
      if (j > 0) f.get(s[j]!).get(carry).i64Add().set(s[j]!);
      f.get(s[j]!).i64Const(29n).i64ShrU().set(carry);
      f.get(0)
        .get(s[j]!)
        .i64Const(M)
        .i64And()
        .i64Store32(j * 4);
    }
    f.get(0)
      .get(carry)
      .i64Store32((LIMBS - 1) * 4);
  }

  /**
   * Writes the body of a product in the quadratic extension Fq[u]/(u² + 1) over this field into `f`
   * (params out, a, b; elements (c0, c1) of two field elements), with one Montgomery reduction per
   * output coordinate instead of one per product (Karatsuba with lazy reduction): the three
   * products a0·b0, a1·b1 and (a0 + a1)·(b0 + b1) as unreduced 17-column sums; c1's columns are the
   * third less the first two (a0·b1 + a1·b0 ≥ 0 as a whole), c0's the first less the second plus
   * 4p² (so that it is not negative: both products are below 4p²); signed carries give each 18
   * limbs, which one reduction each brings to c/R, below 2p (8p² < p·R).
   */
  writeFq2Mul(f: FunctionBuilder): void {
    const e = ELEMENT_BYTES;
    const load = (ptr: number, off: number) => {
      const l = f.localsOf('i64', LIMBS);
      for (let i = 0; i < LIMBS; i++)
        f.get(ptr)
          .i64Load32u(off + i * 4)
          .set(l[i]!);
      return l;
    };
    const a0 = load(1, 0);
    const a1 = load(1, e);
    const b0 = load(2, 0);
    const b1 = load(2, e);
    // sa = a0 + a1, sb = b0 + b1 with carries (below 4p < 2^256: limbs stay 29 bits).
    const sum = (x: number[], y: number[]) => {
      const s = f.localsOf('i64', LIMBS);
      for (let i = 0; i < LIMBS; i++) {
        f.get(x[i]!).get(y[i]!).i64Add();
        if (i > 0)
          f.get(s[i - 1]!)
            .i64Const(29n)
            .i64ShrU()
            .i64Add();
        f.set(s[i]!);
        if (i > 0)
          f.get(s[i - 1]!)
            .i64Const(LIMB_MASK)
            .i64And()
            .set(s[i - 1]!);
      }
      return s;
    };
    const sa = sum(a0, a1);
    const sb = sum(b0, b1);
    const cols = 2 * LIMBS - 1;
    const c0 = f.localsOf('i64', 2 * LIMBS);
    const c1 = f.localsOf('i64', 2 * LIMBS);
    const fourPP = toWideLimbs(4n * this.modulus * this.modulus);
    // Column k of a product: Σ x_i·y_(k−i).
    const column = (x: number[], y: number[], k: number) => {
      let terms = 0;
      for (let i = Math.max(0, k - (LIMBS - 1)); i <= Math.min(k, LIMBS - 1); i++) {
        f.get(x[i]!)
          .get(y[k - i]!)
          .i64Mul();
        if (terms++ > 0) f.i64Add();
      }
    };
    const p1 = f.local('i64');
    for (let k = 0; k < cols; k++) {
      column(a1, b1, k);
      f.set(p1);
      // c0_k = (a0·b0)_k − (a1·b1)_k + (4p²)_k
      column(a0, b0, k);
      f.tee(c0[k]!);
      f.get(p1).i64Sub().i64Const(fourPP[k]!).i64Add().set(c0[k]!);
      // c1_k = (sa·sb)_k − (a0·b0)_k − (a1·b1)_k
      column(sa, sb, k);
      f.get(c0[k]!).i64Const(fourPP[k]!).i64Sub().get(p1).i64Add().i64Sub();
      f.get(p1).i64Sub().set(c1[k]!);
    }
    f.i64Const(fourPP[cols]!).set(c0[cols]!);
    f.i64Const(0n).set(c1[cols]!);
    const reduce = (t: number[], off: number) => {
      // Signed carries: 18 limbs of 29 bits (the whole is not negative).
      for (let k = 0; k < 2 * LIMBS - 1; k++) {
        f.get(t[k + 1]!)
          .get(t[k]!)
          .i64Const(29n)
          .i64ShrS()
          .i64Add()
          .set(t[k + 1]!);
        f.get(t[k]!).i64Const(LIMB_MASK).i64And().set(t[k]!);
      }
      this.emitReduceWide(f, t, off);
    };
    reduce(c0, 0);
    reduce(c1, e);
  }

  /**
   * out = a²/R: the product's 17 columns first, each cross product once and doubled (45 products
   * instead of 81), then the Montgomery reduction over them (separated operand scanning). A column
   * sums at most 9 doubled products and 9 reduction products below 2^59 and 2^58: below 2^63.
   */
  private writeSquare(): void {
    const f = this.square;
    const a = this.loadLimbs(f, 1);
    const t = f.localsOf('i64', 2 * LIMBS);
    for (let k = 0; k < 2 * LIMBS - 1; k++) {
      let terms = 0;
      for (let i = Math.max(0, k - (LIMBS - 1)); i <= k / 2; i++) {
        const j = k - i;
        f.get(a[i]!).get(a[j]!).i64Mul();
        if (i !== j) f.i64Const(1n).i64Shl();
        if (terms++ > 0) f.i64Add();
      }
      f.set(t[k]!);
    }
    f.i64Const(0n).set(t[2 * LIMBS - 1]!);
    this.emitReduceWide(f, t, 0);
  }

  /**
   * Emits the Montgomery reduction of 18 limbs of 29 bits (`t`, not negative, each below 2^33) into
   * the element at param 0 + `off`: for each of the low 9 limbs, q = t_i·μ mod 2^29 and q·p added
   * from limb i (each column takes at most 9 products below 2^58: below 2^63), t_i's carry moving
   * up; then t_9..t_17 with their carries are the result, below 2p when the input is below p·R.
   */
  private emitReduceWide(f: FunctionBuilder, t: readonly number[], off: number): void {
    const q = f.local('i64');
    for (let i = 0; i < LIMBS; i++) {
      f.get(t[i]!).i64Const(this.mu).i64Mul().i64Const(LIMB_MASK).i64And().set(q);
      for (let j = 0; j < LIMBS; j++) {
        if (this.p[j] === 0n) continue;
        f.get(t[i + j]!)
          .get(q)
          .i64Const(this.p[j]!)
          .i64Mul()
          .i64Add()
          .set(t[i + j]!);
      }
      // t_i is now a multiple of 2^29: its carry moves up.
      f.get(t[i + 1]!)
        .get(t[i]!)
        .i64Const(29n)
        .i64ShrU()
        .i64Add()
        .set(t[i + 1]!);
    }
    for (let j = 0; j < LIMBS; j++) {
      const v = t[LIMBS + j]!;
      if (j > 0)
        f.get(v)
          .get(t[LIMBS + j - 1]!)
          .i64Const(29n)
          .i64ShrU()
          .i64Add()
          .set(v);
      f.get(0).get(v);
      if (j < LIMBS - 1) f.i64Const(LIMB_MASK).i64And();
      f.i64Store32(off + j * 4);
    }
  }

  /**
   * Emits d_j = (what `term(j)` pushes) + the carry from limb j − 1, limb by limb with signed
   * carries: d_0..d_7 keep 29 bits, d_8 the rest (negative when the whole is).
   */
  private carried(f: FunctionBuilder, d: readonly number[], term: (j: number) => void): void {
    const c = f.local('i64');
    for (let j = 0; j < LIMBS; j++) {
      term(j);
      if (j > 0) f.get(c).i64Add();
      f.tee(d[j]!);
      if (j < LIMBS - 1) {
        f.i64Const(29n).i64ShrS().set(c);
        f.get(d[j]!).i64Const(LIMB_MASK).i64And().set(d[j]!);
      } else f.drop();
    }
  }

  /**
   * Emits out = x − k (k given by limbs) with signed borrows into locals `r`, then keeps x instead where
   * the difference is negative: the conditional subtraction every sum, difference and reduction ends with.
   */
  private subtractIfNotBelow(
    f: FunctionBuilder,
    x: readonly number[],
    k: readonly bigint[],
    out: number,
  ): void {
    const r = f.localsOf('i64', LIMBS);
    this.carried(f, r, (j) => f.get(x[j]!).i64Const(k[j]!).i64Sub());
    // r_8 < 0: x was below k.
    const neg = f.local('i32');
    f.get(r[LIMBS - 1]!)
      .i64Const(0n)
      .i64LtS()
      .set(neg);
    for (let j = 0; j < LIMBS; j++)
      f.get(out)
        .get(x[j]!)
        .get(r[j]!)
        .get(neg)
        .select()
        .i64Store32(j * 4);
  }

  private writeAddSub(): void {
    // add: a + b (< 4p), less 2p if not below it.
    {
      const f = this.add;
      const a = this.loadLimbs(f, 1);
      const b = this.loadLimbs(f, 2);
      this.carried(f, a, (j) => f.get(a[j]!).get(b[j]!).i64Add());
      this.subtractIfNotBelow(f, a, this.twoP, 0);
    }
    // sub: a − b, plus 2p if negative.
    {
      const f = this.sub;
      const a = this.loadLimbs(f, 1);
      const b = this.loadLimbs(f, 2);
      this.carried(f, a, (j) => f.get(a[j]!).get(b[j]!).i64Sub());
      const c = f.local('i64');
      // a_8 negative: add 2p.
      const neg = f.local('i32');
      f.get(a[LIMBS - 1]!)
        .i64Const(0n)
        .i64LtS()
        .set(neg);
      for (let j = 0; j < LIMBS; j++) {
        f.get(a[j]!).i64Const(this.twoP[j]!).i64Const(0n).get(neg).select().i64Add();
        if (j > 0) f.get(c).i64Add();
        f.tee(a[j]!);
        if (j < LIMBS - 1) {
          f.i64Const(29n).i64ShrS().set(c);
          f.get(0)
            .get(a[j]!)
            .i64Const(LIMB_MASK)
            .i64And()
            .i64Store32(j * 4);
        } else {
          f.set(a[j]!);
          f.get(0)
            .get(a[j]!)
            .i64Store32(j * 4);
        }
      }
    }
    // reduce: to [0, p).
    {
      const f = this.reduce;
      const a = this.loadLimbs(f, 1);
      this.subtractIfNotBelow(f, a, this.p, 0);
    }
  }

  private writeSmall(): void {
    const zeroAt = this.layout.scratch(this.bytes);
    this.neg.get(0);
    this.layout.pushScratch(this.neg, zeroAt);
    this.neg.call(this.zero);
    this.layout.pushScratch(this.neg, zeroAt);
    this.neg.get(1).call(this.sub);
    this.double.get(0).get(1).get(1).call(this.add);
    this.copy.get(0).get(1).i32Const(this.bytes).memoryCopy();
    this.zero.get(0).i32Const(0).i32Const(this.bytes).memoryFill();
    this.one.get(0).i32Const(this.oneAddress).i32Const(this.bytes).memoryCopy();
    // isZero: the canonical value's limbs are all 0.
    {
      const f = this.isZero;
      const tmp = this.layout.scratch(this.bytes);
      const t = f.local('i32');
      this.layout.pushScratch(f, tmp);
      f.tee(t).get(0).call(this.reduce);
      f.get(t).i64Load32u(0);
      for (let j = 1; j < LIMBS; j++)
        f.get(t)
          .i64Load32u(j * 4)
          .i64Or();
      f.i64Eqz();
    }
    // eq: a − b is zero.
    {
      const f = this.eq;
      const tmp = this.layout.scratch(this.bytes);
      const t = f.local('i32');
      this.layout.pushScratch(f, tmp);
      f.tee(t).get(0).get(1).call(this.sub);
      f.get(t).call(this.isZero);
    }
  }

  /** out = a^(p−2) (0 for 0): 4-bit fixed windows over a table of a^1..a^15. */
  private writeInv(): void {
    const f = this.inv;
    const table = this.layout.scratch(16 * this.bytes);
    const acc = this.layout.scratch(this.bytes);
    const base = f.local('i32');
    const accP = f.local('i32');
    f.globalGet(this.layout.scratchBase).set(base);
    f.get(base).i32Const(acc).i32Add().set(accP);
    const entry = (k: number) => {
      f.get(base)
        .i32Const(table + k * this.bytes)
        .i32Add();
    };
    entry(1);
    f.get(1).call(this.copy);
    for (let k = 2; k < 16; k++) {
      entry(k);
      entry(k - 1);
      f.get(1).call(this.mul);
    }
    const e = this.modulus - 2n;
    const nibbles: number[] = [];
    for (let x = e; x > 0n; x >>= 4n) nibbles.unshift(Number(x & 15n));
    f.get(accP);
    entry(nibbles[0]!);
    f.call(this.copy);
    for (const nb of nibbles.slice(1)) {
      for (let s = 0; s < 4; s++) f.get(accP).get(accP).call(this.square);
      if (nb !== 0) {
        f.get(accP).get(accP);
        entry(nb);
        f.call(this.mul);
      }
    }
    f.get(0).get(accP).call(this.copy);
  }

  private writeConversions(): void {
    this.toMont.get(0).get(1).i32Const(this.r2Address).call(this.mul);
    this.fromMont.get(0).get(1).i32Const(this.plainOneAddress).call(this.mul);
    this.fromMont.get(0).get(0).call(this.reduce);
    const batch = (f: FunctionBuilder, body: (p: number) => void) => {
      const p = f.local('i32');
      const end = f.local('i32');
      f.get(0).set(p);
      f.get(0).get(1).i32Const(this.bytes).i32Mul().i32Add().set(end);
      f.block().loop();
      f.get(p).get(end).i32GeU().brIf(1);
      body(p);
      f.get(p).i32Const(this.bytes).i32Add().set(p);
      f.br(0).end().end();
    };
    batch(this.batchToMont, (p) => this.batchToMont.get(p).get(p).call(this.toMont));
    batch(this.batchFromMont, (p) => this.batchFromMont.get(p).get(p).call(this.fromMont));
    batch(this.batchFromFfjs, (p) =>
      this.batchFromFfjs.get(p).get(p).i32Const(this.fromFfjsAddress).call(this.mul),
    );
  }
}
