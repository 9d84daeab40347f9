import assert from 'node:assert/strict';
import { test } from 'node:test';
import wabtInit from 'wabt';
import { FieldError, FR_MODULUS, type Fr, frFromAscii, frFromBytes } from '../../../../src/crypto/field.ts';
import {
  EXTERNAL_CONSTANTS_BEGIN,
  EXTERNAL_CONSTANTS_END,
  INTERNAL_CONSTANTS,
} from '../../../../src/crypto/poseidon2/constants.ts';
import { compress, digest, merkleRoot, permute } from '../../../../src/crypto/poseidon2/index.ts';
import { compressBigint, digestBigint, permuteBigint } from '../../../../src/crypto/poseidon2/reference.ts';
import { __testing, WASM_LOAD_STATS } from '../../../../src/crypto/poseidon2/wasm.ts';
import { ByteWriter, sleb, uleb } from '../../../../src/crypto/poseidon2/wasm-encoder.ts';
import {
  buildPoseidon2Wasm,
  ENTRY_BOUND,
  LIMB_BITS,
  LIMBS,
  montBound,
  R,
  REDUCE_INPUT_LIMIT,
  reduceBound,
} from '../../../../src/crypto/poseidon2/wasm-gen.ts';

const P = FR_MODULUS;
type State = [Fr, Fr, Fr];

/** splitmix64 over BigInt: reproducible pseudo-random values. */
function prng(seed: bigint): { u64(): bigint; below(n: bigint): bigint; fr(): Fr; int(n: number): number } {
  let s = seed & 0xffffffffffffffffn;
  const M = 0xffffffffffffffffn;
  const u64 = (): bigint => {
    s = (s + 0x9e3779b97f4a7c15n) & M;
    let z = s;
    z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & M;
    z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & M;
    return z ^ (z >> 31n);
  };
  const bits = (n: number): bigint => {
    let v = 0n;
    for (let i = 0; i < n; i += 64) v = (v << 64n) | u64();
    return v & ((1n << BigInt(n)) - 1n);
  };
  const below = (n: bigint): bigint => {
    const len = n.toString(2).length;
    for (;;) {
      const v = bits(len);
      if (v < n) return v;
    }
  };
  return { u64, below, fr: () => below(P), int: (n) => Number(below(BigInt(n))) };
}

const modPow = (b: bigint, e: bigint): bigint => {
  let r = 1n;
  let x = b % P;
  let k = e;
  while (k > 0n) {
    if (k & 1n) r = (r * x) % P;
    x = (x * x) % P;
    k >>= 1n;
  }
  return r;
};
const R_INV = modPow(R % P, P - 2n);

/** Edge values: small, near p, powers of two around the limb boundaries, all-ones limbs, Montgomery edges. */
const EDGES: Fr[] = (() => {
  const set = new Set<bigint>([0n, 1n, 2n, 3n, P - 1n, P - 2n, (P - 1n) / 2n, (P + 1n) / 2n]);
  const ks = new Set<number>([63, 64, 65, 127, 128, 191, 192, 252, 253]);
  for (let j = 1; j < LIMBS; j++) for (const d of [-1, 0, 1]) ks.add(LIMB_BITS * j + d);
  for (const k of ks) {
    for (const v of [1n << BigInt(k), (1n << BigInt(k)) - 1n, (1n << BigInt(k)) + 1n]) if (v < P) set.add(v);
  }
  // Limbs all ones (as many as fit), and the largest value with limbs 0..7 all ones below p.
  const pTop = P >> 232n;
  set.add((1n << 232n) - 1n);
  set.add(pTop * (1n << 232n) - 1n);
  set.add(P - (1n << 232n));
  // Alternating limb patterns.
  let alt = 0n;
  for (let j = 0; j < LIMBS - 1; j += 2) alt |= ((1n << 29n) - 1n) << BigInt(29 * j);
  set.add(alt);
  // Values whose Montgomery form is small or near p: x = k·R^-1.
  for (const k of [1n, 2n, P - 1n, P - 2n, (1n << 232n) - 1n]) set.add((k * R_INV) % P);
  for (const v of set) assert.ok(v >= 0n && v < P);
  return [...set];
})();

// ---------------------------------------------------------------------------------------------------
// Reference vectors (reference/crypto.md §4.4, §5), on both implementations

const impls = [
  { name: 'wasm', permute, digest, compress },
  { name: 'bigint', permute: permuteBigint, digest: digestBigint, compress: compressBigint },
] as const;

const NOTE_ID_V1 = 232989242343357190262606n;

for (const impl of impls) {
  test(`poseidon2 ${impl.name}: crypto.md §4.4 vectors`, () => {
    assert.equal(
      impl.digest([0n]),
      14440562208246903332530876912784724937356723424375796042690034647976142142243n,
    );
    assert.equal(
      impl.digest([1n]),
      13955187255749411516377601857453481686854514827536340092448578824571923228920n,
    );
    assert.equal(
      impl.digest([0n, 0n]),
      14628790903668924121747280216643356178740756932733894594323650293252618457042n,
    );
    assert.equal(
      impl.digest([1n, 2n]),
      14118544982895877636855211757199904519359053761360294109973292038354361461611n,
    );
    assert.equal(
      impl.compress(0n, 0n),
      21177166670744647784289648293577786481357446166129397094207318338605633126018n,
    );
    assert.equal(
      impl.compress(1n, 0n),
      2820430044171165092709918704747590965614342875549110429217681435604321658469n,
    );
    assert.equal(
      impl.compress(0n, 1n),
      15449469107951025862283679587511638593643295575495923463032662929748907033596n,
    );
    assert.deepEqual(impl.permute([0n, 1n, 2n]), [
      0x0bb61d24daca55eebcb1929a82650f328134334da98ea4f847f760054f4a3033n,
      0x303b6f7c86d043bfcbcc80214f26a30277a15d3f74ca654992defe7ff8d03570n,
      0x1ed25194542b12eef8617361c3ba7c52e660b145994427cc86296242cf766ec8n,
    ]);
    assert.equal(frFromAscii('NOTE_ID_V1'), NOTE_ID_V1);
    assert.equal(
      impl.digest([NOTE_ID_V1, 0n, 0n, 100n, 456n]),
      7557997998773395727489806263315711564569794358720487479582958381680367418066n,
    );
  });

  test(`poseidon2 ${impl.name}: crypto.md §5 ZK key derivation pk = compress(KDF, sk)`, () => {
    const KDF = 4605003n;
    assert.equal(frFromAscii('KDF'), KDF);
    const pairs = [
      [
        '3108143181e46ec98f47462139afd3d5ecf990b8e90bd4974ffbe6174d645c29',
        'aefaa7bb26898c25ded42a97ddaf5abc2d8ea1c4d58e48d3f8316dda693a8706',
      ],
      [
        '6b9884544c5e4a3570e4d5186ebeeeca123d4837b386196038d689df5fff0a1c',
        '6e423f883ff8bb0991a368dc3f92ba5fad22f63ce03851525d74c11e447ce024',
      ],
      [
        'eae73ed3673e15bcf8b5bd9fa2d156aa5a8569c9c4515f33cf06b4a232ec9102',
        'b0b3bc05150280637b525a929a8635ee582fa9614a26e1976dbef3c33434eb25',
      ],
    ] as const;
    for (const [skHex, pkHex] of pairs) {
      const sk = frFromBytes(Buffer.from(skHex, 'hex'));
      const pk = frFromBytes(Buffer.from(pkHex, 'hex'));
      assert.equal(impl.compress(KDF, sk), pk);
    }
  });
}

test('poseidon2 constants: counts and canonical values', () => {
  assert.equal(EXTERNAL_CONSTANTS_BEGIN.length, 4);
  assert.equal(EXTERNAL_CONSTANTS_END.length, 4);
  assert.equal(INTERNAL_CONSTANTS.length, 56);
  const all = [...EXTERNAL_CONSTANTS_BEGIN.flat(), ...INTERNAL_CONSTANTS, ...EXTERNAL_CONSTANTS_END.flat()];
  assert.equal(all.length, 80);
  for (const c of all) assert.ok(c >= 0n && c < P);
  assert.equal(new Set(all).size, 80);
});

// ---------------------------------------------------------------------------------------------------
// Fast vs bigint

test('poseidon2 wasm = bigint: 3000 random states (seeded)', () => {
  const rnd = prng(0x5eed_0001n);
  for (let i = 0; i < 3000; i++) {
    const s: State = [rnd.fr(), rnd.fr(), rnd.fr()];
    assert.deepEqual(permute(s), permuteBigint(s), `state ${s.join(', ')}`);
  }
});

test('poseidon2 wasm = bigint: edge values in every lane and in pairs', () => {
  const rnd = prng(0x5eed_0002n);
  let n = 0;
  for (const e of EDGES) {
    for (const other of [0n, P - 1n, rnd.fr()]) {
      for (const s of [
        [e, other, other],
        [other, e, other],
        [other, other, e],
        [e, e, e],
      ] as State[]) {
        assert.deepEqual(permute(s), permuteBigint(s), `state ${s.join(', ')}`);
        n++;
      }
    }
  }
  for (let i = 0; i < EDGES.length; i++) {
    for (let j = 0; j < EDGES.length; j++) {
      const s: State = [EDGES[i]!, EDGES[j]!, EDGES[(i + j) % EDGES.length]!];
      assert.deepEqual(permute(s), permuteBigint(s), `state ${s.join(', ')}`);
      n++;
    }
  }
  assert.ok(n > 1000);
});

test('poseidon2 wasm = bigint: 10,000 chained permutations', () => {
  let fast: State = [0n, 1n, P - 1n];
  let slow: State = [0n, 1n, P - 1n];
  for (let i = 0; i < 10_000; i++) {
    fast = permute(fast);
    slow = permuteBigint(slow);
    if (i % 1000 === 999) assert.deepEqual(fast, slow, `after ${i + 1} permutations`);
  }
  assert.deepEqual(fast, slow);
});

test('poseidon2 wasm = bigint: digest of 0..10 inputs (random and edge), and long inputs', () => {
  const rnd = prng(0x5eed_0003n);
  for (let len = 0; len <= 10; len++) {
    for (let rep = 0; rep < 20; rep++) {
      const xs = Array.from({ length: len }, () =>
        rep % 4 === 0 ? EDGES[rnd.int(EDGES.length)]! : rnd.fr(),
      );
      assert.equal(digest(xs), digestBigint(xs), `inputs ${xs.join(', ')}`);
    }
    const top = Array.from({ length: len }, () => P - 1n);
    assert.equal(digest(top), digestBigint(top));
  }
  // Longer than the initial I/O area (1792 elements): the memory grows.
  const long = Array.from({ length: 2500 }, () => rnd.fr());
  assert.equal(digest(long), digestBigint(long));
  assert.equal(
    digest([1n, 2n]),
    14118544982895877636855211757199904519359053761360294109973292038354361461611n,
  );
});

test('poseidon2 wasm = bigint: compress on edge pairs', () => {
  for (const a of EDGES)
    for (const b of [0n, 1n, P - 1n, a]) assert.equal(compress(a, b), compressBigint(a, b));
});

function merkleBigint(leaf: Fr, siblings: readonly Fr[], index: bigint): Fr {
  let node = leaf;
  siblings.forEach((sib, i) => {
    node = ((index >> BigInt(i)) & 1n) === 0n ? compressBigint(node, sib) : compressBigint(sib, node);
  });
  return node;
}

test('poseidon2 merkleRoot = bigint loop: random 32-level paths', () => {
  const rnd = prng(0x5eed_0004n);
  for (let rep = 0; rep < 40; rep++) {
    const leaf = rep % 5 === 0 ? EDGES[rnd.int(EDGES.length)]! : rnd.fr();
    const siblings = Array.from({ length: 32 }, () =>
      rep % 3 === 0 ? EDGES[rnd.int(EDGES.length)]! : rnd.fr(),
    );
    const index = rep === 0 ? 0n : rep === 1 ? 0xffffffffn : rnd.below(1n << 32n);
    assert.equal(merkleRoot(leaf, siblings, index), merkleBigint(leaf, siblings, index), `rep ${rep}`);
  }
});

test('poseidon2 merkleRoot: path shapes, index bits, multi-word indices', () => {
  const rnd = prng(0x5eed_0005n);
  // Empty path: the leaf itself.
  assert.equal(merkleRoot(0n, [], 0n), 0n);
  assert.equal(merkleRoot(P - 1n, [], 0n), P - 1n);
  const leaf = rnd.fr();
  assert.equal(merkleRoot(leaf, [], 0n), leaf);
  // One level: index 0 => compress(leaf, sib); index 1 => compress(sib, leaf).
  const sib = rnd.fr();
  assert.equal(merkleRoot(leaf, [sib], 0n), compress(leaf, sib));
  assert.equal(merkleRoot(leaf, [sib], 1n), compress(sib, leaf));
  assert.equal(merkleRoot(leaf, [sib], 1n), compressBigint(sib, leaf));
  // Two levels, index 2 (binary 10): left at level 0, right at level 1.
  const s2 = rnd.fr();
  assert.equal(merkleRoot(leaf, [sib, s2], 2n), compressBigint(s2, compressBigint(leaf, sib)));
  // Every length 0..70 (crossing the 64-bit index word), random index.
  for (let n = 0; n <= 70; n++) {
    const sibs = Array.from({ length: n }, () => rnd.fr());
    const index = n === 0 ? 0n : rnd.below(1n << BigInt(n));
    assert.equal(merkleRoot(leaf, sibs, index), merkleBigint(leaf, sibs, index), `length ${n}`);
  }
  // 200 levels with the top bits set (index words 2 and 3).
  const sibs = Array.from({ length: 200 }, () => rnd.fr());
  const index = (1n << 199n) | (1n << 130n) | (1n << 64n) | (1n << 63n) | 5n;
  assert.equal(merkleRoot(leaf, sibs, index), merkleBigint(leaf, sibs, index));
  // A path longer than the initial I/O area.
  const huge = Array.from({ length: 1900 }, (_, i) => BigInt(i));
  const hugeIndex = rnd.below(1n << 1900n);
  assert.equal(merkleRoot(7n, huge, hugeIndex), merkleBigint(7n, huge, hugeIndex));
});

// ---------------------------------------------------------------------------------------------------
// Rejection

test('poseidon2: non-canonical inputs are rejected with FieldError', () => {
  const bad = [P, P + 1n, (1n << 256n) - 1n, 1n << 256n, -1n, -P];
  for (const x of bad) {
    assert.throws(() => permute([x, 0n, 0n]), FieldError);
    assert.throws(() => permute([0n, x, 0n]), FieldError);
    assert.throws(() => permute([0n, 0n, x]), FieldError);
    assert.throws(() => digest([x]), FieldError);
    assert.throws(() => digest([1n, 2n, x]), FieldError);
    assert.throws(() => compress(x, 0n), FieldError);
    assert.throws(() => compress(0n, x), FieldError);
    assert.throws(() => merkleRoot(x, [], 0n), FieldError);
    assert.throws(() => merkleRoot(0n, [1n, x], 0n), FieldError);
  }
  // Deliberate casts: values of the wrong type, as untyped callers could pass them, are refused.
  assert.throws(() => permute([1 as unknown as bigint, 0n, 0n]), FieldError);
  assert.throws(() => digest(['1' as unknown as bigint]), FieldError);
  // A rejected call leaves nothing behind.
  assert.equal(
    digest([1n, 2n]),
    14118544982895877636855211757199904519359053761360294109973292038354361461611n,
  );
});

test('poseidon2 merkleRoot: index out of range is rejected', () => {
  assert.throws(() => merkleRoot(0n, [], 1n), RangeError);
  assert.throws(() => merkleRoot(0n, [1n, 2n], 4n), RangeError);
  assert.throws(() => merkleRoot(0n, [1n], -1n), RangeError);
  // Deliberate cast: a state of the wrong width is refused.
  assert.throws(() => permute([0n, 0n] as unknown as State), RangeError);
});

// ---------------------------------------------------------------------------------------------------
// The arithmetic kernels at the limits of their stated preconditions

const P_INV_NEG_MOD_R = (() => {
  // -p^-1 mod R by Newton iteration.
  let inv = 1n;
  for (let i = 0; i < 10; i++) inv = (inv * (2n - P * inv)) % R;
  inv = ((inv % R) + R) % R;
  assert.equal((P * inv) % R, 1n);
  return R - inv;
})();

/** The exact integer a digit-serial Montgomery product returns: (T + M·p) / R with M = -T·p^-1 mod R. */
function montExact(t: bigint): bigint {
  const m = ((t % R) * P_INV_NEG_MOD_R) % R;
  const num = t + m * P;
  assert.equal(num % R, 0n);
  return num / R;
}

test('montgomery kernels: exact results on random and extreme operands below R', () => {
  const rnd = prng(0x5eed_0006n);
  const ones = R - 1n; // every limb 2^29 - 1: the largest column sums
  let altA = 0n;
  let altB = 0n;
  for (let j = 0; j < LIMBS; j++) {
    if (j % 2 === 0) altA |= ((1n << 29n) - 1n) << BigInt(29 * j);
    else altB |= ((1n << 29n) - 1n) << BigInt(29 * j);
  }
  const special = [
    0n,
    1n,
    2n,
    P - 1n,
    P,
    P + 1n,
    2n * P,
    8n * P,
    40n * P,
    ones,
    ones - 1n,
    altA,
    altB,
    R - P,
  ];
  const operands = [...special, ...Array.from({ length: 300 }, () => rnd.below(R))];
  for (let i = 0; i < operands.length; i++) {
    const a = operands[i]!;
    const b = operands[(i * 7 + 3) % operands.length]!;
    const prod = __testing.montMul(a, b);
    assert.equal(prod, montExact(a * b), `mul ${a} ${b}`);
    assert.ok(prod <= montBound(a, b));
    assert.equal((prod * R) % P, (a * b) % P);
    const sq = __testing.montSqr(a);
    assert.equal(sq, montExact(a * a), `sqr ${a}`);
    assert.ok(sq <= montBound(a, a));
  }
  for (const a of special) {
    for (const b of special) assert.equal(__testing.montMul(a, b), montExact(a * b), `mul ${a} ${b}`);
  }
});

test('conversions: fromMont is canonical for any input below R, toMont for any 256-bit input', () => {
  const rnd = prng(0x5eed_0008n);
  const inputs = [0n, 1n, P - 1n, P, P + 1n, 2n * P, 2n * P - 1n, 8n * P, R - 1n, R - P, (R / P) * P, R % P];
  for (let i = 0; i < 200; i++) inputs.push(rnd.below(R));
  for (const v of inputs) {
    const out = __testing.fromMont(v);
    assert.equal(out, (v * R_INV) % P, `fromMont ${v}`);
  }
  const xs = [0n, 1n, P - 1n, P, (1n << 256n) - 1n, (1n << 255n) + 12345n, (1n << 192n) - 1n, 1n << 64n];
  for (let i = 0; i < 200; i++) xs.push(rnd.below(1n << 256n));
  for (const x of xs) {
    const m = __testing.toMont(x);
    assert.equal(m % P, (x * R) % P, `toMont ${x}`);
    assert.ok(m <= __testing.bounds.converted, `toMont ${x} within bound`);
    assert.equal(__testing.fromMont(m), x % P);
  }
});

test('partial-round reduction: congruent, non-negative, within the bound, up to its input limit', () => {
  const rnd = prng(0x5eed_0007n);
  const maxUsed = __testing.bounds.maxReduceInput;
  const values = [
    0n,
    1n,
    P - 1n,
    P,
    2n * P,
    (1n << 232n) - 1n,
    1n << 232n,
    maxUsed,
    maxUsed - 1n,
    R - 1n,
    REDUCE_INPUT_LIMIT,
    REDUCE_INPUT_LIMIT - 1n,
    ...Array.from({ length: 300 }, () => rnd.below(maxUsed + 1n)),
    ...Array.from({ length: 100 }, () => rnd.below(REDUCE_INPUT_LIMIT + 1n)),
  ];
  for (const v of values) {
    const r = __testing.reduce(v);
    assert.ok(r >= 0n && r <= reduceBound(v), `reduce ${v}`);
    assert.equal(r % P, v % P, `reduce ${v}`);
  }
  assert.ok(reduceBound(maxUsed) < 2n * P);
});

test('generator bounds: every tracked bound is inside its limit', () => {
  const b = __testing.bounds;
  assert.ok(b.maxMulInput < R);
  assert.ok(b.maxReduceInput <= REDUCE_INPUT_LIMIT);
  assert.ok(b.maxCanonicalInput < 2n * P);
  assert.ok(b.converted < ENTRY_BOUND);
  for (const o of b.permOutput) assert.ok(o + b.converted < ENTRY_BOUND);
  // The figures quoted in wasm-gen.ts's header comment.
  const below = (x: bigint, thousandths: bigint): boolean => x * 1000n < thousandths * P;
  assert.equal(ENTRY_BOUND, 8n * P);
  assert.ok(below(b.converted, 1007n));
  for (const o of b.permOutput) assert.ok(below(o, 4200n));
  assert.ok(below(b.maxMulInput, 33000n));
  assert.ok(below(b.maxReduceInput, 17600n));
  assert.ok(reduceBound(b.maxReduceInput) <= P + (1n << 241n));
});

// ---------------------------------------------------------------------------------------------------
// Encoder and module

test('wasm encoder: LEB128', () => {
  const enc = (f: (w: ByteWriter) => void): number[] => {
    const w = new ByteWriter();
    f(w);
    return [...w.bytes()];
  };
  assert.deepEqual(
    enc((w) => uleb(w, 0)),
    [0],
  );
  assert.deepEqual(
    enc((w) => uleb(w, 127)),
    [0x7f],
  );
  assert.deepEqual(
    enc((w) => uleb(w, 128)),
    [0x80, 0x01],
  );
  assert.deepEqual(
    enc((w) => uleb(w, 624485)),
    [0xe5, 0x8e, 0x26],
  );
  for (const [v, bytes] of [
    [0, [0]],
    [63, [0x3f]],
    [64, [0xc0, 0x00]],
    [-1, [0x7f]],
    [-64, [0x40]],
    [-65, [0xbf, 0x7f]],
    [-123456, [0xc0, 0xbb, 0x78]],
    [(1 << 29) - 1, [0xff, 0xff, 0xff, 0xff, 0x01]],
  ] as const) {
    assert.deepEqual(
      enc((w) => sleb(w, v)),
      bytes,
      `sleb ${v}`,
    );
    assert.deepEqual(
      enc((w) => sleb(w, BigInt(v))),
      bytes,
      `sleb ${v}n`,
    );
  }
  // i64 given as its unsigned value: 2^64 - 1 is -1.
  assert.deepEqual(
    enc((w) => sleb(w, (1n << 64n) - 1n)),
    [0x7f],
  );
  assert.throws(() => sleb(new ByteWriter(), 1n << 64n), RangeError);
});

test('wasm module: valid for wabt, deterministic, quick to build', async () => {
  const a = buildPoseidon2Wasm().bytes;
  const b = buildPoseidon2Wasm().bytes;
  assert.deepEqual(a, b);
  const wabt = await wabtInit();
  const mod = wabt.readWasm(a, { readDebugNames: false });
  mod.validate();
  const text = mod.toText({});
  mod.destroy();
  for (const name of ['"memory"', '"permute"', '"digest"', '"merkle"']) assert.ok(text.includes(name), name);
  assert.ok(WASM_LOAD_STATS.generateMs + WASM_LOAD_STATS.compileMs < 1000, JSON.stringify(WASM_LOAD_STATS));
});
