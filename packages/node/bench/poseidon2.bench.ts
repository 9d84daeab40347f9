/**
 * Poseidon2 (BN254, t = 3): the WebAssembly implementation behind the public API against the plain
 * bigint reference, on one core. Permutations are chained (each output is the next input).
 */
import type { Fr } from '../src/crypto/field.ts';
import { merkleRoot, permute } from '../src/crypto/poseidon2/index.ts';
import { permuteBigint } from '../src/crypto/poseidon2/reference.ts';
import { durationMs, type Figure, rate } from './harness.ts';

const BATCH = 10;
const START: [Fr, Fr, Fr] = [
  0x0bb61d24daca55eebcb1929a82650f328134334da98ea4f847f760054f4a3033n,
  0x303b6f7c86d043bfcbcc80214f26a30277a15d3f74ca654992defe7ff8d03570n,
  0x1ed25194542b12eef8617361c3ba7c52e660b145994427cc86296242cf766ec8n,
];

function chainedRate(perm: (s: readonly [Fr, Fr, Fr]) => [Fr, Fr, Fr]): number {
  let s: [Fr, Fr, Fr] = [...START];
  return rate(() => {
    for (let i = 0; i < BATCH; i++) s = perm(s);
  }, BATCH);
}

export const figures: Figure[] = [
  {
    name: 'poseidon2.perms_per_s',
    unit: 'perms/s',
    measure: () => chainedRate(permute),
  },
  {
    name: 'poseidon2.bigint_perms_per_s',
    unit: 'perms/s',
    measure: () => chainedRate(permuteBigint),
  },
  {
    name: 'poseidon2.ratio_vs_bigint',
    unit: 'x',
    measure: async (ctx) =>
      (await ctx.value('poseidon2.perms_per_s')) / (await ctx.value('poseidon2.bigint_perms_per_s')),
  },
  {
    name: 'poseidon2.merkle_path_ms',
    unit: 'ms',
    measure: () => {
      // A 32-level path (the UTXO tree height) with a fixed pseudo-random index and siblings.
      const siblings = Array.from({ length: 32 }, (_, i) => permute([BigInt(i), 1n, 2n])[0]);
      const index = 0x9e3779b9n;
      let leaf = START[0];
      return durationMs(() => {
        leaf = merkleRoot(leaf, siblings, index);
      });
    },
  },
];
