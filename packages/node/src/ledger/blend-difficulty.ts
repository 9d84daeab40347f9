/**
 * The Blend PoW difficulty `d_blend` of each epoch (the threshold a Blend PoW ticket must fall below)
 * and the per-epoch transaction counts it is retargeted from.
 * F: ledger/src/mantle/pow/{blend_difficulty,tx_density}.rs, ledger/src/config.rs `BlendPoWConfig`.
 *
 * Epoch N's value is fixed with epoch N's nonce (during epoch N−1) from the load of the last epoch
 * closed at that moment (N−2): `d = BASE / load^(a/b)` with `load = (txs / blocks) / T_tx`,
 * clamped to `[previous / k, previous · k]`; no transaction at all eases by the full step.
 */
import { FR_MODULUS } from '../crypto/field.ts';
import type { BlendPowParams } from './parameters.ts';

export type { BlendPowParams };

/** The largest shift that leaves a non-zero element: p is 254 bits wide. */
export const MAX_MODULUS_SHIFT = 253;
const MAX_TARGET = FR_MODULUS - 1n;

export function blendBaseDifficulty(p: BlendPowParams): bigint {
  return FR_MODULUS >> BigInt(p.base_difficulty);
}

/** Blocks and transactions of one epoch. */
export interface EpochLoad {
  readonly transactions: bigint;
  readonly blocks: bigint;
}

/** The counts of the epoch being extended and of the last epoch that closed (null until one has). */
export interface TxDensity {
  readonly current: EpochLoad;
  readonly last_closed: EpochLoad | null;
}

export const EMPTY_TX_DENSITY: TxDensity = { current: { transactions: 0n, blocks: 0n }, last_closed: null };

/** Counts a block and its transactions into the current epoch. */
export function recordBlockTxs(d: TxDensity, txs: bigint): TxDensity {
  return { ...d, current: { transactions: d.current.transactions + txs, blocks: d.current.blocks + 1n } };
}

/** Closes the current epoch (once per epoch crossed: a skipped epoch closes as empty). */
export function closeEpoch(d: TxDensity): TxDensity {
  return { current: { transactions: 0n, blocks: 0n }, last_closed: d.current };
}

/** floor(x^(1/n)) for x ≥ 0, n ≥ 1 (Newton's iteration on integers). */
export function integerRoot(x: bigint, n: number): bigint {
  if (x < 0n || n < 1) throw new RangeError('integerRoot needs x >= 0 and n >= 1');
  if (x < 2n || n === 1) return x;
  const N = BigInt(n);
  // A first guess above the root: 2^ceil(bits / n).
  let r = 1n << BigInt(Math.ceil(x.toString(2).length / n));
  for (;;) {
    const next = ((N - 1n) * r + x / r ** (N - 1n)) / N;
    if (next >= r) break;
    r = next;
  }
  while (r ** N > x) r -= 1n;
  while ((r + 1n) ** N <= x) r += 1n;
  return r;
}

/** d_blend for an epoch, from a closed epoch's load and the previous threshold. F: `compute_epoch_blend_difficulty`. */
export function epochBlendDifficulty(load: EpochLoad, previous: bigint, p: BlendPowParams): bigint {
  const low = previous / p.max_step;
  const high = previous * p.max_step;
  const cap = (v: bigint) => (v > MAX_TARGET ? MAX_TARGET : v);
  if (load.transactions === 0n) return cap(high);
  const a = BigInt(p.damping_num);
  const b = p.damping_num + p.damping_den_offset;
  const numerator = load.transactions;
  const denominator = p.target_transactions_per_block * load.blocks;
  const base = blendBaseDifficulty(p);
  const radicand = (base ** BigInt(b) * denominator ** a) / numerator ** a;
  const target = integerRoot(radicand, b);
  return cap(target < low ? low : target > high ? high : target);
}
