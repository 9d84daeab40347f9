/**
 * The Cryptarchia leader lottery (reference/consensus.md §3–§4; reference `zk/proofs/pol/src/lottery.rs`).
 *
 * Lottery constants, for an active slot coefficient f:
 *   T0 = floor(p · (−ln(1−f)))
 *   T1 = floor(p · ln²(1−f) / 2)
 * Per epoch, with S the (inferred) total stake and integer division:
 *   t0 = T0 / S
 *   t1 = p − T1 / S²          (as a field element, i.e. −(T1 / S²) mod p)
 * A note of value v wins a slot iff ticket < v·(t0 + t1·v) (field arithmetic, then compared as integers),
 * which approximates p·(1 − (1−f)^(v/S)) to second order.
 *
 * The reference evaluates ln with a 512-bit BigFloat. Here −ln(1−f) is computed in exact big-integer
 * fixed point as a rigorous enclosure [lo, hi] (see `negLnOneMinusF`), and the floors are taken only
 * when both ends of the enclosure give the same integer, so T0 and T1 are the exact mathematical
 * values (which the 512-bit reference reproduces unless p·ln(1−f) falls within ~2^-250 of an integer).
 */

import { LogosError } from '@logos-ts/shared/errors';
import { FR_MODULUS, type Fr, fr, frAdd, frFromAscii, frMod, frMul } from '../crypto/field.ts';
import { digest } from '../crypto/poseidon2/index.ts';

export class LotteryError extends LogosError {
  constructor(message: string) {
    super('LOTTERY_ERROR', message);
  }
}

/** Domain tag of the leadership ticket: LE integer of "LEAD_V1" = 13887241025832268. */
export const LEAD_V1: Fr = frFromAscii('LEAD_V1');

/**
 * Domain tag of the entropy contribution. Its value is not stated in the sources available to us (it is
 * a constant of the PoL circuit); we use the little-endian integer of the ASCII bytes "NONCE_CONTRIB_V1",
 * the same convention as every other domain constant (KDF, NOTE_ID_V1, LEAD_V1, EPOCH_NONCE_V1).
 * Unverified against the circuit.
 * inferred: "NONCE_CONTRIB_V1" as an ASCII little-endian constant, F has no PoL circuit source (docs/design/fidelity.md)
 */
export const NONCE_CONTRIB_V1: Fr = frFromAscii('NONCE_CONTRIB_V1');

/** Domain tag of the epoch nonce update: LE integer of "EPOCH_NONCE_V1" = 1000681177364816279997158727307333. */
export const EPOCH_NONCE_V1: Fr = frFromAscii('EPOCH_NONCE_V1');

/** The active slot coefficient f = num/den, 0 < f < 1. */
export interface SlotCoefficient {
  num: bigint;
  den: bigint;
}

export interface LotteryConstants {
  readonly T0: bigint;
  readonly T1: bigint;
}

export interface EpochLottery {
  readonly t0: Fr;
  readonly t1: Fr;
}

/** Fixed-point fraction bits used for the first attempt; doubled until the floors are determined. */
export const DEFAULT_PRECISION_BITS = 1024;

function gcd(a: bigint, b: bigint): bigint {
  let x = a < 0n ? -a : a;
  let y = b < 0n ? -b : b;
  while (y !== 0n) [x, y] = [y, x % y];
  return x;
}

/** Validates f and returns it in lowest terms. */
function normalize(f: SlotCoefficient): SlotCoefficient {
  const { num, den } = f;
  if (typeof num !== 'bigint' || typeof den !== 'bigint')
    throw new LotteryError('slot coefficient num/den must be bigints');
  if (!(den > 0n && num > 0n && num < den))
    throw new LotteryError(`slot coefficient must satisfy 0 < f < 1, got ${num}/${den}`);
  const g = gcd(num, den);
  return { num: num / g, den: den / g };
}

/**
 * A rigorous fixed-point enclosure of −ln(1−f) at scale 2^bits: lo ≤ 2^bits · (−ln(1−f)) ≤ hi.
 *
 * −ln(1−f) = ln(den/(den−num)) = 2·atanh(y), y = num/(2·den − num) ∈ (0, 1), and
 * atanh(y) = Σ_{k≥0} y^(2k+1)/(2k+1). With r = y² = a²/b², the powers W_k = 2^bits·y^(2k+1) are
 * tracked as w_0 = floor(2^bits·a/b), w_{k+1} = floor(w_k·a²/b²), so 0 ≤ W_k − w_k < k+1; each term
 * floor(w_k/(2k+1)) loses less than one more unit. The loop stops at the first K with w_K = 0, where
 * W_K < K+1, so the tail Σ_{j≥K} W_j/(2j+1) < (K+1)/(1−r). Summing these gives the bound hi − lo.
 */
export function negLnOneMinusF(f: SlotCoefficient, bits: number): { lo: bigint; hi: bigint } {
  if (!Number.isInteger(bits) || bits < 1) throw new LotteryError('precision must be a positive integer');
  const { num, den } = normalize(f);
  const a = num;
  const b = 2n * den - num;
  const a2 = a * a;
  const b2 = b * b;
  let w = (a << BigInt(bits)) / b;
  let sum = 0n;
  let err = 0n; // strict upper bound on (true atanh sum − sum), in units of 2^-bits
  let k = 0n;
  while (w !== 0n) {
    sum += w / (2n * k + 1n);
    err += k + 2n; // < k+1 from w_k, < 1 from the division
    w = (w * a2) / b2;
    k += 1n;
  }
  // Tail: W_K < K+1 and Σ_{j≥K} W_j/(2j+1) ≤ W_K/(1 − r) = W_K·b²/(b² − a²).
  err += ((k + 1n) * b2 + (b2 - a2) - 1n) / (b2 - a2);
  return { lo: 2n * sum, hi: 2n * (sum + err) };
}

/** floor(p·L) and floor(p·L²/2) from an enclosure of L; null when the enclosure is too wide to decide. */
function floorsAt(f: SlotCoefficient, bits: number): LotteryConstants | null {
  const { lo, hi } = negLnOneMinusF(f, bits);
  const s = BigInt(bits);
  const t0lo = (FR_MODULUS * lo) >> s;
  const t0hi = (FR_MODULUS * hi) >> s;
  const t1lo = (FR_MODULUS * lo * lo) >> (2n * s + 1n);
  const t1hi = (FR_MODULUS * hi * hi) >> (2n * s + 1n);
  if (t0lo !== t0hi || t1lo !== t1hi) return null;
  return { T0: t0lo, T1: t1lo };
}

/**
 * T0 and T1 for f, computed exactly: starts at `bits` fraction bits and doubles the precision until the
 * enclosure determines both floors (it always does eventually, ln(1−f) being irrational). Not memoized.
 */
export function computeLotteryConstants(
  f: SlotCoefficient,
  bits: number = DEFAULT_PRECISION_BITS,
): LotteryConstants {
  const nf = normalize(f);
  for (let b = bits; ; b *= 2) {
    const r = floorsAt(nf, b);
    if (r) return Object.freeze(r);
    if (b > 1 << 20) throw new LotteryError('lottery constants did not converge'); // unreachable in practice
  }
}

const cache = new Map<string, LotteryConstants>();

/** T0 and T1 for f (memoized per f in lowest terms). */
export function lotteryConstants(f: SlotCoefficient): LotteryConstants {
  const nf = normalize(f);
  const key = `${nf.num}/${nf.den}`;
  let c = cache.get(key);
  if (!c) {
    c = computeLotteryConstants(nf);
    cache.set(key, c);
  }
  return c;
}

/** Per-epoch lottery values for total stake S >= 1: t0 = T0/S, t1 = p − T1/S² (mod p). */
export function epochLottery(T: LotteryConstants, totalStake: bigint): EpochLottery {
  if (typeof totalStake !== 'bigint' || totalStake < 1n)
    throw new LotteryError(`total stake must be >= 1, got ${String(totalStake)}`);
  const t0 = T.T0 / totalStake;
  // T1 < p, so 0 < p − T1/S² <= p; T1/S² = 0 gives p, which is 0 as a field element.
  const t1 = frMod(FR_MODULUS - T.T1 / (totalStake * totalStake));
  return Object.freeze({ t0: frMod(t0), t1 });
}

/** threshold = v·(t0 + t1·v) in Fr. `value` must be a canonical field element (note values are u64). */
export function leaderThreshold(value: bigint, t: EpochLottery): Fr {
  const v = fr(value);
  return frMul(v, frAdd(t.t0, frMul(t.t1, v)));
}

/** ticket = Poseidon2.digest([LEAD_V1, epoch_nonce, slot, note_id, sk]). */
export function leaderTicket(epochNonce: Fr, slot: bigint, noteId: Fr, sk: Fr): Fr {
  return digest([LEAD_V1, epochNonce, fr(slot), noteId, sk]);
}

/** A note wins iff ticket < threshold, compared as integers. */
export function isWinningTicket(ticket: Fr, threshold: Fr): boolean {
  return ticket < threshold;
}

/** entropy_contribution = Poseidon2.digest([NONCE_CONTRIB_V1, slot, note_id, sk]). */
export function entropyContribution(slot: bigint, noteId: Fr, sk: Fr): Fr {
  return digest([NONCE_CONTRIB_V1, fr(slot), noteId, sk]);
}

/** Per-block nonce update: nonce' = Poseidon2.digest([EPOCH_NONCE_V1, nonce, entropy, Fr(slot)]). */
export function nextEpochNonce(nonce: Fr, entropy: Fr, slot: bigint): Fr {
  return digest([EPOCH_NONCE_V1, nonce, entropy, fr(slot)]);
}
