// Minimal declarations for the parts of ffjavascript (0.3.x, no bundled types) used by
// src/crypto/groth16/verifier.ts: the BN254 curve built on wasmcurves' WebAssembly module.
declare module 'ffjavascript' {
  /** The WebAssembly exports of the wasmcurves bn128 module (pointers into its memory; all i32). */
  export type WasmExports = Record<string, (...args: number[]) => number>;

  export interface ThreadManager {
    readonly memory: WebAssembly.Memory;
    readonly instance: WebAssembly.Instance & { exports: WasmExports };
    u8: Uint8Array;
    u32: Uint32Array;
    /** Pointer to the Fp12 one. */
    readonly pOneT: number;
    /** Bump allocator in the main instance's memory (u32[0] is the free pointer); never grows it. */
    alloc(length: number): number;
  }

  export interface Bn128Curve {
    readonly q: bigint;
    readonly r: bigint;
    readonly name: string;
    readonly tm: ThreadManager;
    /** Bytes of a prepared G1 / G2 point (Miller-loop input). */
    readonly prePSize: number;
    readonly preQSize: number;
    terminate(): Promise<void>;
  }

  /** `singleThread = true`: no worker threads; every call runs on the calling thread. */
  export function buildBn128(singleThread?: boolean, plugins?: unknown): Promise<Bn128Curve>;
}
