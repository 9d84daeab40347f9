/**
 * Batch verification of Groth16 proofs (random linear combination, one final exponentiation), on a
 * synthetic verification key whose discrete logarithms the test knows, so it can make valid proofs of
 * any statement, proofs of "another circuit" (another key), and invalid proofs crafted to cancel out.
 * Also against the toy circuit's real snarkjs proofs.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, test } from 'node:test';
import { bn254 } from '@noble/curves/bn254.js';
import { concatBytes } from '../../../../src/codec/hex.ts';
import {
  compressG1,
  compressG2,
  compressProof,
  FP_MODULUS,
  FR_ORDER,
  G1,
  G2,
  PreparedVerifyingKey,
  prepareVerifyingKey,
  terminate,
  verifyBatch,
  wasmVerifier,
} from '../../../../src/crypto/groth16/index.ts';
import { prng } from '../../../utils/prng.ts';

after(() => terminate());

const Fr = bn254.fields.Fr;
const rand = prng(7);
const scalar = (): bigint => {
  let x = 0n;
  for (let i = 0; i < 4; i++)
    x = (x << 64n) | BigInt.asUintN(64, BigInt(Math.floor(rand() * 2 ** 53)) * 2048n);
  return (x % (FR_ORDER - 1n)) + 1n;
};

/** A verification key with known logarithms; `prove` makes a valid proof of any public inputs. */
function syntheticKey(nPublic: number) {
  const [alpha, beta, gamma, delta] = [scalar(), scalar(), scalar(), scalar()];
  const ic = Array.from({ length: nPublic + 1 }, scalar);
  const vk = new PreparedVerifyingKey(
    nPublic,
    G1.BASE.multiply(alpha),
    G2.BASE.multiply(beta),
    G2.BASE.multiply(gamma),
    G2.BASE.multiply(delta),
    ic.map((x) => G1.BASE.multiply(x)),
  );
  /** A proof of `inputs`; `cShift` adds that multiple of the generator to C (an invalid proof). */
  const prove = (inputs: readonly bigint[], cShift = 0n): Uint8Array => {
    const a = scalar();
    const b = scalar();
    let x = ic[0]!;
    inputs.forEach((s, i) => {
      x = Fr.add(x, Fr.mul(s, ic[i + 1]!));
    });
    // a·b = α·β + x·γ + c·δ
    const c = Fr.div(Fr.sub(Fr.sub(Fr.mul(a, b), Fr.mul(alpha, beta)), Fr.mul(x, gamma)), delta);
    const cPoint = G1.BASE.multiply(c);
    const shifted = cShift === 0n ? cPoint : cPoint.add(G1.BASE.multiply(Fr.create(cShift)));
    return concatBytes(compressG1(G1.BASE.multiply(a)), compressG2(G2.BASE.multiply(b)), compressG1(shifted));
  };
  return { vk, prove };
}

const N_PUBLIC = 3;
const KEY = syntheticKey(N_PUBLIC);
const OTHER = syntheticKey(N_PUBLIC);
const statement = () => Array.from({ length: N_PUBLIC }, scalar);
const valid = (n: number) =>
  Array.from({ length: n }, () => {
    const publicInputs = statement();
    return { publicInputs, proof: KEY.prove(publicInputs) };
  });
const bad = (results: boolean[]) => results.flatMap((ok, i) => (ok ? [] : [i]));

test('valid batches of 1 to 256 proofs verify, and agree with single verification', async () => {
  const w = await wasmVerifier();
  const all = valid(256);
  for (const n of [1, 2, 3, 17, 64, 256]) {
    const items = all.slice(0, n);
    assert.deepEqual(await verifyBatch(KEY.vk, items), Array(n).fill(true), `batch of ${n}`);
  }
  for (const it of all.slice(0, 4)) assert.equal(w.verify(KEY.vk, it.publicInputs, it.proof), true);
});

test('one bad proof among 100 fails the batch and is named: changed input, another circuit, non-subgroup B', async () => {
  const items = valid(100);
  // A changed public input.
  const changed = items.map((x) => ({ ...x }));
  changed[37] = {
    ...changed[37]!,
    publicInputs: [changed[37]!.publicInputs[0]! + 1n, ...changed[37]!.publicInputs.slice(1)],
  };
  assert.deepEqual(bad(await verifyBatch(KEY.vk, changed)), [37]);
  // Two proofs swapped: each stands for the other's statement.
  const swapped = items.map((x) => ({ ...x }));
  swapped[3] = { ...swapped[3]!, proof: items[90]!.proof };
  swapped[90] = { ...swapped[90]!, proof: items[3]!.proof };
  assert.deepEqual(bad(await verifyBatch(KEY.vk, swapped)), [3, 90]);
  // A valid proof of the same statement for another circuit (another key).
  const foreign = items.map((x) => ({ ...x }));
  foreign[99] = { ...foreign[99]!, proof: OTHER.prove(foreign[99]!.publicInputs) };
  assert.deepEqual(bad(await verifyBatch(KEY.vk, foreign)), [99]);
  // B on the twist curve but outside the order-r subgroup.
  const outside = items.map((x) => ({ ...x }));
  const proof = outside[0]!.proof.slice();
  proof.set(compressG2(twistPointOutsideG2()), 32);
  outside[0] = { ...outside[0]!, proof };
  assert.deepEqual(bad(await verifyBatch(KEY.vk, outside)), [0]);
  // Malformed bytes and an input outside the field are single failures too.
  const malformed = items.slice(0, 10).map((x) => ({ ...x }));
  malformed[4] = { ...malformed[4]!, proof: malformed[4]!.proof.subarray(0, 100) };
  malformed[6] = { ...malformed[6]!, publicInputs: [FR_ORDER, 1n, 2n] };
  assert.deepEqual(bad(await verifyBatch(KEY.vk, malformed)), [4, 6]);
});

test('the coefficients cannot be predicted from the inputs: errors that cancel under fixed ones are caught', async () => {
  const w = await wasmVerifier();
  // Two invalid proofs whose errors cancel when both coefficients are equal: C₁ + D and C₂ − D.
  const s1 = statement();
  const s2 = statement();
  const items = [
    { publicInputs: s1, proof: KEY.prove(s1, 12345n) },
    { publicInputs: s2, proof: KEY.prove(s2, FR_ORDER - 12345n) },
  ];
  assert.equal(w.verify(KEY.vk, s1, items[0]!.proof), false);
  assert.equal(w.verify(KEY.vk, s2, items[1]!.proof), false);
  const fixed = () => Uint8Array.of(...Array(15).fill(0), 1);
  assert.deepEqual(w.verifyBatch(KEY.vk, items, fixed), [true, true], 'predictable coefficients are fooled');
  assert.deepEqual(await verifyBatch(KEY.vk, items), [false, false], 'random ones are not');
});

test('coefficients summing to 1: the same error in every proof, and an error in the last proof alone, are caught', async () => {
  const w = await wasmVerifier();
  // Every proof off by the same D: Σ rᵢ·D = D, whatever the coefficients on that hyperplane.
  const same = Array.from({ length: 5 }, () => {
    const publicInputs = statement();
    return { publicInputs, proof: KEY.prove(publicInputs, 777n) };
  });
  assert.deepEqual(await verifyBatch(KEY.vk, same), Array(5).fill(false));
  // Only the last one (whose coefficient is 1 − Σ the others) is off.
  const items = valid(7);
  items[6] = { publicInputs: items[6]!.publicInputs, proof: KEY.prove(items[6]!.publicInputs, 5n) };
  assert.deepEqual(bad(await verifyBatch(KEY.vk, items)), [6]);
  // One item alone gets the plain equation, coefficient 1, whatever the random source gives.
  const one = valid(1);
  const zero = () => new Uint8Array(16).fill(0xff);
  assert.deepEqual(w.verifyBatch(KEY.vk, one, zero), [true]);
  assert.deepEqual(w.verifyBatch(KEY.vk, [same[0]!], zero), [false]);
});

test("the toy circuit's snarkjs proofs verify as a batch; a mixed-up input is named", async () => {
  const dir = new URL('../../../spec/vectors/groth16/', import.meta.url);
  const read = (n: string): unknown => JSON.parse(readFileSync(new URL(n, dir), 'utf8'));
  const vk = prepareVerifyingKey(read('verification_key.json'));
  const items = [1, 2, 3].map((i) => ({
    publicInputs: (read(`public_${i}.json`) as string[]).map(BigInt),
    proof: compressProof(read(`proof_${i}.json`) as never),
  }));
  assert.deepEqual(await verifyBatch(vk, items), [true, true, true]);
  const mixed = [items[0]!, { ...items[1]!, publicInputs: items[2]!.publicInputs }, items[2]!];
  assert.deepEqual(await verifyBatch(vk, mixed), [true, false, true]);
});

/** A point of the twist curve y² = x³ + 3/(9+u) that is not in G2 (the cofactor is large). */
function twistPointOutsideG2() {
  const Fp2 = bn254.fields.Fp2;
  const b = Fp2.div(Fp2.fromBigTuple([3n, 0n]), Fp2.fromBigTuple([9n, 1n]));
  for (let i = 1n; ; i++) {
    const x = Fp2.fromBigTuple([i, 1n]);
    const rhs = Fp2.add(Fp2.mul(Fp2.sqr(x), x), b);
    let y: typeof x;
    try {
      y = Fp2.sqrt(rhs);
    } catch {
      continue;
    }
    const p = G2.fromAffine({ x, y });
    if (!p.isTorsionFree()) return p;
    assert.ok(i < 1000n && FP_MODULUS > 0n);
  }
}
