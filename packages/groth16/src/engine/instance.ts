/**
 * One thread's instance of the engine module over the shared memory, with typed views that follow
 * the memory as it grows, the conversions between field elements and their 29-bit limbs, and the
 * bump allocator the coordinating thread places keys and proof buffers with.
 */
import { ELEMENT_BYTES, LIMBS } from '../wasm/field-code.ts';
import { CONSTANTS_BYTES } from '../wasm/layout.ts';
import { type EngineCode, engineCode, MAX_PAGES } from './code.ts';

type Fn = (...args: number[]) => number;
export type EngineExports = Readonly<Record<string, Fn>>;

const PAGE = 65536;

export class EngineInstance {
  readonly ex: EngineExports;
  private buffer: ArrayBufferLike | undefined;
  private views: { u8: Uint8Array; u32: Uint32Array; i32: Int32Array; dv: DataView } | undefined;

  constructor(
    readonly memory: WebAssembly.Memory,
    module: WebAssembly.Module,
    /** This thread's scratch region. */
    readonly scratch: number,
  ) {
    const instance = new WebAssembly.Instance(module, { env: { memory } });
    this.ex = instance.exports as unknown as EngineExports;
    this.ex.setScratch!(scratch);
  }

  private v(): NonNullable<EngineInstance['views']> {
    const b = this.memory.buffer;
    if (b !== this.buffer || this.views === undefined) {
      this.buffer = b;
      this.views = {
        u8: new Uint8Array(b),
        u32: new Uint32Array(b),
        i32: new Int32Array(b),
        dv: new DataView(b),
      };
    }
    return this.views;
  }
  get u8(): Uint8Array {
    return this.v().u8;
  }
  get u32(): Uint32Array {
    return this.v().u32;
  }
  get i32(): Int32Array {
    return this.v().i32;
  }
  get dv(): DataView {
    return this.v().dv;
  }

  /** Writes a value below 2^261 as limbs (no conversion: the caller says what form it is in). */
  writeLimbs(at: number, v: bigint): void {
    const u32 = this.u32;
    let x = v;
    for (let i = 0; i < LIMBS; i++) {
      u32[(at >>> 2) + i] = Number(x & 0x1fffffffn);
      x >>= 29n;
    }
  }

  readLimbs(at: number): bigint {
    const u32 = this.u32;
    let v = 0n;
    for (let i = LIMBS - 1; i >= 0; i--) v = (v << 29n) | BigInt(u32[(at >>> 2) + i]!);
    return v;
  }

  call(name: string, ...args: number[]): number {
    const f = this.ex[name];
    if (!f) throw new Error(`the engine has no ${name}`);
    return f(...args);
  }
}

/**
 * Unpacks `count` 32-byte little-endian values into limbs at `dst` (36 bytes each), without reducing
 * them: the form snarkjs and circom files hold field elements in.
 */
export function unpackLe256(src: Uint8Array, count: number, u32: Uint32Array, dst: number): void {
  const words = new Uint32Array(9);
  const dv = new DataView(src.buffer, src.byteOffset, src.byteLength);
  for (let k = 0; k < count; k++) {
    for (let w = 0; w < 8; w++) words[w] = dv.getUint32(k * 32 + w * 4, true);
    words[8] = 0;
    const out = (dst >>> 2) + k * LIMBS;
    for (let l = 0; l < LIMBS; l++) {
      const bit = l * 29;
      const w = bit >>> 5;
      const sh = bit & 31;
      let v = words[w]! >>> sh;
      if (sh > 3) v |= words[w + 1]! << (32 - sh);
      u32[out + l] = v & 0x1fffffff;
    }
  }
}

/**
 * The shared memory and where things are in it: constants, each thread's scratch, then a bump
 * allocator that grows the memory as keys and buffers are placed.
 */
export class SharedHeap {
  readonly memory: WebAssembly.Memory;
  readonly code: EngineCode;
  private top: number;

  constructor(threads: number) {
    this.code = engineCode();
    const scratch = (this.code.scratchBytes + 63) & ~63;
    this.top = CONSTANTS_BYTES + scratch * (threads + 1);
    this.memory = new WebAssembly.Memory({
      initial: Math.ceil(this.top / PAGE) + 1,
      maximum: MAX_PAGES,
      shared: true,
    });
    const u8 = new Uint8Array(this.memory.buffer);
    for (const c of this.code.constants) u8.set(c.bytes, c.address);
  }

  /** The scratch region of thread `t` (0 is the coordinating thread). */
  scratchOf(t: number): number {
    const scratch = (this.code.scratchBytes + 63) & ~63;
    return CONSTANTS_BYTES + scratch * t;
  }

  /** `bytes` of fresh memory (64-byte aligned, zeroed as the memory grows zeroed). */
  alloc(bytes: number): number {
    const at = this.top;
    this.top = at + ((bytes + 63) & ~63);
    const need = Math.ceil(this.top / PAGE) - this.memory.buffer.byteLength / PAGE;
    if (need > 0) this.memory.grow(need);
    return at;
  }

  /** Bytes in use. */
  get used(): number {
    return this.top;
  }
}

export const FIELD_BYTES = ELEMENT_BYTES;
