/**
 * A minimal WebAssembly binary encoder: just enough to emit the Poseidon2 module from TypeScript at
 * load time (types, functions with locals, one memory, exports, active data segments, and the
 * integer/memory/control instructions the generator uses). Binary format: WebAssembly Core
 * Specification 1.0, §5.
 */

export const I32 = 0x7f;
export const I64 = 0x7e;
export type ValType = typeof I32 | typeof I64;

/** Instruction opcodes used by the generator. */
export const Op = {
  block: 0x02,
  loop: 0x03,
  if: 0x04,
  else: 0x05,
  end: 0x0b,
  br: 0x0c,
  brIf: 0x0d,
  call: 0x10,
  select: 0x1b,
  localGet: 0x20,
  localSet: 0x21,
  localTee: 0x22,
  i64Load: 0x29,
  i64Store: 0x37,
  i32Const: 0x41,
  i64Const: 0x42,
  i32Eqz: 0x45,
  i32Ne: 0x47,
  i32LtU: 0x49,
  i64Eqz: 0x50,
  i64LtS: 0x53,
  i32Add: 0x6a,
  i32Sub: 0x6b,
  i32Mul: 0x6c,
  i32And: 0x71,
  i32Shl: 0x74,
  i32ShrU: 0x76,
  i64Add: 0x7c,
  i64Sub: 0x7d,
  i64Mul: 0x7e,
  i64And: 0x83,
  i64Or: 0x84,
  i64Shl: 0x86,
  i64ShrS: 0x87,
  i64ShrU: 0x88,
  i32WrapI64: 0xa7,
  i64ExtendI32U: 0xad,
} as const;

/** Empty block type (a block/loop/if that takes and leaves nothing). */
export const BLOCK_VOID = 0x40;

/** A growable byte buffer (number[] pushes of ~100 KB cost more than the whole generation). */
export class ByteWriter {
  private buf = new Uint8Array(1024);
  length = 0;

  push(byte: number): void {
    if (this.length === this.buf.length) this.grow(1);
    this.buf[this.length++] = byte;
  }

  append(bytes: Uint8Array | ByteWriter): void {
    const src = bytes instanceof ByteWriter ? bytes.bytes() : bytes;
    if (this.length + src.length > this.buf.length) this.grow(src.length);
    this.buf.set(src, this.length);
    this.length += src.length;
  }

  /** A view of the bytes written so far (valid until the next write). */
  bytes(): Uint8Array {
    return this.buf.subarray(0, this.length);
  }

  private grow(extra: number): void {
    const next = new Uint8Array(Math.max(this.buf.length * 2, this.length + extra));
    next.set(this.buf.subarray(0, this.length));
    this.buf = next;
  }
}

type Sink = { push(byte: number): void };

/** Appends the unsigned LEB128 encoding of a non-negative safe integer. */
export function uleb(out: Sink, value: number): void {
  if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`uleb: bad value ${value}`);
  let v = value;
  for (;;) {
    const byte = v % 128;
    v = Math.floor(v / 128);
    if (v === 0) {
      out.push(byte);
      return;
    }
    out.push(byte | 0x80);
  }
}

/** Appends the signed LEB128 encoding of an integer (number: safe integers only; bigint: any i64). */
export function sleb(out: Sink, value: number | bigint): void {
  if (typeof value === 'number' && Number.isSafeInteger(value)) {
    let n = value;
    for (;;) {
      const byte = n & 0x7f; // the low 7 bits of the two's complement form
      n = Math.floor(n / 128); // arithmetic shift
      const signBit = (byte & 0x40) !== 0;
      if ((n === 0 && !signBit) || (n === -1 && signBit)) {
        out.push(byte);
        return;
      }
      out.push(byte | 0x80);
    }
  }
  let v = BigInt(value);
  if (v < -(1n << 63n) || v >= 1n << 64n) throw new RangeError(`sleb: ${v} does not fit in 64 bits`);
  if (v >= 1n << 63n) v -= 1n << 64n; // an i64 constant given as its unsigned value
  for (;;) {
    const byte = Number(v & 0x7fn);
    v >>= 7n; // arithmetic shift
    const signBit = (byte & 0x40) !== 0;
    if ((v === 0n && !signBit) || (v === -1n && signBit)) {
      out.push(byte);
      return;
    }
    out.push(byte | 0x80);
  }
}

function encodeName(out: ByteWriter, name: string): void {
  const b = new TextEncoder().encode(name);
  uleb(out, b.length);
  out.append(b);
}

function section(out: ByteWriter, id: number, body: ByteWriter): void {
  out.push(id);
  uleb(out, body.length);
  out.append(body);
}

/**
 * Builds one function body. Locals are allocated with `local()`; instructions are appended by the
 * helpers. `muted` suppresses emission (used to re-run a loop body's generator only for its bound
 * bookkeeping, see wasm-gen.ts) while still handing out the same local indices.
 */
export class FunctionBuilder {
  readonly code = new ByteWriter();
  private readonly locals: ValType[] = [];
  muted = false;

  constructor(
    readonly params: readonly ValType[],
    readonly results: readonly ValType[],
  ) {}

  /** Index of the i-th parameter. */
  param(i: number): number {
    if (i < 0 || i >= this.params.length) throw new RangeError('no such parameter');
    return i;
  }

  local(type: ValType): number {
    this.locals.push(type);
    return this.params.length + this.locals.length - 1;
  }

  locals64(n: number): number[] {
    return Array.from({ length: n }, () => this.local(I64));
  }

  op(a: number, b?: number, c?: number, d?: number): this {
    if (this.muted) return this;
    this.code.push(a);
    if (b !== undefined) this.code.push(b);
    if (c !== undefined) this.code.push(c);
    if (d !== undefined) this.code.push(d);
    return this;
  }

  get(i: number): this {
    if (this.muted) return this;
    this.code.push(Op.localGet);
    uleb(this.code, i);
    return this;
  }

  set(i: number): this {
    if (this.muted) return this;
    this.code.push(Op.localSet);
    uleb(this.code, i);
    return this;
  }

  tee(i: number): this {
    if (this.muted) return this;
    this.code.push(Op.localTee);
    uleb(this.code, i);
    return this;
  }

  i32(v: number): this {
    if (this.muted) return this;
    this.code.push(Op.i32Const);
    sleb(this.code, v | 0);
    return this;
  }

  i64(v: number | bigint): this {
    if (this.muted) return this;
    this.code.push(Op.i64Const);
    sleb(this.code, v);
    return this;
  }

  /** i64.load with natural alignment; the address is on the stack, `offset` is the static offset. */
  load64(offset: number): this {
    if (this.muted) return this;
    this.code.push(Op.i64Load);
    this.code.push(3);
    uleb(this.code, offset);
    return this;
  }

  /** i64.store: stack [address, value]. */
  store64(offset: number): this {
    if (this.muted) return this;
    this.code.push(Op.i64Store);
    this.code.push(3);
    uleb(this.code, offset);
    return this;
  }

  call(funcIndex: number): this {
    if (this.muted) return this;
    this.code.push(Op.call);
    uleb(this.code, funcIndex);
    return this;
  }

  /** The serialized body: local declarations (run-length grouped) then the code and `end`. */
  encode(out: ByteWriter): void {
    const head = new ByteWriter();
    const groups: [number, ValType][] = [];
    for (const t of this.locals) {
      const last = groups[groups.length - 1];
      if (last && last[1] === t) last[0]++;
      else groups.push([1, t]);
    }
    uleb(head, groups.length);
    for (const [n, t] of groups) {
      uleb(head, n);
      head.push(t);
    }
    uleb(out, head.length + this.code.length + 1);
    out.append(head);
    out.append(this.code);
    out.push(Op.end);
  }
}

interface FuncEntry {
  readonly typeIndex: number;
  readonly body: FunctionBuilder;
  readonly exportName: string | undefined;
}

/** A module with one memory (exported as "memory"), functions, exports and active data segments. */
export class ModuleBuilder {
  private readonly types: string[] = [];
  private readonly funcs: FuncEntry[] = [];
  private readonly data: { offset: number; bytes: Uint8Array }[] = [];

  constructor(private readonly memoryPages: number) {}

  private typeIndex(params: readonly ValType[], results: readonly ValType[]): number {
    const key = `${params.join(',')}:${results.join(',')}`;
    let i = this.types.indexOf(key);
    if (i < 0) {
      this.types.push(key);
      i = this.types.length - 1;
    }
    return i;
  }

  /** Declares a function; its index is valid for `call` right away, its body may be filled later. */
  addFunction(body: FunctionBuilder, exportName?: string): number {
    this.funcs.push({ typeIndex: this.typeIndex(body.params, body.results), body, exportName });
    return this.funcs.length - 1;
  }

  addData(offset: number, bytes: Uint8Array): void {
    this.data.push({ offset, bytes });
  }

  encode(): Uint8Array {
    const out = new ByteWriter();
    out.append(Uint8Array.of(0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00));

    const types = new ByteWriter();
    uleb(types, this.types.length);
    for (const key of this.types) {
      const [p, r] = key.split(':') as [string, string];
      const ps = p === '' ? [] : p.split(',').map(Number);
      const rs = r === '' ? [] : r.split(',').map(Number);
      types.push(0x60);
      uleb(types, ps.length);
      for (const t of ps) types.push(t);
      uleb(types, rs.length);
      for (const t of rs) types.push(t);
    }
    section(out, 1, types);

    const funcs = new ByteWriter();
    uleb(funcs, this.funcs.length);
    for (const f of this.funcs) uleb(funcs, f.typeIndex);
    section(out, 3, funcs);

    const mem = new ByteWriter();
    mem.push(1); // one memory
    mem.push(0); // limits without maximum
    uleb(mem, this.memoryPages);
    section(out, 5, mem);

    const exports = new ByteWriter();
    const exported = this.funcs.map((f, i) => [f.exportName, i] as const).filter(([n]) => n !== undefined);
    uleb(exports, exported.length + 1);
    encodeName(exports, 'memory');
    exports.push(0x02);
    exports.push(0x00);
    for (const [name, i] of exported) {
      encodeName(exports, name!);
      exports.push(0x00);
      uleb(exports, i);
    }
    section(out, 7, exports);

    const code = new ByteWriter();
    uleb(code, this.funcs.length);
    for (const f of this.funcs) f.body.encode(code);
    section(out, 10, code);

    if (this.data.length > 0) {
      const data = new ByteWriter();
      uleb(data, this.data.length);
      for (const d of this.data) {
        data.push(0x00); // active segment of memory 0, offset expression
        data.push(Op.i32Const);
        sleb(data, d.offset);
        data.push(Op.end);
        uleb(data, d.bytes.length);
        data.append(d.bytes);
      }
      section(out, 11, data);
    }
    return out.bytes().slice();
  }
}
