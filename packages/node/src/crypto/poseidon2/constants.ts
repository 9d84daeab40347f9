/**
 * Poseidon2 round constants for BN254, t = 3 (the HorizenLabs instance used by jf-poseidon2
 * `Poseidon2ParamsBn3`), generated at module load with the Grain LFSR recipe of the Poseidon paper
 * (reference/crypto.md §4.2). Generation takes well under a millisecond; the test vectors pin it.
 */
import { FR_MODULUS, type Fr } from '../field.ts';

/** State width. */
export const T = 3;
/** Full rounds, split evenly before and after the partial rounds. */
export const ROUNDS_FULL = 8;
/** Partial rounds. */
export const ROUNDS_PARTIAL = 56;
/** Bit size of the field modulus. */
const FIELD_BITS = 254;

/**
 * The Grain LFSR in self-shrinking mode, as a bit generator.
 *
 * 1. 80-bit initial state, most significant bit first: field type 1 (2 bits, prime field), S-box 0
 *    (4 bits, x^alpha), n (12 bits), t (12 bits), R_F (10 bits), R_P (10 bits), then 30 ones.
 * 2. New bit = b[62] ^ b[51] ^ b[38] ^ b[23] ^ b[13] ^ b[0]; shift left, append it. The first 160 bits
 *    are discarded.
 * 3. Self-shrinking: bits are taken in pairs; if the first is 1 the second is output, else nothing.
 */
function grainLfsr(): () => number {
  const bits: number[] = [];
  const push = (value: number, width: number): void => {
    for (let i = width - 1; i >= 0; i--) bits.push((value >> i) & 1);
  };
  push(1, 2);
  push(0, 4);
  push(FIELD_BITS, 12);
  push(T, 12);
  push(ROUNDS_FULL, 10);
  push(ROUNDS_PARTIAL, 10);
  push(0x3fffffff, 30);
  if (bits.length !== 80) throw new Error('Grain LFSR: bad initial state length');

  // Ring buffer: `head` is the index of b[0]; b[k] is bits[(head + k) % 80].
  let head = 0;
  const at = (k: number): number => bits[(head + k) % 80]!;
  const step = (): number => {
    const bit = at(62) ^ at(51) ^ at(38) ^ at(23) ^ at(13) ^ at(0);
    bits[head] = bit; // b[0] leaves, the new bit becomes b[79]
    head = (head + 1) % 80;
    return bit;
  };
  for (let i = 0; i < 160; i++) step();
  return () => {
    for (;;) {
      const first = step();
      const second = step();
      if (first === 1) return second;
    }
  };
}

/** Draws field elements: 254-bit big-endian integers from the LFSR, rejecting values >= p. */
function generateConstants(count: number): Fr[] {
  const nextBit = grainLfsr();
  const out: Fr[] = [];
  while (out.length < count) {
    let v = 0n;
    for (let i = 0; i < FIELD_BITS; i++) v = (v << 1n) | BigInt(nextBit());
    if (v < FR_MODULUS) out.push(v);
  }
  return out;
}

const HALF_FULL = ROUNDS_FULL / 2;
const all = generateConstants(ROUNDS_FULL * T + ROUNDS_PARTIAL);

function take3(offset: number): readonly [Fr, Fr, Fr] {
  return Object.freeze([all[offset]!, all[offset + 1]!, all[offset + 2]!] as const);
}

/** Constants of the 4 full rounds before the partial rounds: 3 per round. */
export const EXTERNAL_CONSTANTS_BEGIN: readonly (readonly [Fr, Fr, Fr])[] = Object.freeze(
  Array.from({ length: HALF_FULL }, (_, r) => take3(r * T)),
);

/** Constants of the 56 partial rounds: 1 per round, added to lane 0. */
export const INTERNAL_CONSTANTS: readonly Fr[] = Object.freeze(
  all.slice(HALF_FULL * T, HALF_FULL * T + ROUNDS_PARTIAL),
);

/** Constants of the 4 full rounds after the partial rounds: 3 per round. */
export const EXTERNAL_CONSTANTS_END: readonly (readonly [Fr, Fr, Fr])[] = Object.freeze(
  Array.from({ length: HALF_FULL }, (_, r) => take3(HALF_FULL * T + ROUNDS_PARTIAL + r * T)),
);
