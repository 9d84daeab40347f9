/**
 * Groth16 over BN254: the arkworks compressed point encoding, the proof conversions and the two
 * verifiers, against the toy-circuit fixture of scripts/make-groth16-fixture.sh and snarkjs.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { after, describe, test } from 'node:test';
import { bn254 } from '@noble/curves/bn254.js';
import { buildBn128 } from 'ffjavascript';
import {
  compressG1,
  compressG2,
  compressProof,
  decodeProof,
  decompressG1,
  decompressG2,
  decompressProof,
  encodeProof,
  FLAG_INFINITY,
  FLAG_Y_NEGATIVE,
  FP_MODULUS,
  type Fp2,
  FR_ORDER,
  fp2IsLarger,
  fpIsLarger,
  G1,
  type G1Point,
  G2,
  type G2Point,
  Groth16Error,
  PointEncodingError,
  type PointEncodingReason,
  PROOF_BYTES,
  prepareVerifyingKey,
  proofFromSnarkjs,
  proofToSnarkjs,
  terminate,
  verify,
  verifyNoble,
  wasmVerifier,
  zkSignatureFromBytes,
  zkSignatureToBytes,
} from '../../../../src/crypto/groth16/index.ts';
import { decompressG2Affine } from '../../../../src/crypto/groth16/points.ts';

// ---------- fixture ----------

const DIR = new URL('../../../spec/vectors/groth16/', import.meta.url);
const readJson = (name: string): unknown => JSON.parse(readFileSync(new URL(name, DIR), 'utf8'));

const VK_JSON = readJson('verification_key.json');
const VK = prepareVerifyingKey(VK_JSON);
const FIXTURES = [1, 2, 3].map((i) => {
  const proofJson = readJson(`proof_${i}.json`) as { pi_a: string[]; pi_b: string[][]; pi_c: string[] };
  const publicSignals = readJson(`public_${i}.json`) as string[];
  return { proofJson, publicSignals, inputs: publicSignals.map(BigInt), bytes: compressProof(proofJson) };
});

// snarkjs has no types; a non-literal specifier keeps the import untyped (cast below).
interface SnarkjsApi {
  groth16: { verify(vk: unknown, publicSignals: string[], proof: unknown): Promise<boolean> };
}
const SNARKJS_MODULE: string = 'snarkjs';
const snarkjs = (await import(SNARKJS_MODULE)) as SnarkjsApi;

// ---------- helpers ----------

/** Deterministic pseudo-random scalar in [1, r). */
function scalar(seed: string): bigint {
  const h = createHash('sha512').update(seed).digest();
  let v = 0n;
  for (const b of h) v = (v << 8n) | BigInt(b);
  return (v % (FR_ORDER - 1n)) + 1n;
}

function powmod(b: bigint, e: bigint, m: bigint): bigint {
  let r = 1n;
  let x = b % m;
  let k = e;
  while (k > 0n) {
    if (k & 1n) r = (r * x) % m;
    x = (x * x) % m;
    k >>= 1n;
  }
  return r;
}

/** Euler's criterion in Fp (independent of the code under test). */
const isSquareFp = (a: bigint): boolean =>
  a % FP_MODULUS === 0n || powmod(a, (FP_MODULUS - 1n) / 2n, FP_MODULUS) === 1n;
/** a ∈ Fp2 is a square iff its norm c0² + c1² (u² = −1) is a square in Fp. */
const isSquareFp2 = (a: Fp2): boolean => isSquareFp((a.c0 * a.c0 + a.c1 * a.c1) % FP_MODULUS);

const Fp2F = bn254.fields.Fp2;
const G2_B: Fp2 = G2.CURVE().b;
const g1Rhs = (x: bigint) => (x * x * x + 3n) % FP_MODULUS;
const g2Rhs = (x: Fp2) => Fp2F.add(Fp2F.mul(Fp2F.sqr(x), x), G2_B);

function le32(v: bigint): Uint8Array {
  const out = new Uint8Array(32);
  let x = v;
  for (let i = 0; i < 32; i++) {
    out[i] = Number(x & 0xffn);
    x >>= 8n;
  }
  return out;
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

function rejects(fn: () => unknown, reason: PointEncodingReason): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof PointEncodingError, `expected PointEncodingError, got ${String(e)}`);
    assert.equal(e.reason, reason);
    assert.equal(e.code, 'GROTH16_POINT_ENCODING');
    return true;
  });
}

/** [r]P = O, computed without the subgroup test under test. */
const inSubgroupByOrder = (p: G2Point): boolean =>
  p
    .multiplyUnsafe(FR_ORDER - 1n)
    .add(p)
    .is0();

/** First x ≥ start (c1 fixed) whose twist right-hand side is (or is not) a square. */
function g2X(start: bigint, c1: bigint, square: boolean): Fp2 {
  for (let c0 = start; ; c0++) {
    const x = { c0, c1 };
    if (isSquareFp2(g2Rhs(x)) === square) return x;
  }
}

/** Twist points outside G2 (the twist's cofactor is large, so almost every curve point is). */
function nonSubgroupPoints(n: number): G2Point[] {
  const out: G2Point[] = [];
  for (let c0 = 1n; out.length < n; c0++) {
    const x = g2X(c0, 7n, true);
    c0 = x.c0;
    const p = G2.fromAffine({ x, y: Fp2F.sqrt(g2Rhs(x)) });
    if (!inSubgroupByOrder(p)) out.push(p);
  }
  return out;
}

// ffjavascript's own compressed form (wasmcurves `LEMtoC`): big-endian x, flags in the FIRST byte.
interface FfCurve {
  G1: {
    fromObject(o: bigint[]): Uint8Array;
    toRprCompressed(out: Uint8Array, off: number, p: Uint8Array): void;
  };
  G2: {
    fromObject(o: bigint[][]): Uint8Array;
    toRprCompressed(out: Uint8Array, off: number, p: Uint8Array): void;
  };
}
const ffCurve = await buildBn128(true);
// Deliberate cast: ffjavascript has no types; `FfCurve` types the parts of its curve this test uses.
const ff = ffCurve as unknown as FfCurve;

// snarkjs' groth16.verify asks ffjavascript for its default multi-threaded curve: worker threads, which
// must be terminated for the process to exit, and which never answer under `npm test`'s
// `--import ./src/polyfills.ts` (the verify hangs). ffjavascript
// returns globalThis.curve_bn128 when it is set, so hand it this single-threaded curve instead.
const g = globalThis as { curve_bn128?: unknown };
g.curve_bn128 = ffCurve;
after(async () => {
  g.curve_bn128 = null;
  await ffCurve.terminate();
  await terminate();
});

function ffCompressedG1(p: G1Point): Uint8Array {
  const out = new Uint8Array(32);
  const pt = p.is0()
    ? ff.G1.fromObject([0n, 1n, 0n])
    : ff.G1.fromObject([p.toAffine().x, p.toAffine().y, 1n]);
  ff.G1.toRprCompressed(out, 0, pt);
  return out;
}

function ffCompressedG2(p: G2Point): Uint8Array {
  const out = new Uint8Array(64);
  const a = p.toAffine();
  ff.G2.toRprCompressed(
    out,
    0,
    ff.G2.fromObject([
      [a.x.c0, a.x.c1],
      [a.y.c0, a.y.c1],
      [1n, 0n],
    ]),
  );
  return out;
}

const reversed = (b: Uint8Array) => Uint8Array.from(b).reverse();

// ---------- point codec ----------

describe('compressed points (arkworks serialize_compressed)', () => {
  const g1s = Array.from({ length: 12 }, (_, i) => G1.BASE.multiply(scalar(`g1-${i}`)));
  const g2s = Array.from({ length: 8 }, (_, i) => G2.BASE.multiply(scalar(`g2-${i}`)));

  test('G1 round trip, both y signs: P and −P differ only in bit 7 of the last byte', () => {
    for (const p of [G1.BASE, ...g1s]) {
      for (const q of [p, p.negate()]) {
        const bytes = compressG1(q);
        assert.equal(bytes.length, 32);
        assert.ok(decompressG1(bytes).equals(q));
        assert.equal((bytes[31]! & FLAG_Y_NEGATIVE) !== 0, q.toAffine().y > (FP_MODULUS - 1n) / 2n);
        assert.equal(bytes[31]! & FLAG_INFINITY, 0);
      }
      const a = compressG1(p);
      const b = compressG1(p.negate());
      assert.deepEqual(a.subarray(0, 31), b.subarray(0, 31));
      assert.equal(a[31]! ^ b[31]!, FLAG_Y_NEGATIVE);
    }
  });

  test('G2 round trip, both y signs', () => {
    for (const p of [G2.BASE, ...g2s]) {
      for (const q of [p, p.negate()]) {
        const bytes = compressG2(q);
        assert.equal(bytes.length, 64);
        assert.ok(decompressG2(bytes).equals(q));
        const { x, y } = q.toAffine();
        assert.deepEqual(bytes.subarray(0, 32), le32(x.c0));
        assert.equal(bytes[63]! & 0x3f, le32(x.c1)[31]);
        assert.equal((bytes[63]! & FLAG_Y_NEGATIVE) !== 0, fp2IsLarger(y));
      }
      const a = compressG2(p);
      const b = compressG2(p.negate());
      assert.deepEqual(a.subarray(0, 63), b.subarray(0, 63));
      assert.equal(a[63]! ^ b[63]!, FLAG_Y_NEGATIVE);
    }
  });

  test('the sign rule: Fp by integer value, Fp2 by c1 first, then c0 (arkworks QuadExtField Ord)', () => {
    const half = (FP_MODULUS - 1n) / 2n;
    assert.equal(fpIsLarger(half), false);
    assert.equal(fpIsLarger(half + 1n), true);
    assert.equal(fpIsLarger(0n), false);
    // c1 decides whenever it is non-zero, whatever c0 is …
    assert.equal(fp2IsLarger({ c0: FP_MODULUS - 1n, c1: 1n }), false);
    assert.equal(fp2IsLarger({ c0: 1n, c1: FP_MODULUS - 1n }), true);
    assert.equal(fp2IsLarger({ c0: 0n, c1: half + 1n }), true);
    // … and c0 only when c1 = 0.
    assert.equal(fp2IsLarger({ c0: half + 1n, c1: 0n }), true);
    assert.equal(fp2IsLarger({ c0: half, c1: 0n }), false);
    assert.equal(fp2IsLarger({ c0: 0n, c1: 0n }), false);
  });

  test('same bytes as ffjavascript/wasmcurves compressed form, byte-reversed (independent implementation)', () => {
    for (const p of [G1.BASE, ...g1s]) {
      for (const q of [p, p.negate()]) assert.deepEqual(compressG1(q), reversed(ffCompressedG1(q)));
    }
    assert.deepEqual(compressG1(G1.ZERO), reversed(ffCompressedG1(G1.ZERO)));
    for (const p of [G2.BASE, ...g2s]) {
      for (const q of [p, p.negate()]) assert.deepEqual(compressG2(q), reversed(ffCompressedG2(q)));
    }
  });

  test('point at infinity: x = 0 with only bit 6 set', () => {
    const g1 = compressG1(G1.ZERO);
    assert.deepEqual(g1, concat(new Uint8Array(31), Uint8Array.of(0x40)));
    assert.ok(decompressG1(g1).is0());
    const g2 = compressG2(G2.ZERO);
    assert.deepEqual(g2, concat(new Uint8Array(63), Uint8Array.of(0x40)));
    assert.ok(decompressG2(g2).is0());
    assert.equal(decompressG2Affine(g2), null);
  });

  test('rejects a wrong length', () => {
    rejects(() => decompressG1(new Uint8Array(31)), 'length');
    rejects(() => decompressG1(new Uint8Array(33)), 'length');
    rejects(() => decompressG2(new Uint8Array(32)), 'length');
    rejects(() => decompressG2(new Uint8Array(65)), 'length');
  });

  test('rejects a non-canonical x (≥ p), with or without flags', () => {
    for (const x of [FP_MODULUS, FP_MODULUS + 1n, (1n << 254n) - 1n]) {
      rejects(() => decompressG1(le32(x)), 'non-canonical');
      const neg = le32(x);
      neg[31]! |= FLAG_Y_NEGATIVE;
      rejects(() => decompressG1(neg), 'non-canonical');
      const inf = le32(x);
      inf[31]! |= FLAG_INFINITY;
      rejects(() => decompressG1(inf), 'non-canonical');
    }
    // G2: either coordinate; c0 carries no flags, so its top bits make it ≥ p too.
    const ok = compressG2(G2.BASE);
    rejects(() => decompressG2(concat(le32(FP_MODULUS), ok.subarray(32))), 'non-canonical');
    const c1 = le32(FP_MODULUS);
    c1[31]! |= ok[63]! & 0xc0;
    rejects(() => decompressG2(concat(ok.subarray(0, 32), c1)), 'non-canonical');
    const top = Uint8Array.from(ok);
    top[31]! |= 0x80;
    rejects(() => decompressG2(top), 'non-canonical');
    // p − 1 is canonical: it decodes iff (p − 1)³ + 3 = 2 is a square.
    assert.equal(isSquareFp(g1Rhs(FP_MODULUS - 1n)), true);
    assert.equal(decompressG1(le32(FP_MODULUS - 1n)).toAffine().x, FP_MODULUS - 1n);
  });

  test('rejects both flags set', () => {
    const g1 = compressG1(g1s[0]!);
    g1[31]! |= 0xc0;
    rejects(() => decompressG1(g1), 'both-flags');
    const g2 = compressG2(g2s[0]!);
    g2[63]! |= 0xc0;
    rejects(() => decompressG2(g2), 'both-flags');
    rejects(() => decompressG1(concat(new Uint8Array(31), Uint8Array.of(0xc0))), 'both-flags');
  });

  test('rejects the infinity flag with any other bit set', () => {
    const g1 = concat(new Uint8Array(31), Uint8Array.of(0x40));
    for (const [i, bit] of [
      [0, 1],
      [15, 0x80],
      [31, 0x01],
      [31, 0x20],
    ] as const) {
      const b = Uint8Array.from(g1);
      b[i]! |= bit;
      rejects(() => decompressG1(b), 'bad-infinity');
    }
    const g2 = concat(new Uint8Array(63), Uint8Array.of(0x40));
    for (const i of [0, 31, 32, 62]) {
      const b = Uint8Array.from(g2);
      b[i]! |= 1;
      rejects(() => decompressG2(b), 'bad-infinity');
    }
  });

  test('rejects an x that is not on the curve', () => {
    let found = 0;
    for (let x = 0n; found < 5; x++) {
      if (isSquareFp(g1Rhs(x))) {
        assert.equal(decompressG1(le32(x)).toAffine().x, x);
        continue;
      }
      found++;
      rejects(() => decompressG1(le32(x)), 'not-on-curve');
      const neg = le32(x);
      neg[31]! |= FLAG_Y_NEGATIVE;
      rejects(() => decompressG1(neg), 'not-on-curve');
    }
    for (let start = 1n, n = 0; n < 5; n++) {
      const x = g2X(start, 5n, false);
      start = x.c0 + 1n;
      rejects(() => decompressG2(concat(le32(x.c0), le32(x.c1))), 'not-on-curve');
    }
  });

  test('rejects G2 points on the twist but outside the prime-order subgroup', async () => {
    const w = await wasmVerifier();
    for (const p of nonSubgroupPoints(4)) {
      const bytes = compressG2(p);
      rejects(() => decompressG2(bytes), 'not-in-subgroup');
      // The unchecked decoder accepts it: only the subgroup check fails.
      const a = decompressG2Affine(bytes);
      assert.ok(a !== null && Fp2F.eql(a.x, p.toAffine().x) && Fp2F.eql(a.y, p.toAffine().y));
      // The WebAssembly verifier's own subgroup test agrees.
      assert.equal(w.g2InSubgroup(a.x, a.y), false);
    }
    for (const p of [G2.BASE, ...g2s]) {
      const { x, y } = p.toAffine();
      assert.equal(w.g2InSubgroup(x, y), true);
      assert.ok(inSubgroupByOrder(p));
    }
  });
});

// ---------- proofs ----------

describe('proof conversions', () => {
  test('snarkjs proof → 128 bytes → snarkjs proof is the identity on the fixture', () => {
    for (const f of FIXTURES) {
      assert.equal(f.bytes.length, PROOF_BYTES);
      const back = decompressProof(f.bytes);
      assert.deepEqual(back.pi_a, f.proofJson.pi_a);
      assert.deepEqual(back.pi_b, f.proofJson.pi_b);
      assert.deepEqual(back.pi_c, f.proofJson.pi_c);
      assert.deepEqual(back, { ...(f.proofJson as object), protocol: 'groth16', curve: 'bn128' });
      // Point level: the decoded points are the snarkjs points.
      const pts = proofFromSnarkjs(f.proofJson);
      const dec = decodeProof(f.bytes);
      assert.ok(dec.a.equals(pts.a) && dec.b.equals(pts.b) && dec.c.equals(pts.c));
      assert.deepEqual(encodeProof(dec), f.bytes);
      assert.deepEqual(proofToSnarkjs(pts), back);
    }
  });

  test('layout: pi_a ‖ pi_b ‖ pi_c, each compressed on its own', () => {
    const f = FIXTURES[0]!;
    const pts = proofFromSnarkjs(f.proofJson);
    assert.deepEqual(f.bytes, concat(compressG1(pts.a), compressG2(pts.b), compressG1(pts.c)));
    // snarkjs G2 coordinates are [c0, c1]: the first 32 bytes of pi_b are x.c0.
    assert.deepEqual(f.bytes.subarray(32, 64), le32(BigInt(f.proofJson.pi_b[0]![0]!)));
  });

  test('ZkSignature parts', () => {
    const f = FIXTURES[1]!;
    const sig = zkSignatureFromBytes(f.bytes);
    assert.equal(sig.pi_a.length, 32);
    assert.equal(sig.pi_b.length, 64);
    assert.equal(sig.pi_c.length, 32);
    assert.deepEqual(sig.pi_b, f.bytes.subarray(32, 96));
    assert.deepEqual(zkSignatureToBytes(sig), f.bytes);
    assert.throws(() => zkSignatureFromBytes(f.bytes.subarray(1)), Groth16Error);
    assert.throws(() => zkSignatureToBytes({ ...sig, pi_b: sig.pi_b.subarray(1) }), Groth16Error);
  });

  test('malformed snarkjs JSON is a Groth16Error', () => {
    const good = FIXTURES[0]!.proofJson;
    const cases: unknown[] = [
      null,
      { ...good, pi_a: ['1', '3', '1'] }, // not on the curve ((1, 2) is the generator)
      { ...good, pi_a: [good.pi_a[0], good.pi_a[1], '2'] }, // not affine
      { ...good, pi_a: [String(FP_MODULUS), good.pi_a[1], '1'] },
      { ...good, pi_a: ['0x1', good.pi_a[1], '1'] },
      { ...good, pi_b: [good.pi_b[1], good.pi_b[0], good.pi_b[2]] },
      { ...good, protocol: 'plonk' },
    ];
    for (const c of cases) assert.throws(() => compressProof(c), Groth16Error);
  });

  test('the verification key parses; malformed keys are rejected', () => {
    assert.equal(VK.nPublic, 3);
    assert.equal(VK.ic.length, 4);
    const vk = VK_JSON as Record<string, unknown>;
    assert.throws(() => prepareVerifyingKey({ ...vk, nPublic: 2 }), Groth16Error);
    assert.throws(() => prepareVerifyingKey({ ...vk, protocol: 'plonk' }), Groth16Error);
    assert.throws(() => prepareVerifyingKey({ ...vk, vk_alpha_1: ['1', '3', '1'] }), Groth16Error);
    assert.throws(() => prepareVerifyingKey({ ...vk, vk_alpha_1: ['0', '1', '0'] }), Groth16Error);
    const p = nonSubgroupPoints(1)[0]!.toAffine();
    const bad = [[p.x.c0, p.x.c1].map(String), [p.y.c0, p.y.c1].map(String), ['1', '0']];
    assert.throws(() => prepareVerifyingKey({ ...vk, vk_delta_2: bad }), Groth16Error);
  });
});

// ---------- verifiers ----------

describe('verifiers', () => {
  test('the fixture proofs verify (WebAssembly, noble, snarkjs)', async () => {
    for (const f of FIXTURES) {
      assert.equal(await verify(VK, f.inputs, f.bytes), true);
      assert.equal(verifyNoble(VK, f.inputs, f.bytes), true);
      assert.equal(await snarkjs.groth16.verify(VK_JSON, f.publicSignals, f.proofJson), true);
    }
  });

  test("the pairing equation holds with noble's pairingBatch directly", () => {
    const f = FIXTURES[2]!;
    const { a, b, c } = decodeProof(f.bytes);
    let vkx = VK.ic[0]!;
    f.inputs.forEach((s, i) => {
      vkx = vkx.add(VK.ic[i + 1]!.multiply(s));
    });
    const Fp12 = bn254.fields.Fp12;
    const lhs = bn254.pairingBatch([
      { g1: a.negate(), g2: b },
      { g1: VK.alpha, g2: VK.beta },
      { g1: vkx, g2: VK.gamma },
      { g1: c, g2: VK.delta },
    ]);
    assert.ok(Fp12.eql(lhs, Fp12.ONE));
  });

  interface Case {
    name: string;
    inputs: bigint[];
    bytes: Uint8Array;
    expected: boolean;
  }

  function flip(bytes: Uint8Array, index: number, mask: number): Uint8Array {
    const b = Uint8Array.from(bytes);
    b[index]! ^= mask;
    return b;
  }

  function cases(): Case[] {
    const [f1, f2, f3] = FIXTURES as [(typeof FIXTURES)[0], (typeof FIXTURES)[0], (typeof FIXTURES)[0]];
    const out: Case[] = [];
    for (const [k, f] of FIXTURES.entries()) out.push({ name: `fixture ${k + 1}`, ...f, expected: true });
    for (let i = 0; i < 3; i++) {
      const inputs = [...f1.inputs];
      inputs[i]! += 1n;
      out.push({ name: `public input ${i} changed`, inputs, bytes: f1.bytes, expected: false });
    }
    out.push({ name: 'proof of another statement', inputs: f1.inputs, bytes: f2.bytes, expected: false });
    out.push({ name: 'proof of another statement (3)', inputs: f2.inputs, bytes: f3.bytes, expected: false });
    out.push({
      name: 'A y flag flipped',
      inputs: f1.inputs,
      bytes: flip(f1.bytes, 31, 0x80),
      expected: false,
    });
    out.push({
      name: 'B y flag flipped',
      inputs: f1.inputs,
      bytes: flip(f1.bytes, 95, 0x80),
      expected: false,
    });
    out.push({
      name: 'C y flag flipped',
      inputs: f1.inputs,
      bytes: flip(f1.bytes, 127, 0x80),
      expected: false,
    });
    const swapped = concat(f3.bytes.subarray(96), f3.bytes.subarray(32, 96), f3.bytes.subarray(0, 32));
    out.push({ name: 'A and C swapped', inputs: f3.inputs, bytes: swapped, expected: false });
    const p = decodeProof(f3.bytes);
    out.push({
      name: 'A and B both negated',
      inputs: f3.inputs,
      bytes: encodeProof({ a: p.a.negate(), b: p.b.negate(), c: p.c }),
      expected: true, // e(A,B) = e(−A,−B): the proof is malleable this way, as Groth16 is
    });
    out.push({
      name: 'A replaced by the point at infinity',
      inputs: f3.inputs,
      bytes: encodeProof({ a: G1.ZERO, b: p.b, c: p.c }),
      expected: false,
    });
    return out;
  }

  test('valid and invalid proofs: WebAssembly, noble and snarkjs agree', async () => {
    for (const c of cases()) {
      const wasm = await verify(VK, c.inputs, c.bytes);
      const noble = verifyNoble(VK, c.inputs, c.bytes);
      const sj = await snarkjs.groth16.verify(VK_JSON, c.inputs.map(String), decompressProof(c.bytes));
      assert.equal(wasm, c.expected, `${c.name}: WebAssembly`);
      assert.equal(noble, c.expected, `${c.name}: noble`);
      assert.equal(sj, c.expected, `${c.name}: snarkjs`);
    }
  });

  test('public inputs outside [0, r): false, like snarkjs', async () => {
    const f = FIXTURES[0]!;
    for (const i of [0, 2]) {
      for (const v of [f.inputs[i]! + FR_ORDER, FR_ORDER, -1n]) {
        const inputs = [...f.inputs];
        inputs[i] = v;
        assert.equal(await verify(VK, inputs, f.bytes), false);
        assert.equal(verifyNoble(VK, inputs, f.bytes), false);
        assert.equal(await snarkjs.groth16.verify(VK_JSON, inputs.map(String), f.proofJson), false);
      }
    }
  });

  test('malformed proofs: false from both verifiers', async () => {
    const f = FIXTURES[0]!;
    const nonSub = nonSubgroupPoints(1)[0]!;
    const malformed: [string, Uint8Array][] = [
      ['too short', f.bytes.subarray(0, 127)],
      ['too long', concat(f.bytes, new Uint8Array(1))],
      ['both flags on A', flip(f.bytes, 31, 0xc0 ^ (f.bytes[31]! & 0x80))],
      ['B outside the subgroup', concat(f.bytes.subarray(0, 32), compressG2(nonSub), f.bytes.subarray(96))],
      [
        'B not on the curve',
        concat(
          f.bytes.subarray(0, 32),
          (() => {
            const x = g2X(3n, 3n, false);
            return concat(le32(x.c0), le32(x.c1));
          })(),
          f.bytes.subarray(96),
        ),
      ],
      ['C with x = p', concat(f.bytes.subarray(0, 96), le32(FP_MODULUS))],
    ];
    for (const [name, bytes] of malformed) {
      assert.equal(await verify(VK, f.inputs, bytes), false, `${name}: WebAssembly`);
      assert.equal(verifyNoble(VK, f.inputs, bytes), false, `${name}: noble`);
    }
    assert.throws(() => decodeProof(malformed[3]![1]), PointEncodingError);
    assert.throws(() => decodeProof(malformed[0]![1]), Groth16Error);
  });

  test('a wrong number of public inputs is a caller bug: Groth16Error', async () => {
    const f = FIXTURES[0]!;
    await assert.rejects(verify(VK, f.inputs.slice(0, 2), f.bytes), Groth16Error);
    assert.throws(() => verifyNoble(VK, [...f.inputs, 0n], f.bytes), Groth16Error);
  });

  test('many distinct keys: the WebAssembly memory grows and verification stays right', async () => {
    const f = FIXTURES[0]!;
    const vk = VK_JSON as { IC: string[][] };
    const w = await wasmVerifier();
    for (let k = 1; k <= 60; k++) {
      // A different (wrong) key: IC_0 moved by k·G.
      const ic0 = proofFromSnarkjs({ ...f.proofJson, pi_a: vk.IC[0] }).a.add(G1.BASE.multiply(BigInt(k)));
      const { x, y } = ic0.toAffine();
      const other = prepareVerifyingKey({ ...vk, IC: [[String(x), String(y), '1'], ...vk.IC.slice(1)] });
      assert.equal(w.verify(other, f.inputs, f.bytes), false);
    }
    assert.equal(w.verify(VK, f.inputs, f.bytes), true);
    for (const g of FIXTURES) assert.equal(w.verify(VK, g.inputs, g.bytes), true);
  });

  test('one key prepared twice shares its WebAssembly state; terminate() then verify rebuilds the curve', async () => {
    const f = FIXTURES[1]!;
    const again = prepareVerifyingKey(VK_JSON);
    assert.equal(again.fingerprint, VK.fingerprint);
    assert.equal(await verify(again, f.inputs, f.bytes), true);
    await terminate();
    assert.equal(await verify(VK, f.inputs, f.bytes), true);
  });
});
