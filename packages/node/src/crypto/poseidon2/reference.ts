/**
 * Poseidon2 over BN254, t = 3, in plain bigint arithmetic (reference/crypto.md §4).
 *
 * Deliberately straightforward: this is the test oracle for the WebAssembly implementation and the
 * benchmark baseline. Inputs are assumed canonical (0 <= x < p); the public API in index.ts checks.
 */
import { FR_MODULUS, type Fr } from '../field.ts';
import { EXTERNAL_CONSTANTS_BEGIN, EXTERNAL_CONSTANTS_END, INTERNAL_CONSTANTS } from './constants.ts';

const P = FR_MODULUS;

function sbox(x: Fr): Fr {
  const x2 = (x * x) % P;
  const x4 = (x2 * x2) % P;
  return (x4 * x) % P;
}

/** External matrix circ(2, 1, 1): out_i = x_i + (x_0 + x_1 + x_2). */
function externalLayer(s: [Fr, Fr, Fr]): void {
  const sum = s[0] + s[1] + s[2];
  s[0] = (s[0] + sum) % P;
  s[1] = (s[1] + sum) % P;
  s[2] = (s[2] + sum) % P;
}

/** Internal matrix diag(1, 1, 2) + J: out_i = x_i * d_i + (x_0 + x_1 + x_2), d = [1, 1, 2]. */
function internalLayer(s: [Fr, Fr, Fr]): void {
  const sum = s[0] + s[1] + s[2];
  s[0] = (s[0] + sum) % P;
  s[1] = (s[1] + sum) % P;
  s[2] = (2n * s[2] + sum) % P;
}

function fullRound(s: [Fr, Fr, Fr], c: readonly [Fr, Fr, Fr]): void {
  s[0] = sbox((s[0] + c[0]) % P);
  s[1] = sbox((s[1] + c[1]) % P);
  s[2] = sbox((s[2] + c[2]) % P);
  externalLayer(s);
}

/** The Poseidon2 permutation on a state of three canonical field elements. */
export function permuteBigint(state: readonly [Fr, Fr, Fr]): [Fr, Fr, Fr] {
  const s: [Fr, Fr, Fr] = [state[0], state[1], state[2]];
  externalLayer(s);
  for (const c of EXTERNAL_CONSTANTS_BEGIN) fullRound(s, c);
  for (const c of INTERNAL_CONSTANTS) {
    s[0] = sbox((s[0] + c) % P);
    internalLayer(s);
  }
  for (const c of EXTERNAL_CONSTANTS_END) fullRound(s, c);
  return s;
}

/** Sponge hash: absorb each input into lane 0 then permute; pad with 1 the same way; squeeze lane 0. */
export function digestBigint(inputs: readonly Fr[]): Fr {
  let s: [Fr, Fr, Fr] = [0n, 0n, 0n];
  for (const x of inputs) {
    s[0] = (s[0] + x) % P;
    s = permuteBigint(s);
  }
  s[0] = (s[0] + 1n) % P;
  s = permuteBigint(s);
  return s[0];
}

/** Two-to-one compression (Merkle nodes, key derivation): perm([left, right, 0])[0], no padding. */
export function compressBigint(left: Fr, right: Fr): Fr {
  return permuteBigint([left, right, 0n])[0];
}
