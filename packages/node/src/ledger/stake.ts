/**
 * Total stake inference (F: ledger/src/cryptarchia/stake.rs). At each epoch change the total stake
 * estimate S is corrected by the measured block density N (distinct occupied slots of the inference
 * period, see `block-density.ts`) against the expected density P·f of a period of P slots:
 *
 *   S' = S − h·S·(P·f − N) / (P·f),  at least 1
 *
 * in the reference's fixed point: h and f are taken as binary64 values, scaled by 1000 and truncated,
 * and every quotient truncates towards zero (so a density above the expected one raises S).
 */
import { type Ratio, slotCoeffAsF64 } from './parameters.ts';

/** The fixed-point scale of the inference (`PRECISION`). */
export const STAKE_INFERENCE_PRECISION = 1000n;

export interface StakeInference {
  /** h × 1000, truncated. */
  readonly learning_rate: bigint;
  /** f × 1000, truncated. */
  readonly slot_activation_coeff: bigint;
  /** P, the length of the inference period in slots. */
  readonly period: bigint;
}

/** The inference parameters: h and f as binary64 values (as the reference holds them), and P. */
export function stakeInference(learningRate: Ratio, f: Ratio, period: bigint): StakeInference {
  const scale = Number(STAKE_INFERENCE_PRECISION);
  return {
    learning_rate: BigInt(Math.trunc(slotCoeffAsF64(learningRate) * scale)),
    slot_activation_coeff: BigInt(Math.trunc(slotCoeffAsF64(f) * scale)),
    period,
  };
}

/** P·f × 1000: the expected density of a period, in fixed point. */
export function expectedDensity(i: StakeInference): bigint {
  return i.period * i.slot_activation_coeff;
}

/** The next total stake estimate from the current one and the measured block density. */
export function totalStakeInference(i: StakeInference, stake: bigint, density: bigint): bigint {
  const p = STAKE_INFERENCE_PRECISION;
  const expected = expectedDensity(i);
  const error = (stake * p * (expected - density * p)) / expected;
  const correction = (i.learning_rate * error) / p;
  const next = (stake * p - correction) / p;
  // inferred: an estimate above u64::MAX is kept, the reference panics (docs/design/fidelity.md)
  return next < 1n ? 1n : next;
}
