/**
 * The ledger's Poseidon2 Merkle trees (src/ledger/trees): a block's UTXO update with deferred hashing,
 * the heap cost of a live leaf, and voucher appends.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { FR_MODULUS, type Fr } from '../src/crypto/field.ts';
import { UtxoTree } from '../src/ledger/trees/utxo-tree.ts';
import { VoucherTree } from '../src/ledger/trees/voucher-tree.ts';
import { xorshift32 } from '../test/utils/prng.ts';
import { durationMs, type Figure, rate } from './harness.ts';

/** Distinct, full-size (about 254-bit), non-zero note ids; deterministic. */
const MULT = 0x2a4e3bd83bd4b1f1c1f0ab8f0f3c6d2e9a7b3c1d5e4f60718293a4b5c6d7e8f9n;
function noteId(i: number): Fr {
  return ((BigInt(i) + 1n) * MULT) % FR_MODULUS;
}

function buildTree(leaves: number): UtxoTree {
  return UtxoTree.empty().withMutations((m) => {
    for (let i = 0; i < leaves; i++) m.insert(noteId(i));
  });
}

/** global.gc when node runs with --expose-gc, else one obtained by enabling the flag at run time. */
function collector(): (() => void) | undefined {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (exposed) return exposed;
  try {
    setFlagsFromString('--expose-gc');
    return runInNewContext('gc') as () => void;
  } catch {
    return undefined;
  }
}

function heapUsed(): number {
  const gc = collector();
  gc?.();
  gc?.();
  return process.memoryUsage().heapUsed;
}

export const figures: Figure[] = [
  {
    name: 'trees.utxo_block_update_ms',
    unit: 'ms',
    measure() {
      // A 100k-leaf tree with its root computed; each block spends 2,048 random live notes and creates
      // 2,048 notes (interleaved, as transactions do) in one batch, then computes the new root.
      const LEAVES = 100_000;
      const OPS = 2048;
      const base = buildTree(LEAVES);
      base.root();
      const rand = xorshift32(0x5eed);
      const blocks: number[][] = [];
      for (let b = 0; b < 8; b++) {
        const picked = new Set<number>();
        while (picked.size < OPS) picked.add(rand() % LEAVES);
        blocks.push([...picked]);
      }
      let b = 0;
      let fresh = LEAVES;
      return durationMs(
        () => {
          const removes = blocks[b++ % blocks.length]!;
          const next = base.withMutations((m) => {
            for (const index of removes) {
              m.remove(index);
              m.insert(noteId(fresh++));
            }
          });
          next.root();
        },
        { minMs: 1000, rounds: 5, warmupMs: 500 },
      );
    },
  },
  {
    name: 'trees.utxo_bytes_per_leaf_1m',
    unit: 'bytes',
    measure() {
      // Heap growth for one 1M-leaf version with every node hash cached (note ids included), measured
      // between full garbage collections.
      const LEAVES = 1_000_000;
      const before = heapUsed();
      const tree = buildTree(LEAVES);
      tree.root();
      const after = heapUsed();
      if (tree.size !== LEAVES) throw new Error('bad tree size');
      return (after - before) / LEAVES;
    },
  },
  {
    name: 'trees.voucher_append_per_s',
    unit: 'appends/s',
    measure() {
      let v = VoucherTree.empty();
      let i = 0;
      return rate(() => {
        for (let k = 0; k < 64; k++) v = v.append(noteId(i++));
      }, 64);
    },
  },
];
