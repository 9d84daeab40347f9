/**
 * The engine's WebAssembly module, generated once per process: BN254's Fq, Fq2 and Fr, the curves G1
 * and G2, and the scalar-field steps of a proof. Every thread instantiates the same module over one
 * shared memory; what differs between threads is only the scratch base each sets.
 */
import { CurveCode } from '../wasm/curve-code.ts';
import { FftCode } from '../wasm/fft-code.ts';
import { MontgomeryField } from '../wasm/field-code.ts';
import { Fq2Field } from '../wasm/fq2-code.ts';
import { Layout } from '../wasm/layout.ts';
import { ModuleBuilder } from '../wasm/module-builder.ts';

/** BN254's base field modulus q and scalar field order r. */
export const FQ_MODULUS = 0x30644e72e131a029b85045b68181585d97816a916871ca8d3c208c16d87cfd47n;
export const FR_MODULUS = 0x30644e72e131a029b85045b68181585d2833e84879b9709143e1f593f0000001n;

/** WebAssembly pages (64 KiB) the shared memory may grow to: 2 GiB. */
export const MAX_PAGES = 32768;

export interface EngineCode {
  readonly bytes: Uint8Array;
  readonly constants: readonly { readonly address: number; readonly bytes: Uint8Array }[];
  /** Scratch bytes each thread needs. */
  readonly scratchBytes: number;
  /** Addresses of field constants (Montgomery one of Fr, …) for the runtime. */
  readonly frOne: number;
}

let built: EngineCode | undefined;

export function engineCode(): EngineCode {
  if (built) return built;
  const m = new ModuleBuilder({ shared: true, minPages: 1, maxPages: MAX_PAGES });
  const layout = new Layout(m);
  const fq = new MontgomeryField(m, layout, 'fq', FQ_MODULUS);
  const fq2 = new Fq2Field(m, layout, 'fq2', fq);
  const fr = new MontgomeryField(m, layout, 'fr', FR_MODULUS);
  new CurveCode(m, layout, 'g1', fq);
  new CurveCode(m, layout, 'g2', fq2);
  new FftCode(m, layout, fr);
  const setScratch = m.fn('setScratch', ['i32']);
  setScratch.get(0).globalSet(layout.scratchBase);
  built = {
    bytes: m.build(),
    constants: layout.constants,
    scratchBytes: layout.scratchBytes,
    frOne: fr.oneAddress,
  };
  return built;
}
