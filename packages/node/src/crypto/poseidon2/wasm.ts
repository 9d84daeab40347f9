/**
 * The fast Poseidon2: the WebAssembly module of wasm-gen.ts, generated and compiled synchronously at
 * import, with a cheap bigint boundary. Each field element crosses as 4 little-endian u64 words through
 * a BigUint64Array view of the module memory (3 BigInt shifts per element each way); limb splitting,
 * Montgomery conversion and the final canonical reduction all happen inside WebAssembly.
 */
import { FieldError, FR_MODULUS, type Fr } from '../field.ts';
import { type BoundReport, buildPoseidon2Wasm, LAYOUT, LIMB_BITS, LIMBS } from './wasm-gen.ts';

// The project compiles without the DOM lib, which is where TypeScript declares WebAssembly.
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { readonly exports: unknown };
}
interface Poseidon2Exports {
  readonly memory: WasmMemory;
  permute(): void;
  digest(n: number): void;
  merkle(n: number, indexPtr: number): void;
  toMont(dst: number, src: number): void;
  fromMont(dst: number, src: number): void;
  tmul(): void;
  tsqr(): void;
  treduce(): void;
}

const PAGE = 65536;
const ELEMENT_BYTES = 32;

const tGen = performance.now();
const built = buildPoseidon2Wasm();
const tCompile = performance.now();
const wasmApi = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;
const wasm = new wasmApi.Instance(new wasmApi.Module(built.bytes), {}).exports as Poseidon2Exports;
const tDone = performance.now();

/** What module load cost: generating the binary, then compiling and instantiating it. */
export const WASM_LOAD_STATS: {
  readonly generateMs: number;
  readonly compileMs: number;
  readonly bytes: number;
} = Object.freeze({ generateMs: tCompile - tGen, compileMs: tDone - tCompile, bytes: built.bytes.length });

let words = new BigUint64Array(wasm.memory.buffer);
const IO = LAYOUT.io / 8;

/** Makes room for `elements` I/O elements plus `extraWords` u64 words after them. */
function reserve(elements: number, extraWords = 0): void {
  const need = LAYOUT.io + elements * ELEMENT_BYTES + extraWords * 8;
  const have = wasm.memory.buffer.byteLength;
  if (need > have) {
    wasm.memory.grow(Math.ceil((need - have) / PAGE));
    words = new BigUint64Array(wasm.memory.buffer);
  }
}

function nonCanonical(x: unknown): never {
  if (typeof x !== 'bigint') throw new FieldError(`field element must be a bigint, got ${typeof x}`);
  throw new FieldError('value is not a canonical field element (must be 0 <= x < p)');
}

/** Writes a canonical field element into I/O slot `slot` (the typed array keeps the low 64 bits). */
function put(slot: number, x: Fr): void {
  if (typeof x !== 'bigint' || x < 0n || x >= FR_MODULUS) nonCanonical(x);
  const k = IO + 4 * slot;
  words[k] = x;
  words[k + 1] = x >> 64n;
  words[k + 2] = x >> 128n;
  words[k + 3] = x >> 192n;
}

function get(slot: number): Fr {
  const k = IO + 4 * slot;
  return words[k]! | (words[k + 1]! << 64n) | (words[k + 2]! << 128n) | (words[k + 3]! << 192n);
}

/** The Poseidon2 permutation (t = 3) on canonical field elements. */
export function permute(state: readonly [Fr, Fr, Fr]): [Fr, Fr, Fr] {
  if (state.length !== 3) throw new RangeError(`Poseidon2 state must have 3 elements, got ${state.length}`);
  put(0, state[0]);
  put(1, state[1]);
  put(2, state[2]);
  wasm.permute();
  return [get(0), get(1), get(2)];
}

/** The sponge hash of reference/crypto.md §4.3 (absorb each input, then the padding 1; squeeze lane 0). */
export function digest(inputs: readonly Fr[]): Fr {
  const n = inputs.length;
  reserve(n);
  for (let i = 0; i < n; i++) put(i, inputs[i]!);
  wasm.digest(n);
  return get(0);
}

/** perm([left, right, 0])[0]: Merkle nodes and key derivation. */
export function compress(left: Fr, right: Fr): Fr {
  put(0, left);
  put(1, right);
  words[IO + 8] = 0n; // index word: bit 0 = 0, so `left` is the left child
  wasm.merkle(1, LAYOUT.io + 2 * ELEMENT_BYTES);
  return get(0);
}

/**
 * Root of a Merkle path: at level i the node is the left child (parent = compress(node, sibling_i)) when
 * bit i of `index` (least significant first) is 0, else the right child (compress(sibling_i, node)).
 * `index` must satisfy 0 <= index < 2^siblings.length. The whole path runs in one WebAssembly call.
 */
export function merkleRoot(leaf: Fr, siblings: readonly Fr[], index: bigint): Fr {
  const n = siblings.length;
  if (typeof index !== 'bigint' || index < 0n || index >> BigInt(n) !== 0n) {
    throw new RangeError(`Merkle index must be a bigint in [0, 2^${n}), got ${String(index)}`);
  }
  const indexWords = Math.ceil(n / 64);
  reserve(n + 1, Math.max(indexWords, 1));
  put(0, leaf);
  for (let i = 0; i < n; i++) put(i + 1, siblings[i]!);
  const idx = IO + 4 * (n + 1);
  words[idx] = index;
  for (let w = 1; w < indexWords; w++) words[idx + w] = index >> BigInt(64 * w);
  wasm.merkle(n, idx * 8);
  return get(0);
}

const LIMB_MASK = (1n << BigInt(LIMB_BITS)) - 1n;

function putLimbs(byteOffset: number, v: bigint): void {
  const k = byteOffset / 8;
  for (let j = 0; j < LIMBS - 1; j++) words[k + j] = (v >> BigInt(LIMB_BITS * j)) & LIMB_MASK;
  words[k + LIMBS - 1] = v >> BigInt(LIMB_BITS * (LIMBS - 1));
}

function getLimbs(byteOffset: number): bigint {
  const k = byteOffset / 8;
  let v = 0n;
  for (let j = LIMBS - 1; j >= 0; j--) v = (v << BigInt(LIMB_BITS)) + words[k + j]!;
  return v;
}

/**
 * Test access to the arithmetic kernels (the very emitters the permutation is built from) on raw
 * Montgomery-domain integers, and to the bounds the generator proved. Not for production use.
 */
export const __testing = {
  bounds: built.bounds as Readonly<BoundReport>,
  /** Montgomery product a·b·R^-1 (mod p), as the unreduced integer the kernel returns. a, b < R. */
  montMul(a: bigint, b: bigint): bigint {
    putLimbs(LAYOUT.testA, a);
    putLimbs(LAYOUT.testB, b);
    wasm.tmul();
    return getLimbs(LAYOUT.testOut);
  },
  montSqr(a: bigint): bigint {
    putLimbs(LAYOUT.testA, a);
    wasm.tsqr();
    return getLimbs(LAYOUT.testOut);
  },
  /** Montgomery limbs -> canonical: v·R^-1 mod p, for any v < R (exercises the final subtraction). */
  fromMont(v: bigint): bigint {
    putLimbs(LAYOUT.testA, v);
    wasm.fromMont(LAYOUT.io, LAYOUT.testA);
    return get(0);
  },
  /** Any 256-bit integer x (as 4 words) -> its Montgomery limbs, congruent to x·R, unreduced. */
  toMont(x: bigint): bigint {
    const k = IO;
    for (let w = 0; w < 4; w++) words[k + w] = x >> BigInt(64 * w);
    wasm.toMont(LAYOUT.testOut, LAYOUT.io);
    return getLimbs(LAYOUT.testOut);
  },
  /** The partial-round reduction: v - q·p for the kernel's estimate q. v <= REDUCE_INPUT_LIMIT. */
  reduce(v: bigint): bigint {
    putLimbs(LAYOUT.testA, v);
    wasm.treduce();
    return getLimbs(LAYOUT.testOut);
  },
};
