/**
 * Zero-knowledge figures with the shipped devnet keys: proving time of each statement (warm
 * process, witness included), verification time, constraint counts, and the longest event-loop
 * stall on the main thread while a proof of leadership is made in the prover worker.
 */

import { entropyContribution } from '../src/consensus/lottery.ts';
import { FR_MODULUS, frFromAscii } from '../src/crypto/field.ts';
import { compress } from '../src/crypto/poseidon2/index.ts';
import { zkPublicKey } from '../src/crypto/zk-keys.ts';
import type { PocPublicInputs, PocWitness, PolPublicInputs, PolWitness } from '../src/ledger/proof-system.ts';
import { UtxoTree } from '../src/ledger/trees/utxo-tree.ts';
import { VoucherTree, voucherPath } from '../src/ledger/trees/voucher-tree.ts';
import { noteId } from '../src/mantle/note.ts';
import { SHIPPED_CIRCUITS_DIR } from '../src/zk/circuit-folder.ts';
import { Groth16ProofSystem } from '../src/zk/groth16-system.ts';
import { type Figure, medianCallMs } from './harness.ts';

let system: Groth16ProofSystem | undefined;
function zk(): Groth16ProofSystem {
  system ??= new Groth16ProofSystem({ circuits: SHIPPED_CIRCUITS_DIR });
  return system;
}

/** A leadership statement that holds: one note in the tree, a lottery under which it always wins. */
export function polCase(): { inputs: PolPublicInputs; witness: PolWitness } {
  const sk = 1234567n;
  const value = 1_000_000n;
  const id = noteId(new Uint8Array(32).fill(42), 0, { value, pk: zkPublicKey(sk) });
  const tree = UtxoTree.empty().insert(1n).tree.insert(id).tree;
  const slot = 77n;
  const inputs: PolPublicInputs = {
    entropy_contribution: entropyContribution(slot, id, sk),
    slot,
    epoch_nonce: 5n,
    lottery_0: (FR_MODULUS - 1n) / value,
    lottery_1: 0n,
    aged_root: tree.root(),
    latest_root: tree.root(),
    leader_pk1: 3n,
    leader_pk2: 4n,
  };
  return {
    inputs,
    witness: {
      secret_key: sk,
      note_value: value,
      note_tx_hash: BigInt(`0x${'2a'.repeat(32)}`) % FR_MODULUS,
      note_output_index: 0,
      aged_path: tree.path(1),
      aged_index: 1,
      latest_path: tree.path(1),
      latest_index: 1,
    },
  };
}

function pocCase(): { inputs: PocPublicInputs; witness: PocWitness } {
  const leaves = [1n, 2n, 3n].map((s) => compress(frFromAscii('REWARD_VOUCHER'), s));
  let t = VoucherTree.empty();
  for (const l of leaves) t = t.append(l);
  return {
    inputs: {
      voucher_nullifier: compress(frFromAscii('VOUCHER_NF'), 2n),
      voucher_root: t.root(),
      mantle_tx_hash: 9n,
    },
    witness: { voucher_secret: 2n, voucher_path: voucherPath(leaves, 1), voucher_index: 1 },
  };
}

async function seconds(fn: () => Promise<unknown>, runs = 3): Promise<number> {
  await fn(); // warm: workers started, keys loaded, curve built
  return (await medianCallMs(fn, runs)) / 1000;
}

async function verifyMs(fn: () => Promise<boolean>, runs = 20): Promise<number> {
  if (!(await fn())) throw new Error('the benchmark proof does not verify');
  return medianCallMs(fn, runs);
}

const proofs: {
  zksig?: Awaited<ReturnType<Groth16ProofSystem['proveZkSign']>>;
  pol?: Uint8Array;
  poc?: Uint8Array;
} = {};

export const figures: Figure[] = [
  {
    name: 'zk.zksig_constraints',
    unit: 'constraints',
    measure: () => zk().constraints('zksig') ?? Number.NaN,
  },
  { name: 'zk.pol_constraints', unit: 'constraints', measure: () => zk().constraints('pol') ?? Number.NaN },
  { name: 'zk.poc_constraints', unit: 'constraints', measure: () => zk().constraints('poc') ?? Number.NaN },
  {
    name: 'zk.zksig_prove_s',
    unit: 's',
    measure: () =>
      seconds(async () => {
        proofs.zksig = await zk().proveZkSign(7n, [1n, 2n]);
      }),
  },
  {
    name: 'zk.pol_prove_s',
    unit: 's',
    measure: () => {
      const c = polCase();
      return seconds(async () => {
        proofs.pol = await zk().provePol(c.inputs, c.witness);
      });
    },
  },
  {
    name: 'zk.poc_prove_s',
    unit: 's',
    measure: () => {
      const c = pocCase();
      return seconds(async () => {
        proofs.poc = await zk().provePoc(c.inputs, c.witness);
      });
    },
  },
  {
    name: 'zk.verify_ms',
    unit: 'ms',
    async measure(ctx) {
      await ctx.value('zk.zksig_prove_s');
      await ctx.value('zk.pol_prove_s');
      await ctx.value('zk.poc_prove_s');
      const s = zk();
      const pol = polCase();
      const poc = pocCase();
      const times = [
        await verifyMs(() =>
          s.verifyZkSign({ msg: 7n, publicKeys: [zkPublicKey(1n), zkPublicKey(2n)] }, proofs.zksig!),
        ),
        await verifyMs(() => s.verifyPol(pol.inputs, proofs.pol!)),
        await verifyMs(() => s.verifyPoc(poc.inputs, proofs.poc!)),
      ];
      return Math.max(...times);
    },
  },
  {
    name: 'zk.event_loop_stall_ms',
    unit: 'ms',
    async measure() {
      const c = polCase();
      await zk().provePol(c.inputs, c.witness);
      let last = performance.now();
      let worst = 0;
      const timer = setInterval(() => {
        const now = performance.now();
        worst = Math.max(worst, now - last);
        last = now;
      }, 1);
      await zk().provePol(c.inputs, c.witness);
      clearInterval(timer);
      await system?.close();
      system = undefined;
      return worst;
    },
  },
];
