/**
 * Where generated code keeps what is not in locals: constants at fixed addresses at the start of the
 * memory (written once by the engine, the same for every thread), and scratch space at fixed offsets
 * from a per-instance base (a global each thread sets to its own region), one region per function
 * that needs one, so that nested calls never share bytes.
 */
import type { FunctionBuilder, ModuleBuilder } from './module-builder.ts';

/** Bytes reserved for constants at address 0. */
export const CONSTANTS_BYTES = 64 * 1024;

export class Layout {
  private constantsEnd = 16;
  private scratchEnd = 0;
  /** The constants' bytes, by address, for the engine to write. */
  readonly constants: { readonly address: number; readonly bytes: Uint8Array }[] = [];
  /** The global holding this instance's scratch base. */
  readonly scratchBase: number;

  constructor(module: ModuleBuilder) {
    this.scratchBase = module.global();
  }

  /** Places bytes among the constants; their address. */
  constant(bytes: Uint8Array): number {
    const address = this.constantsEnd;
    this.constantsEnd += (bytes.length + 7) & ~7;
    if (this.constantsEnd > CONSTANTS_BYTES) throw new Error('the engine constants outgrew their space');
    this.constants.push({ address, bytes });
    return address;
  }

  /** A region of `bytes` of each instance's scratch space; its offset from the scratch base. */
  scratch(bytes: number): number {
    const at = this.scratchEnd;
    this.scratchEnd += (bytes + 7) & ~7;
    return at;
  }

  /** The scratch space one thread needs. */
  get scratchBytes(): number {
    return this.scratchEnd;
  }

  /** Pushes the address of a scratch region of this instance. */
  pushScratch(f: FunctionBuilder, offset: number): void {
    f.globalGet(this.scratchBase).i32Const(offset).i32Add();
  }
}
