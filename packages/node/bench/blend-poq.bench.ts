/**
 * Blend's proof of quota with the shipped devnet keys: proving time of a core node's proof (warm
 * prover, witness included; median of three) and verification time (median of twenty), over a core
 * tree of 100 keys.
 */
import { CoreTree } from '../src/crypto/blend/core-tree.ts';
import { type PoqPublicInputs, PoqSelector, type PoqWitness } from '../src/crypto/blend/poq.ts';
import { zkPublicKey } from '../src/crypto/zk-keys.ts';
import { SHIPPED_CIRCUITS_DIR } from '../src/zk/circuit-folder.ts';
import { Groth16ProofSystem } from '../src/zk/groth16-system.ts';
import { type Figure, medianCallMs } from './harness.ts';

/** A core node's statement: key 57 of 100, quota 10, index 3. */
function coreCase(): { inputs: PoqPublicInputs; witness: PoqWitness } {
  const sks = Array.from({ length: 100 }, (_, i) => BigInt(i + 1));
  const tree = new CoreTree(sks.map(zkPublicKey));
  return {
    inputs: {
      signing_key: new Uint8Array(32).fill(7),
      core: { zk_root: tree.root, quota: 10n },
      leader: { pol_ledger_aged: 1n, pol_epoch_nonce: 5n, message_quota: 3n, lottery_0: 1n, lottery_1: 2n },
      pow: { pow_blend_difficulty: 1n, pow_quota: 3n },
    },
    witness: {
      selector: PoqSelector.Core,
      key_index: 3n,
      core_sk: 57n,
      core_path: tree.pathOf(zkPublicKey(57n))!,
    },
  };
}

export const figures: Figure[] = [
  {
    name: 'blend.poq_prove_ms',
    unit: 'ms',
    async measure() {
      const zk = new Groth16ProofSystem({ circuits: SHIPPED_CIRCUITS_DIR });
      try {
        const c = coreCase();
        await zk.provePoq(c.inputs, c.witness); // warm: prover started, keys loaded
        return await medianCallMs(() => zk.provePoq(c.inputs, c.witness), 3);
      } finally {
        await zk.close();
      }
    },
  },
  {
    name: 'blend.poq_verify_ms',
    unit: 'ms',
    async measure() {
      const zk = new Groth16ProofSystem({ circuits: SHIPPED_CIRCUITS_DIR });
      try {
        const c = coreCase();
        const p = await zk.provePoq(c.inputs, c.witness);
        if (!(await zk.verifyPoq(c.inputs, p.keyNullifier, p.proof)))
          throw new Error('the benchmark proof does not verify');
        return await medianCallMs(() => zk.verifyPoq(c.inputs, p.keyNullifier, p.proof), 20);
      } finally {
        await zk.close();
      }
    },
  },
];
