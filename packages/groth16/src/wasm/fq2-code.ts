/**
 * The quadratic extension Fq2 = Fq[u]/(u² + 1) of BN254, over the generated Fq (field-code.ts): an
 * element is (c0, c1), 72 bytes. It offers the same operations as a prime field, so that one curve
 * generator (curve-code.ts) writes both G1 and G2.
 */
import type { FieldOps, MontgomeryField } from './field-code.ts';
import type { Layout } from './layout.ts';
import type { FunctionBuilder, ModuleBuilder } from './module-builder.ts';

export class Fq2Field implements FieldOps {
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
  readonly reduce: FunctionBuilder;

  constructor(
    m: ModuleBuilder,
    layout: Layout,
    readonly name: string,
    fq: MontgomeryField,
  ) {
    const e = fq.bytes;
    this.bytes = 2 * e;
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

    // Component-wise operations.
    const each2 = (f: FunctionBuilder, op: FunctionBuilder, args: number) => {
      for (const off of [0, e]) {
        for (let a = 0; a < args; a++) f.get(a).i32Const(off).i32Add();
        f.call(op);
      }
    };
    each2(this.add, fq.add, 3);
    each2(this.sub, fq.sub, 3);
    each2(this.neg, fq.neg, 2);
    each2(this.double, fq.double, 2);
    each2(this.reduce, fq.reduce, 2);
    this.copy.get(0).get(1).i32Const(this.bytes).memoryCopy();
    this.zero.get(0).i32Const(0).i32Const(this.bytes).memoryFill();
    this.one.get(0).call(fq.one);
    this.one.get(0).i32Const(e).i32Add().call(fq.zero);
    this.isZero.get(0).call(fq.isZero).get(0).i32Const(e).i32Add().call(fq.isZero).i32And();
    this.eq
      .get(0)
      .get(1)
      .call(fq.eq)
      .get(0)
      .i32Const(e)
      .i32Add()
      .get(1)
      .i32Const(e)
      .i32Add()
      .call(fq.eq)
      .i32And();

    // mul: Karatsuba with one reduction per coordinate (MontgomeryField.writeFq2Mul).
    fq.writeFq2Mul(this.mul);
    // square: c0 = (a0 + a1)(a0 − a1), c1 = 2·a0·a1.
    {
      const f = this.square;
      const t0 = layout.scratch(e);
      const t1 = layout.scratch(e);
      const t2 = layout.scratch(e);
      const s = (o: number) => layout.pushScratch(f, o);
      const hi = (p: number) => f.get(p).i32Const(e).i32Add();
      s(t0);
      f.get(1);
      hi(1);
      f.call(fq.add);
      s(t1);
      f.get(1);
      hi(1);
      f.call(fq.sub);
      s(t2);
      f.get(1);
      hi(1);
      f.call(fq.mul);
      f.get(0);
      s(t0);
      s(t1);
      f.call(fq.mul);
      hi(0);
      s(t2);
      f.call(fq.double);
    }
    // inv: (a0 − a1·u) / (a0² + a1²).
    {
      const f = this.inv;
      const t0 = layout.scratch(e);
      const t1 = layout.scratch(e);
      const s = (o: number) => layout.pushScratch(f, o);
      const hi = (p: number) => f.get(p).i32Const(e).i32Add();
      s(t0);
      f.get(1).call(fq.square);
      s(t1);
      hi(1);
      f.call(fq.square);
      s(t0);
      s(t0);
      s(t1);
      f.call(fq.add);
      s(t0);
      s(t0);
      f.call(fq.inv);
      // c1 first: out may be a.
      hi(0);
      hi(1);
      s(t0);
      f.call(fq.mul);
      hi(0);
      hi(0);
      f.call(fq.neg);
      f.get(0).get(1);
      s(t0);
      f.call(fq.mul);
    }
  }
}
