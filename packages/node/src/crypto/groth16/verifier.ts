/**
 * Groth16 verification over BN254 for snarkjs/circom verification keys.
 *
 * The check (the same as `snarkjs.groth16.verify`): every public input s_i < r,
 *   vk_x = IC_0 + Σ s_i·IC_{i+1},   e(−A, B) · e(α, β) · e(vk_x, γ) · e(C, δ) == 1.
 * Terms whose G1 or G2 point is the point at infinity are 1 and are skipped.
 *
 * Two implementations:
 * - {@link verify}: ffjavascript's WebAssembly BN254 curve built single-threaded (no worker threads),
 *   driven directly through its exports: the key's γ and δ are prepared once, and the Miller loop of
 *   (α, β) is computed once, so a verify costs one G2 preparation, three Miller loops, one final
 *   exponentiation, the G2 subgroup check of B (ψ(B) = [6u²]B, the multiplication in WebAssembly) and
 *   the small MSM. The curve
 *   is built once per process, lazily; {@link terminate} drops it.
 * - {@link verifyNoble}: pure JS on @noble/curves (cached G2 line precomputes + `millerLoopBatch`, i.e.
 *   what `pairingBatch` does), used to cross-check the WebAssembly verifier.
 *
 * Result contract (both): `true` iff the proof verifies. `false` for a proof that does not verify AND
 * for a malformed proof (wrong length, bad flags, x ≥ p, not on the curve, B outside the subgroup) and
 * for public inputs outside [0, r). Use `decodeProof` (proof.ts) to learn why a proof is malformed.
 * Throws {@link Groth16Error} only for caller bugs: a public input count different from the key's.
 */
import { randomBytes } from 'node:crypto';
import { bn254 } from '@noble/curves/bn254.js';
import type { Bn128Curve, WasmExports } from 'ffjavascript';
import { buildBn128 } from 'ffjavascript';
import {
  decompressG1,
  decompressG2Affine,
  FP_MODULUS,
  type Fp2,
  FR_ORDER,
  type G1Point,
  type G2Point,
} from './points.ts';
import { decodeProof, Groth16Error, g1FromSnarkjs, g2FromSnarkjs, PROOF_BYTES } from './proof.ts';

// ---------- verification key ----------

/** A snarkjs `verification_key.json` (groth16, bn128). Other fields (vk_alphabeta_12, …) are ignored. */
export interface SnarkjsVerificationKey {
  protocol: 'groth16';
  curve: 'bn128';
  nPublic: number;
  vk_alpha_1: string[];
  vk_beta_2: string[][];
  vk_gamma_2: string[][];
  vk_delta_2: string[][];
  IC: string[][];
}

type NoblePrecompute = ReturnType<typeof bn254.utils.calcPairingPrecomputes>;

/** A parsed and checked verification key; the per-implementation preparations are cached on it. */
export class PreparedVerifyingKey {
  readonly nPublic: number;
  readonly alpha: G1Point;
  readonly beta: G2Point;
  readonly gamma: G2Point;
  readonly delta: G2Point;
  /** IC_0 … IC_nPublic. */
  readonly ic: readonly G1Point[];
  /** Identity of the key's content (equal keys share their WebAssembly preparation). */
  readonly fingerprint: string;
  /** @internal noble line precomputes of β, γ, δ. */
  noble?: { beta: NoblePrecompute; gamma: NoblePrecompute; delta: NoblePrecompute };

  constructor(nPublic: number, alpha: G1Point, beta: G2Point, gamma: G2Point, delta: G2Point, ic: G1Point[]) {
    this.nPublic = nPublic;
    this.alpha = alpha;
    this.beta = beta;
    this.gamma = gamma;
    this.delta = delta;
    this.ic = Object.freeze(ic);
    const parts = [alpha, ...ic].map((p) => g1Key(p)).concat([beta, gamma, delta].map((p) => g2Key(p)));
    this.fingerprint = parts.join('|');
  }
}

function g1Key(p: G1Point): string {
  if (p.is0()) return 'inf';
  const { x, y } = p.toAffine();
  return `${x.toString(16)},${y.toString(16)}`;
}

function g2Key(p: G2Point): string {
  if (p.is0()) return 'inf';
  const { x, y } = p.toAffine();
  return `${x.c0.toString(16)},${x.c1.toString(16)},${y.c0.toString(16)},${y.c1.toString(16)}`;
}

/**
 * Parses and checks a snarkjs verification key (already `JSON.parse`d): protocol groth16, curve bn128,
 * IC of length nPublic + 1, every point on its curve and in its subgroup, α β γ δ not at infinity.
 * Throws {@link Groth16Error}. Do it once per key and keep the result.
 */
export function prepareVerifyingKey(json: unknown): PreparedVerifyingKey {
  if (typeof json !== 'object' || json === null)
    throw new Groth16Error('verification key: expected an object');
  const o = json as Record<string, unknown>;
  if (o.protocol !== 'groth16') throw new Groth16Error('verification key: protocol is not groth16');
  if (o.curve !== undefined && o.curve !== 'bn128')
    throw new Groth16Error('verification key: curve is not bn128');
  const n = o.nPublic;
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0) {
    throw new Groth16Error('verification key: nPublic must be a non-negative integer');
  }
  if (!Array.isArray(o.IC) || o.IC.length !== n + 1) {
    throw new Groth16Error(`verification key: IC must have nPublic + 1 = ${n + 1} points`);
  }
  const alpha = g1FromSnarkjs(o.vk_alpha_1, 'vk_alpha_1');
  const beta = g2FromSnarkjs(o.vk_beta_2, 'vk_beta_2');
  const gamma = g2FromSnarkjs(o.vk_gamma_2, 'vk_gamma_2');
  const delta = g2FromSnarkjs(o.vk_delta_2, 'vk_delta_2');
  for (const [name, p] of [
    ['vk_alpha_1', alpha],
    ['vk_beta_2', beta],
    ['vk_gamma_2', gamma],
    ['vk_delta_2', delta],
  ] as const) {
    if (p.is0()) throw new Groth16Error(`verification key: ${name} is the point at infinity`);
  }
  const ic = o.IC.map((p, i) => g1FromSnarkjs(p, `IC[${i}]`));
  return new PreparedVerifyingKey(n, alpha, beta, gamma, delta, ic);
}

/** Public inputs: wrong count → throws (caller bug); any value outside [0, r) → false. */
function inputsInField(vk: PreparedVerifyingKey, inputs: readonly bigint[]): boolean {
  if (inputs.length !== vk.nPublic) {
    throw new Groth16Error(`expected ${vk.nPublic} public inputs, got ${inputs.length}`);
  }
  for (const s of inputs) if (typeof s !== 'bigint' || s < 0n || s >= FR_ORDER) return false;
  return true;
}

function isProofBytes(proof: Uint8Array): boolean {
  return proof instanceof Uint8Array && proof.length === PROOF_BYTES;
}

// ---------- pure JS (noble) ----------

const Fp12 = bn254.fields.Fp12;

/** Verifies on @noble/curves only (synchronous, ~20–30 ms). Same contract as {@link verify}. */
export function verifyNoble(
  vk: PreparedVerifyingKey,
  publicInputs: readonly bigint[],
  proof128: Uint8Array,
): boolean {
  if (!inputsInField(vk, publicInputs) || !isProofBytes(proof128)) return false;
  let proof: ReturnType<typeof decodeProof>;
  try {
    proof = decodeProof(proof128);
  } catch {
    return false;
  }
  let vkx = vk.ic[0]!;
  for (let i = 0; i < publicInputs.length; i++) {
    const s = publicInputs[i]!;
    if (s !== 0n) vkx = vkx.add(vk.ic[i + 1]!.multiplyUnsafe(s));
  }
  if (vk.noble === undefined) {
    vk.noble = {
      beta: bn254.utils.calcPairingPrecomputes(vk.beta),
      gamma: bn254.utils.calcPairingPrecomputes(vk.gamma),
      delta: bn254.utils.calcPairingPrecomputes(vk.delta),
    };
  }
  const pre = vk.noble;
  const terms: [NoblePrecompute, bigint, bigint][] = [];
  const term = (p: G1Point, q: NoblePrecompute) => {
    if (p.is0()) return;
    const { x, y } = p.toAffine();
    terms.push([q, x, y]);
  };
  if (!proof.b.is0()) term(proof.a.negate(), bn254.utils.calcPairingPrecomputes(proof.b));
  term(vk.alpha, pre.beta);
  term(vkx, pre.gamma);
  term(proof.c, pre.delta);
  return Fp12.eql(Fp12.finalExponentiate(bn254.millerLoopBatch(terms)), Fp12.ONE);
}

// ---------- WebAssembly (ffjavascript, single thread) ----------

const MASK64 = (1n << 64n) - 1n;
const G1_JAC = 96; // x, y, z: 32-byte Montgomery Fp each
const G1_AFF = 64;
const G2_JAC = 192; // x, y, z in Fp2 (c0 ‖ c1)
const FP12 = 384;

const F2 = bn254.fields.Fp2;
const conj = (a: Fp2): Fp2 => ({ c0: a.c0, c1: a.c1 === 0n ? 0n : FP_MODULUS - a.c1 });
/** 6u² for the BN parameter u = 4965661367192848881 (127 bits). */
const SIX_U2 = 6n * 4965661367192848881n ** 2n;
const SIX_U2_BYTES = 16;
/** ψ (untwist–Frobenius–twist) on the D-type twist: ψ(x, y) = (x̄·ξ^((p−1)/3), ȳ·ξ^((p−1)/2)), ξ = 9 + u. */
const XI: Fp2 = { c0: 9n, c1: 1n };
const PSI_X: Fp2 = F2.pow(XI, (FP_MODULUS - 1n) / 3n);
const PSI_Y: Fp2 = F2.pow(XI, (FP_MODULUS - 1n) / 2n);

/** A well-formed proof of a batch: its position, public inputs and decoded points (B affine, or null at infinity). */
interface BatchItem {
  readonly index: number;
  readonly inputs: readonly bigint[];
  readonly a: G1Point;
  readonly b: { x: Fp2; y: Fp2 } | null;
  readonly c: G1Point;
}

/** WebAssembly state of one verification key. */
interface WasmKey {
  /** IC_0 … IC_n, affine Montgomery (64 B each). */
  readonly pIc: number;
  readonly pPreGamma: number;
  readonly pPreDelta: number;
  /** Miller loop (no final exponentiation) of (α, β). */
  readonly pAlphaBeta: number;
  /** β prepared for the Miller loop (batches pair it with Σ rᵢ·α). */
  readonly pPreBeta: number;
  /** α, jacobian Montgomery. */
  readonly pAlpha: number;
}

/** The WebAssembly BN254 verifier: one per process (see {@link wasmVerifier}). */
export class WasmGroth16 {
  private readonly curve: Bn128Curve;
  private readonly ex: WasmExports;
  private readonly q: bigint;
  private view: DataView;
  private readonly keys = new Map<string, WasmKey>();
  // Scratch buffers, allocated once.
  private readonly pA: number;
  private readonly pB: number;
  private readonly pC: number;
  private readonly pAcc: number;
  private readonly pAcc2: number;
  private readonly pTmp: number;
  private readonly pTmpG2: number;
  private readonly pSixU2: number;
  /** A 32-byte scalar scratch (batch coefficients). */
  private readonly pSixU2Scratch: number;
  private readonly pPsi: number;
  private readonly pPreP: number;
  private readonly pPreQ: number;
  private readonly pF: number;
  private readonly pAux: number;

  constructor(curve: Bn128Curve) {
    this.curve = curve;
    this.ex = curve.tm.instance.exports;
    this.q = curve.q;
    if (this.q !== FP_MODULUS || curve.r !== FR_ORDER)
      throw new Groth16Error('ffjavascript curve is not BN254');
    this.view = new DataView(curve.tm.memory.buffer);
    this.pA = this.alloc(G1_JAC);
    this.pB = this.alloc(G2_JAC);
    this.pC = this.alloc(G1_JAC);
    this.pAcc = this.alloc(G1_JAC);
    this.pAcc2 = this.alloc(G1_JAC);
    this.pTmp = this.alloc(G1_JAC);
    this.pTmpG2 = this.alloc(G2_JAC);
    this.pSixU2 = this.alloc(32);
    this.pSixU2Scratch = this.alloc(32);
    this.pPsi = this.alloc(128);
    this.pPreP = this.alloc(curve.prePSize);
    this.pPreQ = this.alloc(curve.preQSize);
    this.pF = this.alloc(FP12);
    this.pAux = this.alloc(FP12);
    this.putScalar(this.pSixU2, SIX_U2);
  }

  /** Permanent allocation in the main instance's memory, growing it (and ffjavascript's views) if needed. */
  private alloc(n: number): number {
    const tm = this.curve.tm;
    const p = tm.alloc(n);
    const end = p + n;
    const mem = tm.memory;
    if (end > mem.buffer.byteLength) {
      mem.grow(Math.ceil((end - mem.buffer.byteLength) / 65536));
      tm.u8 = new Uint8Array(mem.buffer);
      tm.u32 = new Uint32Array(mem.buffer);
    }
    if (this.view === undefined || this.view.buffer !== mem.buffer) this.view = new DataView(mem.buffer);
    return p;
  }

  /** 32-byte little-endian Montgomery form (x·2^256 mod q) of a canonical Fp element. */
  private putFp(ptr: number, x: bigint): void {
    let m = (x << 256n) % this.q;
    const v = this.view;
    for (let i = 0; i < 4; i++) {
      v.setBigUint64(ptr + 8 * i, m & MASK64, true);
      m >>= 64n;
    }
  }

  /** Raw little-endian scalar (not Montgomery), 32 bytes; returns its significant byte length. */
  private scalars = 0;
  private scalarsCapacity = 0;

  /** A buffer for `n` 32-byte scalars, grown (never shrunk) as needed. */
  private scalarBuffer(n: number): number {
    if (n > this.scalarsCapacity) {
      this.scalars = this.alloc(32 * n);
      this.scalarsCapacity = n;
    }
    return this.scalars;
  }

  private putScalar(ptr: number, s: bigint): number {
    let m = s;
    const v = this.view;
    for (let i = 0; i < 4; i++) {
      v.setBigUint64(ptr + 8 * i, m & MASK64, true);
      m >>= 64n;
    }
    let n = 32;
    while (n > 0 && v.getUint8(ptr + n - 1) === 0) n--;
    return n;
  }

  private putG1Jac(ptr: number, x: bigint, y: bigint): void {
    this.putFp(ptr, x);
    this.putFp(ptr + 32, y);
    this.putFp(ptr + 64, 1n);
  }

  private putG1(ptr: number, p: G1Point, jacobian: boolean): void {
    if (p.is0()) {
      if (jacobian) this.ex.g1m_zero!(ptr);
      else this.ex.g1m_zeroAffine!(ptr);
      return;
    }
    const { x, y } = p.toAffine();
    this.putFp(ptr, x);
    this.putFp(ptr + 32, y);
    if (jacobian) this.putFp(ptr + 64, 1n);
  }

  private putG2Jac(ptr: number, x: Fp2, y: Fp2): void {
    this.putFp(ptr, x.c0);
    this.putFp(ptr + 32, x.c1);
    this.putFp(ptr + 64, y.c0);
    this.putFp(ptr + 96, y.c1);
    this.putFp(ptr + 128, 1n);
    this.putFp(ptr + 160, 0n);
  }

  /** Prepares (once per distinct key content) the key's constant parts in WebAssembly memory. */
  private key(vk: PreparedVerifyingKey): WasmKey {
    const cached = this.keys.get(vk.fingerprint);
    if (cached) return cached;
    const ex = this.ex;
    const pIc = this.alloc(G1_AFF * vk.ic.length);
    for (let i = 0; i < vk.ic.length; i++) this.putG1(pIc + G1_AFF * i, vk.ic[i]!, false);
    const pPreGamma = this.alloc(this.curve.preQSize);
    const pPreDelta = this.alloc(this.curve.preQSize);
    const pAlphaBeta = this.alloc(FP12);
    const pPreBeta = this.alloc(this.curve.preQSize);
    const pAlpha = this.alloc(G1_JAC);
    const g2 = (p: G2Point) => {
      const a = p.toAffine();
      this.putG2Jac(this.pB, a.x, a.y);
    };
    g2(vk.gamma);
    ex.bn128_prepareG2!(this.pB, pPreGamma);
    g2(vk.delta);
    ex.bn128_prepareG2!(this.pB, pPreDelta);
    g2(vk.beta);
    ex.bn128_prepareG2!(this.pB, pPreBeta);
    this.putG1(pAlpha, vk.alpha, true);
    ex.bn128_prepareG1!(pAlpha, this.pPreP);
    ex.bn128_millerLoop!(this.pPreP, pPreBeta, pAlphaBeta);
    const k: WasmKey = { pIc, pPreGamma, pPreDelta, pAlphaBeta, pPreBeta, pAlpha };
    this.keys.set(vk.fingerprint, k);
    return k;
  }

  /** Multiplies Miller loop (pG1 jacobian, prepared G2 at pPreQ) into pF. */
  private millerInto(pG1: number, pPreQ: number): void {
    const ex = this.ex;
    ex.bn128_prepareG1!(pG1, this.pPreP);
    ex.bn128_millerLoop!(this.pPreP, pPreQ, this.pAux);
    ex.ftm_mul!(this.pF, this.pAux, this.pF);
  }

  /** Releases the curve (a no-op for ffjavascript's single-threaded curve, kept for symmetry). */
  async close(): Promise<void> {
    this.keys.clear();
    await this.curve.terminate();
  }

  /**
   * Whether the twist point (x, y) (assumed on the curve) is in the order-r subgroup G2, by the
   * endomorphism test ψ(P) = [6u²]P (u the BN parameter; El Housni–Guillevic–Piellard 2022, also
   * noble's `isTorsionFree`): [6u²]P in WebAssembly (a 127-bit scalar, half the cost of [r]P), ψ(P) in
   * JS. Leaves P (jacobian, Montgomery) in the B scratch buffer.
   */
  g2InSubgroup(x: Fp2, y: Fp2): boolean {
    const ex = this.ex;
    this.putG2Jac(this.pB, x, y);
    ex.g2m_timesScalar!(this.pB, this.pSixU2, SIX_U2_BYTES, this.pTmpG2);
    const px = F2.mul(conj(x), PSI_X);
    const py = F2.mul(conj(y), PSI_Y);
    this.putFp(this.pPsi, px.c0);
    this.putFp(this.pPsi + 32, px.c1);
    this.putFp(this.pPsi + 64, py.c0);
    this.putFp(this.pPsi + 96, py.c1);
    return ex.g2m_eqMixed!(this.pTmpG2, this.pPsi) !== 0;
  }

  /** Growable scratch buffers for batches (bases and scalars), allocated once per size class. */
  private readonly buffers = new Map<string, { ptr: number; capacity: number }>();

  private buffer(name: string, bytes: number): number {
    const b = this.buffers.get(name);
    if (b !== undefined && b.capacity >= bytes) return b.ptr;
    const capacity = Math.max(bytes, 2 * (b?.capacity ?? 0));
    const ptr = this.alloc(capacity);
    this.buffers.set(name, { ptr, capacity });
    return ptr;
  }

  /**
   * Verifies many proofs of one key at once; one boolean per item, in order, each `true` iff that
   * proof verifies (the contract of {@link verify}, item by item). Malformed items are `false` and stay
   * out of the batch. The well-formed ones are checked together with a random linear combination
   * (rᵢ from `random`, a CSPRNG by default, summing to 1: see `batchHolds`):
   *   Π e(−rᵢ·Aᵢ, Bᵢ) · e((Σrᵢ)·α, β) · e(Σ rᵢ·vk_xᵢ, γ) · e(Σ rᵢ·Cᵢ, δ) == 1,
   * the vk_x folded into one MSM over IC (scalars Σrᵢ and Σ rᵢ·sᵢⱼ), the Cᵢ into one MSM and e(α, β)
   * precomputed: n + 2 Miller loops and one final exponentiation. A failing batch is split in halves
   * until each bad proof stands alone, so the result names exactly the proofs that do not verify.
   */
  verifyBatch(
    vk: PreparedVerifyingKey,
    items: readonly { readonly publicInputs: readonly bigint[]; readonly proof: Uint8Array }[],
    random: (bytes: number) => Uint8Array = randomBytes,
  ): boolean[] {
    const results = items.map(() => false);
    const decoded: BatchItem[] = [];
    items.forEach((item, index) => {
      if (!inputsInField(vk, item.publicInputs) || !isProofBytes(item.proof)) return;
      let a: G1Point;
      let b: { x: Fp2; y: Fp2 } | null;
      let c: G1Point;
      try {
        a = decompressG1(item.proof.subarray(0, 32));
        b = decompressG2Affine(item.proof.subarray(32, 96));
        c = decompressG1(item.proof.subarray(96, 128));
      } catch {
        return;
      }
      if (b !== null && !this.g2InSubgroup(b.x, b.y)) return;
      decoded.push({ index, inputs: item.publicInputs, a, b, c });
    });
    const settle = (group: BatchItem[]): void => {
      if (group.length === 0) return;
      if (this.batchHolds(vk, group, random)) {
        for (const it of group) results[it.index] = true;
        return;
      }
      if (group.length === 1) return;
      const half = group.length >> 1;
      settle(group.slice(0, half));
      settle(group.slice(half));
    };
    settle(decoded);
    return results;
  }

  /**
   * Whether the random linear combination of the (well-formed) items' equations holds. The
   * coefficients sum to 1: r₁…rₙ₋₁ random 128-bit, rₙ = 1 − Σ the others (mod r), so the α·β term is
   * e(α, β) itself, its Miller loop precomputed with the key (one multiplication instead of a scalar
   * multiplication and a Miller loop). Soundness holds on that hyperplane: for error exponents eᵢ of
   * the items, Σ rᵢ·eᵢ = Σᵢ₍ₙ rᵢ·(eᵢ − eₙ) + eₙ vanishes with probability at most 2⁻¹²⁸ unless every
   * eᵢ = eₙ, and then it equals eₙ, which is 0 only if every item verifies. A single item thus gets
   * the plain verification equation. Should rₙ come out 0 (or the coefficients be fixed by a test), rₙ
   * is drawn too and the α·β term is computed as e((Σrᵢ)·α, β).
   */
  private batchHolds(
    vk: PreparedVerifyingKey,
    group: readonly BatchItem[],
    random: (bytes: number) => Uint8Array,
  ): boolean {
    const ex = this.ex;
    const k = this.key(vk);
    const n = group.length;
    const nPub = vk.nPublic;
    const draw = (): bigint => {
      let r = 0n;
      while (r === 0n) {
        const bytes = random(16);
        r = 0n;
        for (let i = 0; i < 16; i++) r = (r << 8n) | BigInt(bytes[i]!);
      }
      return r;
    };
    const rs = group.map(draw);
    let rest = 0n;
    for (let i = 0; i < n - 1; i++) rest += rs[i]!;
    const last = (((1n - rest) % FR_ORDER) + FR_ORDER) % FR_ORDER;
    if (last !== 0n) rs[n - 1] = last;
    let sumR = 0n;
    for (const r of rs) sumR += r;
    sumR %= FR_ORDER;
    const t = new Array<bigint>(nPub).fill(0n);
    group.forEach((it, i) => {
      const r = rs[i]!;
      for (let j = 0; j < nPub; j++) if (it.inputs[j] !== 0n) t[j] = t[j]! + r * it.inputs[j]!;
    });

    ex.ftm_copy!(this.curve.tm.pOneT, this.pF);
    // Π e(−rᵢ·Aᵢ, Bᵢ)
    for (let i = 0; i < n; i++) {
      const it = group[i]!;
      if (it.a.is0() || it.b === null) continue;
      const { x, y } = it.a.toAffine();
      this.putG1Jac(this.pA, x, y === 0n ? 0n : this.q - y);
      let pA = this.pA;
      if (rs[i] !== 1n) {
        const rLen = this.putScalar(this.pSixU2Scratch, rs[i]!);
        ex.g1m_timesScalar!(this.pA, this.pSixU2Scratch, rLen, this.pTmp);
        pA = this.pTmp;
      }
      this.putG2Jac(this.pB, it.b.x, it.b.y);
      ex.bn128_prepareG2!(this.pB, this.pPreQ);
      this.millerInto(pA, this.pPreQ);
    }
    // e((Σrᵢ)·α, β): e(α, β) when the coefficients sum to 1.
    if (sumR === 1n) ex.ftm_mul!(this.pF, k.pAlphaBeta, this.pF);
    else if (sumR !== 0n) {
      const len = this.putScalar(this.pSixU2Scratch, sumR);
      ex.g1m_timesScalar!(k.pAlpha, this.pSixU2Scratch, len, this.pTmp);
      this.millerInto(this.pTmp, k.pPreBeta);
    }
    // e(Σ rᵢ·vk_xᵢ, γ): one MSM over IC_0..IC_n with scalars Σrᵢ, Σ rᵢ·sᵢⱼ (mod r).
    const icScalars = this.buffer('icScalars', 32 * (nPub + 1));
    this.putScalar(icScalars, sumR);
    for (let j = 0; j < nPub; j++) this.putScalar(icScalars + 32 * (j + 1), t[j]! % FR_ORDER);
    ex.g1m_multiexpAffine!(k.pIc, icScalars, 32, nPub + 1, this.pAcc);
    if (!ex.g1m_isZero!(this.pAcc)) this.millerInto(this.pAcc, k.pPreGamma);
    // e(Σ rᵢ·Cᵢ, δ): one MSM over the Cᵢ not at infinity with a 128-bit coefficient, plus the one
    // with the full-size rₙ on its own.
    const cs = group.map((it, i) => [it.c, rs[i]!] as const).filter(([c]) => !c.is0());
    const full = cs.find(([, r]) => r >= 1n << 128n); // rₙ's item, the only full-size coefficient
    const small = cs.filter((x) => x !== full);
    ex.g1m_zero!(this.pAcc2);
    if (small.length > 0) {
      const bases = this.buffer('cBases', G1_AFF * small.length);
      const scalars = this.buffer('cScalars', 16 * small.length);
      small.forEach(([c, r], i) => {
        this.putG1(bases + G1_AFF * i, c, false);
        this.putScalar16(scalars + 16 * i, r);
      });
      ex.g1m_multiexpAffine!(bases, scalars, 16, small.length, this.pAcc2);
    }
    let acc = this.pAcc2;
    if (full) {
      this.putG1(this.pC, full[0], true);
      const len = this.putScalar(this.pSixU2Scratch, full[1]);
      ex.g1m_timesScalar!(this.pC, this.pSixU2Scratch, len, this.pTmp);
      ex.g1m_add!(this.pAcc2, this.pTmp, this.pAcc); // pAcc is free again: its Miller loop is done
      acc = this.pAcc;
    }
    if (!ex.g1m_isZero!(acc)) this.millerInto(acc, k.pPreDelta);
    ex.bn128_finalExponentiation!(this.pF, this.pF);
    return ex.ftm_eq!(this.pF, this.curve.tm.pOneT) !== 0;
  }

  /** A 128-bit scalar, 16 bytes little-endian. */
  private putScalar16(ptr: number, s: bigint): void {
    this.view.setBigUint64(ptr, s & MASK64, true);
    this.view.setBigUint64(ptr + 8, (s >> 64n) & MASK64, true);
  }

  /** Synchronous verify; same contract as {@link verify}. */
  verify(vk: PreparedVerifyingKey, publicInputs: readonly bigint[], proof128: Uint8Array): boolean {
    if (!inputsInField(vk, publicInputs) || !isProofBytes(proof128)) return false;
    const ex = this.ex;
    const k = this.key(vk);

    // Decode: G1 points with noble (cofactor 1: on the curve = in the group); B on the twist, with the
    // subgroup check done below in WebAssembly.
    let a: G1Point;
    let b: { x: Fp2; y: Fp2 } | null;
    let c: G1Point;
    try {
      a = decompressG1(proof128.subarray(0, 32));
      b = decompressG2Affine(proof128.subarray(32, 96));
      c = decompressG1(proof128.subarray(96, 128));
    } catch {
      return false;
    }
    if (b !== null && !this.g2InSubgroup(b.x, b.y)) return false;

    // vk_x = IC_0 + Σ s_i·IC_{i+1}, the sum as one multi-exponentiation (Pippenger, in WebAssembly).
    let acc = this.pAcc;
    const other = this.pAcc2;
    ex.g1m_toJacobian!(k.pIc, acc);
    const count = publicInputs.length;
    if (count > 0) {
      const scalars = this.scalarBuffer(count);
      for (let i = 0; i < count; i++) this.putScalar(scalars + 32 * i, publicInputs[i]!);
      ex.g1m_multiexpAffine!(k.pIc + G1_AFF, scalars, 32, count, this.pTmp);
      ex.g1m_add!(acc, this.pTmp, other);
      acc = other;
    }

    // e(−A, B) · e(α, β) · e(vk_x, γ) · e(C, δ) == 1
    ex.ftm_copy!(k.pAlphaBeta, this.pF);
    if (!a.is0() && b !== null) {
      const { x, y } = a.toAffine();
      this.putG1Jac(this.pA, x, y === 0n ? 0n : this.q - y);
      ex.bn128_prepareG2!(this.pB, this.pPreQ); // B is still in pB (g2InSubgroup)
      this.millerInto(this.pA, this.pPreQ);
    }
    if (!ex.g1m_isZero!(acc)) this.millerInto(acc, k.pPreGamma);
    if (!c.is0()) {
      this.putG1(this.pC, c, true);
      this.millerInto(this.pC, k.pPreDelta);
    }
    ex.bn128_finalExponentiation!(this.pF, this.pF);
    return ex.ftm_eq!(this.pF, this.curve.tm.pOneT) !== 0;
  }
}

let engine: Promise<WasmGroth16> | null = null;

/** The process-wide WebAssembly verifier; the curve is built on the first call (~0.25 s). */
export function wasmVerifier(): Promise<WasmGroth16> {
  if (engine === null) {
    const p = buildBn128(true).then((curve) => new WasmGroth16(curve));
    p.catch(() => {
      if (engine === p) engine = null;
    });
    engine = p;
  }
  return engine;
}

/**
 * Verifies a 128-byte compressed proof on the single-threaded WebAssembly curve (≈ 5–6 ms; the first
 * call also builds the curve). `true` iff the proof verifies; `false` for a wrong or malformed proof
 * or a public input outside [0, r); throws {@link Groth16Error} for a wrong number of public inputs.
 */
export async function verify(
  vk: PreparedVerifyingKey,
  publicInputs: readonly bigint[],
  proof128: Uint8Array,
): Promise<boolean> {
  return (await wasmVerifier()).verify(vk, publicInputs, proof128);
}

/** {@link WasmGroth16.verifyBatch} on the process-wide WebAssembly verifier. */
export async function verifyBatch(
  vk: PreparedVerifyingKey,
  items: readonly { readonly publicInputs: readonly bigint[]; readonly proof: Uint8Array }[],
): Promise<boolean[]> {
  return (await wasmVerifier()).verifyBatch(vk, items);
}

/** Drops the WebAssembly curve (single-threaded: no workers to stop). The next verify rebuilds it. */
export async function terminate(): Promise<void> {
  const e = engine;
  engine = null;
  if (e !== null) {
    const v = await e.catch(() => null);
    await v?.close();
  }
}
