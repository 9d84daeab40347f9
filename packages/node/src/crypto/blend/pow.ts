/**
 * The Blend admission puzzle behind the proof-of-work branch of the proof of quota: a private nonce
 * whose ticket digest([BLEND_POW_V1, epoch_nonce, nonce]) is strictly below the epoch's Blend
 * difficulty (a smaller difficulty is a harder puzzle; zero admits nothing)
 * (F: blend/proofs/src/quota/pow.rs).
 */
import { randomFillSync } from 'node:crypto';
import { FR_BYTES, FR_MODULUS, type Fr, frFromAscii, leBytesToBigint } from '../field.ts';
import { digest } from '../poseidon2/index.ts';

/** F: pow.rs DOMAIN_SEPARATION_TAG, "BLEND_POW_V1" as a little-endian field element. */
export const BLEND_POW_V1: Fr = frFromAscii('BLEND_POW_V1');

/** The ticket a candidate nonce derives for an epoch. */
export function powTicket(epochNonce: Fr, powNonce: Fr): Fr {
  return digest([BLEND_POW_V1, epochNonce, powNonce]);
}

/** Whether a ticket is admitted: strictly below the difficulty, as integers. */
export function powTicketSatisfies(ticket: Fr, difficulty: Fr): boolean {
  return ticket < difficulty;
}

/** Fills a buffer with random bytes (injectable for tests). */
export type RandomFill = (out: Uint8Array) => void;

const fillRandom: RandomFill = (out) => {
  randomFillSync(out);
};

/**
 * A field element uniform in [0, p): 32 random bytes read little-endian with the two bits above 2^254
 * cleared, drawn again while the value is not below p (F: pow.rs random_nonce).
 */
export function randomPowNonce(fill: RandomFill = fillRandom): Fr {
  const bytes = new Uint8Array(FR_BYTES);
  for (;;) {
    fill(bytes);
    bytes[FR_BYTES - 1]! &= 0x3f;
    const v = leBytesToBigint(bytes);
    if (v < FR_MODULUS) return v;
  }
}

/**
 * Tries `attempts` random nonces and returns the first whose ticket satisfies `difficulty`, or
 * undefined when none does (at once for a zero difficulty, which admits no ticket)
 * (F: pow.rs solve_puzzle).
 */
export function solvePowPuzzle(
  epochNonce: Fr,
  difficulty: Fr,
  attempts: number,
  fill: RandomFill = fillRandom,
): Fr | undefined {
  if (!Number.isSafeInteger(attempts) || attempts < 1)
    throw new RangeError('attempts must be a positive integer');
  if (difficulty === 0n) return undefined;
  for (let i = 0; i < attempts; i++) {
    const nonce = randomPowNonce(fill);
    if (powTicketSatisfies(powTicket(epochNonce, nonce), difficulty)) return nonce;
  }
  return undefined;
}
