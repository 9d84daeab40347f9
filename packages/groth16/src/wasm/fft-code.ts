/**
 * The scalar-field work of a Groth16 proof, as WebAssembly over the generated Fr (field-code.ts): the
 * QAP evaluations A and B from the proving key's coefficients and the witness, the radix-2 FFT
 * (in place, bit-reversed input order, Cooley–Tukey), and the element-wise steps between FFTs.
 * Elements are in Montgomery form throughout; `MontgomeryField.batchFromMont` turns the result into
 * the normal form the MSM reads.
 */
import type { MontgomeryField } from './field-code.ts';
import type { Layout } from './layout.ts';
import type { FunctionBuilder, ModuleBuilder } from './module-builder.ts';

/** Bytes of one converted coefficient: u32 matrix, u32 constraint, u32 signal, the value. */
export const COEF_BYTES = 12 + 36;

export class FftCode {
  /** (ptr, logn, roots): in-place FFT of 2^logn elements; roots holds ω^0..ω^(n/2 − 1). */
  readonly fft: FunctionBuilder;
  /** (out, a, b, n): out_i = a_i·b_i. */
  readonly mulEach: FunctionBuilder;
  /** (out, a, b, n): out_i = a_i − b_i. */
  readonly subEach: FunctionBuilder;
  /** (ptr, n, g, c): ptr_i = ptr_i·c·g^i. */
  readonly scalePowers: FunctionBuilder;
  /** (coefs, nCoef, witness, a, b): a/b[constraint] += value·witness[signal] (a, b zeroed by the caller). */
  readonly buildAB: FunctionBuilder;

  constructor(
    m: ModuleBuilder,
    private readonly layout: Layout,
    private readonly fr: MontgomeryField,
  ) {
    this.fft = m.fn('fr_fft', ['i32', 'i32', 'i32']);
    this.mulEach = m.fn('fr_mulEach', ['i32', 'i32', 'i32', 'i32']);
    this.subEach = m.fn('fr_subEach', ['i32', 'i32', 'i32', 'i32']);
    this.scalePowers = m.fn('fr_scalePowers', ['i32', 'i32', 'i32', 'i32']);
    this.buildAB = m.fn('fr_buildAB', ['i32', 'i32', 'i32', 'i32', 'i32']);
    this.writeFft();
    this.writeEach(this.mulEach, fr.mul);
    this.writeEach(this.subEach, fr.sub);
    this.writeScalePowers();
    this.writeBuildAB();
  }

  /** A counted loop: `for (i = 0; i < limit; i++) body`, limit a local. */
  private static loop(f: FunctionBuilder, i: number, limit: number, body: () => void): void {
    f.i32Const(0).set(i);
    f.block().loop();
    f.get(i).get(limit).i32GeU().brIf(1);
    body();
    f.get(i).i32Const(1).i32Add().set(i);
    f.br(0).end().end();
  }

  private writeEach(f: FunctionBuilder, op: FunctionBuilder): void {
    const e = this.fr.bytes;
    const i = f.local('i32');
    const at = (p: number) => f.get(p).get(i).i32Const(e).i32Mul().i32Add();
    FftCode.loop(f, i, 3, () => {
      at(0);
      at(1);
      at(2);
      f.call(op);
    });
  }

  private writeScalePowers(): void {
    const f = this.scalePowers;
    const e = this.fr.bytes;
    const pw = this.layout.scratch(e);
    const i = f.local('i32');
    const p = f.local('i32');
    const power = () => this.layout.pushScratch(f, pw);
    power();
    f.get(3).call(this.fr.copy);
    FftCode.loop(f, i, 1, () => {
      f.get(0).get(i).i32Const(e).i32Mul().i32Add().tee(p).get(p);
      power();
      f.call(this.fr.mul);
      power();
      power();
      f.get(2).call(this.fr.mul);
    });
  }

  private writeFft(): void {
    const f = this.fft;
    const e = this.fr.bytes;
    const F = this.fr;
    // params: 0 ptr, 1 logn, 2 roots
    const n = f.local('i32');
    const i = f.local('i32');
    const j = f.local('i32');
    const k = f.local('i32');
    const len = f.local('i32');
    const half = f.local('i32');
    const step = f.local('i32');
    const pu = f.local('i32');
    const pv = f.local('i32');
    const pw = f.local('i32');
    const logStep = f.local('i32');
    const tmp = this.layout.scratch(e);
    const v = this.layout.scratch(e);
    f.i32Const(1).get(1).i32Shl().set(n);
    // Bit-reversal permutation.
    FftCode.loop(f, i, n, () => {
      f.i32Const(0).set(j);
      f.i32Const(0).set(k);
      f.get(i).set(len);
      f.block().loop();
      f.get(k).get(1).i32GeU().brIf(1);
      f.get(j).i32Const(1).i32Shl().get(len).i32Const(1).i32And().i32Or().set(j);
      f.get(len).i32Const(1).i32ShrU().set(len);
      f.get(k).i32Const(1).i32Add().set(k);
      f.br(0).end().end();
      f.get(i).get(j).i32LtU().if();
      f.get(0).get(i).i32Const(e).i32Mul().i32Add().set(pu);
      f.get(0).get(j).i32Const(e).i32Mul().i32Add().set(pv);
      this.layout.pushScratch(f, tmp);
      f.get(pu).i32Const(e).memoryCopy();
      f.get(pu).get(pv).i32Const(e).memoryCopy();
      f.get(pv);
      this.layout.pushScratch(f, tmp);
      f.i32Const(e).memoryCopy();
      f.end();
    });
    // Butterflies.
    f.i32Const(2).set(len);
    f.get(1).i32Const(1).i32Sub().set(logStep);
    f.block().loop();
    f.get(len).get(n).i32GtU().brIf(1);
    f.get(len).i32Const(1).i32ShrU().set(half);
    f.i32Const(1).get(logStep).i32Shl().set(step);
    f.i32Const(0).set(i);
    f.block().loop();
    f.get(i).get(n).i32GeU().brIf(1);
    FftCode.loop(f, j, half, () => {
      f.get(0).get(i).get(j).i32Add().i32Const(e).i32Mul().i32Add().set(pu);
      f.get(pu).get(half).i32Const(e).i32Mul().i32Add().set(pv);
      f.get(2).get(j).get(step).i32Mul().i32Const(e).i32Mul().i32Add().set(pw);
      this.layout.pushScratch(f, v);
      f.get(pv).get(pw).call(F.mul);
      f.get(pv).get(pu);
      this.layout.pushScratch(f, v);
      f.call(F.sub);
      f.get(pu).get(pu);
      this.layout.pushScratch(f, v);
      f.call(F.add);
    });
    f.get(i).get(len).i32Add().set(i);
    f.br(0).end().end();
    f.get(len).i32Const(1).i32Shl().set(len);
    f.get(logStep).i32Const(1).i32Sub().set(logStep);
    f.br(0).end().end();
  }

  private writeBuildAB(): void {
    const f = this.buildAB;
    const e = this.fr.bytes;
    // params: 0 coefs, 1 nCoef, 2 witness, 3 a, 4 b
    const i = f.local('i32');
    const c = f.local('i32');
    const dst = f.local('i32');
    const t = this.layout.scratch(e);
    FftCode.loop(f, i, 1, () => {
      f.get(0).get(i).i32Const(48).i32Mul().i32Add().set(c);
      f.get(4).get(3).get(c).i32Load(0).select();
      f.get(c).i32Load(4).i32Const(e).i32Mul().i32Add().set(dst);
      this.layout.pushScratch(f, t);
      f.get(c).i32Const(12).i32Add();
      f.get(2).get(c).i32Load(8).i32Const(e).i32Mul().i32Add();
      f.call(this.fr.mul);
      f.get(dst).get(dst);
      this.layout.pushScratch(f, t);
      f.call(this.fr.add);
    });
  }
}
