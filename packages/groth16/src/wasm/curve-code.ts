/**
 * Short Weierstrass curves y² = x³ + b over a generated field (G1 over Fq, G2 over Fq2), as
 * WebAssembly: Jacobian doubling and additions for bucket sums, and the batch-affine kernel that
 * does most of an MSM's work — many independent affine additions sharing one field inversion
 * (Montgomery's trick), 6 multiplications each instead of the 11 of a mixed Jacobian addition.
 *
 * Memory forms: affine (x, y), the point at infinity written as all zero bytes (not on the curve,
 * since b ≠ 0); Jacobian (X, Y, Z) with x = X/Z², y = Y/Z³, infinity when Z = 0.
 * Formulas: dbl-2009-l, madd-2007-bl and add-2007-bl of the Explicit-Formulas Database (a = 0).
 */
import type { FieldOps } from './field-code.ts';
import type { Layout } from './layout.ts';
import type { FunctionBuilder, ModuleBuilder } from './module-builder.ts';

/** An operand: a pointer local plus a byte offset, or a scratch slot. */
type Ref = { readonly local: number; readonly off: number } | { readonly scratch: number };

/** Emits field operations on refs. */
class Emit {
  constructor(
    readonly f: FunctionBuilder,
    private readonly F: FieldOps,
    private readonly layout: Layout,
  ) {}
  push(r: Ref): void {
    if ('scratch' in r) this.layout.pushScratch(this.f, r.scratch);
    else {
      this.f.get(r.local);
      if (r.off !== 0) this.f.i32Const(r.off).i32Add();
    }
  }
  private call(fn: FunctionBuilder, ...refs: Ref[]): void {
    for (const r of refs) this.push(r);
    this.f.call(fn);
  }
  mul(d: Ref, a: Ref, b: Ref): void {
    this.call(this.F.mul, d, a, b);
  }
  sq(d: Ref, a: Ref): void {
    this.call(this.F.square, d, a);
  }
  add(d: Ref, a: Ref, b: Ref): void {
    this.call(this.F.add, d, a, b);
  }
  sub(d: Ref, a: Ref, b: Ref): void {
    this.call(this.F.sub, d, a, b);
  }
  dbl(d: Ref, a: Ref): void {
    this.call(this.F.double, d, a);
  }
  neg(d: Ref, a: Ref): void {
    this.call(this.F.neg, d, a);
  }
  copy(d: Ref, a: Ref): void {
    this.call(this.F.copy, d, a);
  }
  one(d: Ref): void {
    this.call(this.F.one, d);
  }
  zero(d: Ref): void {
    this.call(this.F.zero, d);
  }
  inv(d: Ref, a: Ref): void {
    this.call(this.F.inv, d, a);
  }
  /** Pushes isZero(a). */
  isZero(a: Ref): void {
    this.call(this.F.isZero, a);
  }
  /** Pushes eq(a, b). */
  eq(a: Ref, b: Ref): void {
    this.call(this.F.eq, a, b);
  }
  /**
   * Batch inversion, pass 1 at index local `k`: the running product acc_k = acc_{k−1} · d_k (d_0 for
   * the first); `acc` and `d` point at entry k of arrays of `stride` bytes.
   */
  runningProduct(k: number, acc: number, d: number, stride: number): void {
    this.f.get(k).i32Eqz().if();
    this.copy({ local: acc, off: 0 }, { local: d, off: 0 });
    this.f.else();
    this.mul({ local: acc, off: 0 }, { local: acc, off: -stride }, { local: d, off: 0 });
    this.f.end();
  }
  /**
   * Batch inversion, pass 2 at index local `k` (from the last down): invK = inv · acc_{k−1} (inv
   * itself for the first), then inv = inv · d_k.
   */
  inverseStep(k: number, inv: Ref, invK: Ref, acc: number, d: number, stride: number): void {
    this.f.get(k).i32Eqz().if();
    this.copy(invK, inv);
    this.f.else();
    this.mul(invK, inv, { local: acc, off: -stride });
    this.mul(inv, inv, { local: d, off: 0 });
    this.f.end();
  }
  /**
   * Doubles the affine point (x, y) in place, `inv` = 1/(2y) given: λ = 3x²·inv; x3 = λ² − 2x;
   * y3 = λ(x − x3) − y. `lambda`, `t` and `scratch` are temporaries (`scratch` may be `inv`).
   */
  affineDouble(x: Ref, y: Ref, inv: Ref, lambda: Ref, t: Ref, scratch: Ref): void {
    this.sq(lambda, x);
    this.dbl(t, lambda);
    this.add(lambda, lambda, t);
    this.mul(lambda, lambda, inv);
    this.sq(t, lambda);
    this.sub(t, t, x);
    this.sub(t, t, x);
    this.sub(scratch, x, t);
    this.mul(scratch, lambda, scratch);
    this.sub(y, scratch, y);
    this.copy(x, t);
  }
}

export class CurveCode {
  /** Bytes of an affine point and of a Jacobian one. */
  readonly affineBytes: number;
  readonly jacobianBytes: number;
  /** (out, p): out = 2p, Jacobian. */
  readonly jacDouble: FunctionBuilder;
  /** (out, p, q): out = p + q, p Jacobian, q affine. */
  readonly jacAddAffine: FunctionBuilder;
  /** (out, p, q): out = p + q, Jacobian. */
  readonly jacAdd: FunctionBuilder;
  /** (out, p): affine of a Jacobian point (all zero for infinity), canonical coordinates. */
  readonly toAffine: FunctionBuilder;
  /** (out, a): Jacobian of an affine point. */
  readonly fromAffine: FunctionBuilder;
  /** (p) → i32: whether the affine point is the all-zero infinity. */
  readonly affineIsInfinity: FunctionBuilder;
  /**
   * (buckets, flags, points, pairs, n, tmp): for each pair (bucket index, point index·2 + sign), the
   * bucket (affine, flag byte 1 when it holds a point) plus ± the point; no bucket twice among the n.
   * `tmp` has room for 2n field elements and n bytes.
   */
  readonly batchAdd: FunctionBuilder;
  /**
   * (points, n, tmp): doubles n affine points in place, one inversion for all (no point at infinity,
   * and none of order 2: BN254's groups have odd order). `tmp` has room for 2n field elements.
   */
  readonly batchDouble: FunctionBuilder;
  /**
   * (jbuckets, jflags, bucket, point, sign): the Jacobian bucket plus ± the affine point — for the
   * pairs a batch cannot take (their bucket is in it and the queue of waiting pairs is full).
   */
  readonly addToJacobian: FunctionBuilder;
  /**
   * (buckets, flags, jbuckets, jflags, count, out): out = Σ (i + 1)·(bucket_i + jbucket_i), Jacobian
   * (running sums, top down).
   */
  readonly reduceBuckets: FunctionBuilder;

  constructor(
    m: ModuleBuilder,
    private readonly layout: Layout,
    readonly name: string,
    private readonly F: FieldOps,
  ) {
    const e = F.bytes;
    this.affineBytes = 2 * e;
    this.jacobianBytes = 3 * e;
    const n = (s: string) => `${name}_${s}`;
    this.jacDouble = m.fn(n('jacDouble'), ['i32', 'i32']);
    this.jacAddAffine = m.fn(n('jacAddAffine'), ['i32', 'i32', 'i32']);
    this.jacAdd = m.fn(n('jacAdd'), ['i32', 'i32', 'i32']);
    this.toAffine = m.fn(n('toAffine'), ['i32', 'i32']);
    this.fromAffine = m.fn(n('fromAffine'), ['i32', 'i32']);
    this.affineIsInfinity = m.fn(n('affineIsInfinity'), ['i32'], ['i32']);
    this.batchAdd = m.fn(n('batchAdd'), ['i32', 'i32', 'i32', 'i32', 'i32', 'i32']);
    this.addToJacobian = m.fn(n('addToJacobian'), ['i32', 'i32', 'i32', 'i32', 'i32']);
    this.batchDouble = m.fn(n('batchDouble'), ['i32', 'i32', 'i32']);
    this.reduceBuckets = m.fn(n('reduceBuckets'), ['i32', 'i32', 'i32', 'i32', 'i32', 'i32']);
    this.writeSmall();
    this.writeDouble();
    this.writeAddAffine();
    this.writeAdd();
    this.writeBatchAdd();
    this.writeAddToJacobian();
    this.writeBatchDouble();
    this.writeReduce();
  }

  private temps(k: number): Ref[] {
    return Array.from({ length: k }, () => ({ scratch: this.layout.scratch(this.F.bytes) }));
  }

  private coords(local: number, k: number): Ref[] {
    return Array.from({ length: k }, (_, i) => ({ local, off: i * this.F.bytes }));
  }

  private writeSmall(): void {
    const F = this.F;
    const e = F.bytes;
    // affineIsInfinity: every byte zero.
    {
      const f = this.affineIsInfinity;
      const acc = f.local('i64');
      for (let i = 0; i < (2 * e) / 8; i++) {
        f.get(0).i64Load(i * 8);
        if (i > 0) f.get(acc).i64Or();
        f.set(acc);
      }
      f.get(acc).i64Eqz();
    }
    // fromAffine
    {
      const f = this.fromAffine;
      const E = new Emit(f, F, this.layout);
      f.get(1).call(this.affineIsInfinity).if();
      E.zero({ local: 0, off: 0 });
      E.one({ local: 0, off: e });
      E.zero({ local: 0, off: 2 * e });
      f.else();
      E.copy({ local: 0, off: 0 }, { local: 1, off: 0 });
      E.copy({ local: 0, off: e }, { local: 1, off: e });
      E.one({ local: 0, off: 2 * e });
      f.end();
    }
    // toAffine
    {
      const f = this.toAffine;
      const E = new Emit(f, F, this.layout);
      const [X, Y, Z] = this.coords(1, 3);
      const [zi, zi2, zi3] = this.temps(3);
      E.isZero(Z!);
      f.if();
      f.get(0)
        .i32Const(0)
        .i32Const(2 * e)
        .memoryFill();
      f.return();
      f.end();
      E.inv(zi!, Z!);
      E.sq(zi2!, zi!);
      E.mul(zi3!, zi2!, zi!);
      E.mul({ local: 0, off: 0 }, X!, zi2!);
      E.mul({ local: 0, off: e }, Y!, zi3!);
      f.get(0).get(0).call(F.reduce);
      f.get(0).i32Const(e).i32Add().get(0).i32Const(e).i32Add().call(F.reduce);
    }
  }

  /** dbl-2009-l; out may be p. */
  private writeDouble(): void {
    const f = this.jacDouble;
    const E = new Emit(f, this.F, this.layout);
    const [X, Y, Z] = this.coords(1, 3);
    const [oX, oY, oZ] = this.coords(0, 3);
    const [A, B, C, D, Ee, Fv, Z3] = this.temps(7);
    E.isZero(Z!);
    f.if();
    E.zero(oZ!);
    f.return();
    f.end();
    E.sq(A!, X!);
    E.sq(B!, Y!);
    E.sq(C!, B!);
    E.add(D!, X!, B!);
    E.sq(D!, D!);
    E.sub(D!, D!, A!);
    E.sub(D!, D!, C!);
    E.dbl(D!, D!);
    E.dbl(Ee!, A!);
    E.add(Ee!, Ee!, A!);
    E.sq(Fv!, Ee!);
    E.mul(Z3!, Y!, Z!);
    E.dbl(Z3!, Z3!);
    // X3 = F − 2D
    E.dbl(A!, D!);
    E.sub(oX!, Fv!, A!);
    // Y3 = E(D − X3) − 8C
    E.sub(D!, D!, oX!);
    E.mul(D!, Ee!, D!);
    E.dbl(C!, C!);
    E.dbl(C!, C!);
    E.dbl(C!, C!);
    E.sub(oY!, D!, C!);
    E.copy(oZ!, Z3!);
  }

  /** madd-2007-bl with the exceptional cases; out may be p. */
  private writeAddAffine(): void {
    const f = this.jacAddAffine;
    const e = this.F.bytes;
    const E = new Emit(f, this.F, this.layout);
    const [X1, Y1, Z1] = this.coords(1, 3);
    const [x2, y2] = this.coords(2, 2);
    const [oX, oY, oZ] = this.coords(0, 3);
    const [Z1Z1, U2, S2, H, HH, I, J, r, V] = this.temps(9);
    f.get(2).call(this.affineIsInfinity).if();
    f.get(0)
      .get(1)
      .i32Const(3 * e)
      .memoryCopy();
    f.return();
    f.end();
    E.isZero(Z1!);
    f.if();
    f.get(0).get(2).call(this.fromAffine);
    f.return();
    f.end();
    E.sq(Z1Z1!, Z1!);
    E.mul(U2!, x2!, Z1Z1!);
    E.mul(S2!, y2!, Z1!);
    E.mul(S2!, S2!, Z1Z1!);
    E.sub(H!, U2!, X1!);
    E.sub(r!, S2!, Y1!);
    E.isZero(H!);
    f.if();
    E.isZero(r!);
    f.if();
    f.get(0).get(2).call(this.fromAffine);
    f.get(0).get(0).call(this.jacDouble);
    f.else();
    E.zero(oZ!);
    f.end();
    f.return();
    f.end();
    E.sq(HH!, H!);
    E.dbl(I!, HH!);
    E.dbl(I!, I!);
    E.mul(J!, H!, I!);
    E.dbl(r!, r!);
    E.mul(V!, X1!, I!);
    // Z3 = (Z1 + H)² − Z1Z1 − HH (before Z1 is overwritten)
    E.add(U2!, Z1!, H!);
    E.sq(U2!, U2!);
    E.sub(U2!, U2!, Z1Z1!);
    E.sub(oZ!, U2!, HH!);
    // 2·Y1·J before Y1 is overwritten
    E.mul(S2!, Y1!, J!);
    E.dbl(S2!, S2!);
    CurveCode.addTail(E, { r: r!, J: J!, V: V!, sj2: S2!, t: HH!, u: I!, oX: oX!, oY: oY! });
  }

  /** The end both additions share: X3 = r² − J − 2V, Y3 = r(V − X3) − sj2 (sj2 = 2·S·J); t, u scratch. */
  private static addTail(
    E: Emit,
    a: { r: Ref; J: Ref; V: Ref; sj2: Ref; t: Ref; u: Ref; oX: Ref; oY: Ref },
  ): void {
    E.sq(a.t, a.r);
    E.sub(a.t, a.t, a.J);
    E.dbl(a.u, a.V);
    E.sub(a.oX, a.t, a.u);
    E.sub(a.V, a.V, a.oX);
    E.mul(a.V, a.r, a.V);
    E.sub(a.oY, a.V, a.sj2);
  }

  /** add-2007-bl with the exceptional cases; out may be p or q. */
  private writeAdd(): void {
    const f = this.jacAdd;
    const e = this.F.bytes;
    const E = new Emit(f, this.F, this.layout);
    const [X1, Y1, Z1] = this.coords(1, 3);
    const [X2, Y2, Z2] = this.coords(2, 3);
    const [oX, oY, oZ] = this.coords(0, 3);
    const [Z1Z1, Z2Z2, U1, U2, S1, S2, H, I, J, r, V] = this.temps(11);
    E.isZero(Z1!);
    f.if();
    f.get(0)
      .get(2)
      .i32Const(3 * e)
      .memoryCopy();
    f.return();
    f.end();
    E.isZero(Z2!);
    f.if();
    f.get(0)
      .get(1)
      .i32Const(3 * e)
      .memoryCopy();
    f.return();
    f.end();
    E.sq(Z1Z1!, Z1!);
    E.sq(Z2Z2!, Z2!);
    E.mul(U1!, X1!, Z2Z2!);
    E.mul(U2!, X2!, Z1Z1!);
    E.mul(S1!, Y1!, Z2!);
    E.mul(S1!, S1!, Z2Z2!);
    E.mul(S2!, Y2!, Z1!);
    E.mul(S2!, S2!, Z1Z1!);
    E.sub(H!, U2!, U1!);
    E.sub(r!, S2!, S1!);
    E.isZero(H!);
    f.if();
    E.isZero(r!);
    f.if();
    f.get(0).get(1).call(this.jacDouble);
    f.else();
    E.zero(oZ!);
    f.end();
    f.return();
    f.end();
    E.dbl(I!, H!);
    E.sq(I!, I!);
    E.mul(J!, H!, I!);
    E.dbl(r!, r!);
    E.mul(V!, U1!, I!);
    // Z3 = ((Z1 + Z2)² − Z1Z1 − Z2Z2)·H
    E.add(U2!, Z1!, Z2!);
    E.sq(U2!, U2!);
    E.sub(U2!, U2!, Z1Z1!);
    E.sub(U2!, U2!, Z2Z2!);
    E.mul(oZ!, U2!, H!);
    E.mul(S1!, S1!, J!);
    E.dbl(S1!, S1!);
    CurveCode.addTail(E, { r: r!, J: J!, V: V!, sj2: S1!, t: U2!, u: I!, oX: oX!, oY: oY! });
  }

  /**
   * The batch-affine kernel. Pass 1 writes each pair's denominator (x_P − x_B, or 1 to fill an empty
   * bucket) and the running product of denominators, assuming no two x are equal; if the product is
   * then zero, some are, and a careful pass 1 classifies those pairs (a doubling, or a sum at
   * infinity that empties the bucket). One inversion; pass 2 walks back, peeling each denominator's
   * inverse off the running product, and writes the buckets. A negative digit's point is −P: its
   * slope is −(y_P + y_B)/(x_P − x_B), whose sign is folded into y3 = λ'(x3 − x_B) − y_B.
   */
  private writeBatchAdd(): void {
    const f = this.batchAdd;
    const F = this.F;
    const e = F.bytes;
    const pb = this.affineBytes;
    const E = new Emit(f, F, this.layout);
    // params: 0 buckets, 1 flags, 2 points, 3 pairs, 4 n, 5 tmp
    const k = f.local('i32');
    const B = f.local('i32');
    const P = f.local('i32');
    const bucket = f.local('i32');
    const ref = f.local('i32');
    const sign = f.local('i32');
    const den = f.local('i32');
    const acc = f.local('i32');
    const kinds = f.local('i32');
    const kind = f.local('i32');
    const dK = f.local('i32');
    const accK = f.local('i32');
    const careful = f.local('i32');
    const [yP, dx, inv, invK, lambda, t] = this.temps(6);
    // tmp layout: denominators (n), running products (n), kinds (n bytes)
    f.get(5).set(den);
    f.get(5).get(4).i32Const(e).i32Mul().i32Add().set(acc);
    f.get(acc).get(4).i32Const(e).i32Mul().i32Add().set(kinds);
    f.get(4).i32Eqz().if().return().end();
    const load = () => {
      f.get(3).get(k).i32Const(8).i32Mul().i32Add().tee(ref).i32Load(0).set(bucket);
      f.get(ref).i32Load(4).set(ref);
      f.get(ref).i32Const(1).i32And().set(sign);
      f.get(0).get(bucket).i32Const(pb).i32Mul().i32Add().set(B);
      f.get(2).get(ref).i32Const(1).i32ShrU().i32Const(pb).i32Mul().i32Add().set(P);
      f.get(den).get(k).i32Const(e).i32Mul().i32Add().set(dK);
      f.get(acc).get(k).i32Const(e).i32Mul().i32Add().set(accK);
    };
    const signedY = () => {
      f.get(sign).if();
      E.neg(yP!, { local: P, off: e });
      f.else();
      E.copy(yP!, { local: P, off: e });
      f.end();
    };
    // Pass 1, optimistic first (careful = 0), then careful if the product came out zero.
    f.i32Const(0).set(careful);
    f.block().loop();
    f.i32Const(0).set(k);
    f.block().loop();
    f.get(k).get(4).i32GeU().brIf(1);
    load();
    f.get(1).get(bucket).i32Add().i32Load8u(0).i32Eqz().if();
    f.i32Const(1).set(kind);
    E.one({ local: dK, off: 0 });
    f.else();
    f.i32Const(0).set(kind);
    E.sub({ local: dK, off: 0 }, { local: P, off: 0 }, { local: B, off: 0 });
    f.get(careful).if();
    E.isZero({ local: dK, off: 0 });
    f.if();
    signedY();
    E.eq({ local: B, off: e }, yP!);
    f.if();
    f.i32Const(2).set(kind);
    E.dbl({ local: dK, off: 0 }, { local: B, off: e });
    f.else();
    f.i32Const(3).set(kind);
    E.one({ local: dK, off: 0 });
    f.end();
    f.end();
    f.end();
    f.end();
    f.get(kinds).get(k).i32Add().get(kind).i32Store8(0);
    E.runningProduct(k, accK, dK, e);
    f.get(k).i32Const(1).i32Add().set(k);
    f.br(0).end().end();
    // The product of the denominators is zero only if some x were equal: once more, carefully.
    f.get(careful).i32Eqz().if();
    E.isZero({ local: accK, off: 0 });
    f.if();
    f.i32Const(1).set(careful);
    f.br(2);
    f.end();
    f.end();
    f.end().end();
    // The one inversion (accK is the last running product).
    E.inv(inv!, { local: accK, off: 0 });
    // Pass 2, from the last pair down.
    f.get(4).set(k);
    f.block().loop();
    f.get(k).i32Eqz().brIf(1);
    f.get(k).i32Const(1).i32Sub().set(k);
    load();
    // invK = inv · acc_{k−1} (inv itself for the first); inv = inv · d_k
    E.inverseStep(k, inv!, invK!, accK, dK, e);
    f.get(kinds).get(k).i32Add().i32Load8u(0).set(kind);
    f.get(kind).i32Eqz().if();
    // An addition: λ = ±(y_P ∓ y_B)/(x_P − x_B) as above.
    f.get(sign).if();
    E.add(lambda!, { local: P, off: e }, { local: B, off: e });
    f.else();
    E.sub(lambda!, { local: P, off: e }, { local: B, off: e });
    f.end();
    E.mul(lambda!, lambda!, invK!);
    E.sq(t!, lambda!);
    E.sub(t!, t!, { local: B, off: 0 });
    E.sub(t!, t!, { local: P, off: 0 });
    f.get(sign).if();
    E.sub(dx!, t!, { local: B, off: 0 });
    f.else();
    E.sub(dx!, { local: B, off: 0 }, t!);
    f.end();
    E.mul(dx!, lambda!, dx!);
    E.sub({ local: B, off: e }, dx!, { local: B, off: e });
    E.copy({ local: B, off: 0 }, t!);
    f.else();
    f.get(kind).i32Const(1).i32Eq().if();
    // An empty bucket takes ±P.
    E.copy({ local: B, off: 0 }, { local: P, off: 0 });
    signedY();
    E.copy({ local: B, off: e }, yP!);
    f.get(1).get(bucket).i32Add().i32Const(1).i32Store8(0);
    f.else();
    f.get(kind).i32Const(3).i32Eq().if();
    f.get(1).get(bucket).i32Add().i32Const(0).i32Store8(0);
    f.else();
    // A doubling of the bucket.
    E.affineDouble({ local: B, off: 0 }, { local: B, off: e }, invK!, lambda!, t!, dx!);
    f.end();
    f.end();
    f.end();
    f.br(0).end().end();
  }

  /** Pass 1: denominators 2y and their running products; one inversion; pass 2 backwards. */
  private writeBatchDouble(): void {
    const f = this.batchDouble;
    const F = this.F;
    const e = F.bytes;
    const pb = this.affineBytes;
    const E = new Emit(f, F, this.layout);
    // params: 0 points, 1 n, 2 tmp
    const k = f.local('i32');
    const P = f.local('i32');
    const dK = f.local('i32');
    const accK = f.local('i32');
    const [inv, invK, lambda, t] = this.temps(4);
    f.get(1).i32Eqz().if().return().end();
    const at = () => {
      f.get(0).get(k).i32Const(pb).i32Mul().i32Add().set(P);
      f.get(2).get(k).i32Const(e).i32Mul().i32Add().set(dK);
      f.get(2).get(1).get(k).i32Add().i32Const(e).i32Mul().i32Add().set(accK);
    };
    f.i32Const(0).set(k);
    f.block().loop();
    f.get(k).get(1).i32GeU().brIf(1);
    at();
    E.dbl({ local: dK, off: 0 }, { local: P, off: e });
    E.runningProduct(k, accK, dK, e);
    f.get(k).i32Const(1).i32Add().set(k);
    f.br(0).end().end();
    E.inv(inv!, { local: accK, off: 0 });
    f.get(1).set(k);
    f.block().loop();
    f.get(k).i32Eqz().brIf(1);
    f.get(k).i32Const(1).i32Sub().set(k);
    at();
    E.inverseStep(k, inv!, invK!, accK, dK, e);
    E.affineDouble({ local: P, off: 0 }, { local: P, off: e }, invK!, lambda!, t!, invK!);
    f.br(0).end().end();
  }

  private writeAddToJacobian(): void {
    const f = this.addToJacobian;
    const e = this.F.bytes;
    const E = new Emit(f, this.F, this.layout);
    // params: 0 jbuckets, 1 jflags, 2 bucket, 3 point, 4 sign
    const q = this.layout.scratch(this.affineBytes);
    const J = f.local('i32');
    const Q = f.local('i32');
    this.layout.pushScratch(f, q);
    f.set(Q);
    E.copy({ local: Q, off: 0 }, { local: 3, off: 0 });
    f.get(4).if();
    E.neg({ local: Q, off: e }, { local: 3, off: e });
    f.else();
    E.copy({ local: Q, off: e }, { local: 3, off: e });
    f.end();
    f.get(0).get(2).i32Const(this.jacobianBytes).i32Mul().i32Add().set(J);
    f.get(1).get(2).i32Add().i32Load8u(0).if();
    f.get(J).get(J).get(Q).call(this.jacAddAffine);
    f.else();
    f.get(J).get(Q).call(this.fromAffine);
    f.get(1).get(2).i32Add().i32Const(1).i32Store8(0);
    f.end();
  }

  /** Running sums from the top bucket down: S += bucket (+ its Jacobian part); T += S. */
  private writeReduce(): void {
    const f = this.reduceBuckets;
    const jb = this.jacobianBytes;
    // params: 0 buckets, 1 flags, 2 jbuckets, 3 jflags, 4 count, 5 out
    const S = this.layout.scratch(jb);
    const T = this.layout.scratch(jb);
    const s = f.local('i32');
    const t = f.local('i32');
    const i = f.local('i32');
    this.layout.pushScratch(f, S);
    f.set(s);
    this.layout.pushScratch(f, T);
    f.set(t);
    f.get(s).i32Const(0).i32Const(jb).memoryFill();
    f.get(t).i32Const(0).i32Const(jb).memoryFill();
    f.get(4).set(i);
    f.block().loop();
    f.get(i).i32Eqz().brIf(1);
    f.get(i).i32Const(1).i32Sub().set(i);
    f.get(1).get(i).i32Add().i32Load8u(0).if();
    f.get(s).get(s).get(0).get(i).i32Const(this.affineBytes).i32Mul().i32Add().call(this.jacAddAffine);
    f.end();
    f.get(3).get(i).i32Add().i32Load8u(0).if();
    f.get(s).get(s).get(2).get(i).i32Const(jb).i32Mul().i32Add().call(this.jacAdd);
    f.end();
    f.get(t).get(t).get(s).call(this.jacAdd);
    f.br(0).end().end();
    f.get(5).get(t).i32Const(jb).memoryCopy();
  }
}
