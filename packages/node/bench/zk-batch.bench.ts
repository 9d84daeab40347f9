/**
 * Batch verification of 1,000 ZkSig proofs (the shipped devnet keys): verified one by one on one core
 * (the WebAssembly verifier in this process) against the node's verifier pool, one worker per core
 * (`os.availableParallelism()`), each checking the proofs it receives as batches; the same proofs in
 * the same run. The proofs: one real ZkSig proof, re-randomized into 1,000 distinct valid proofs of
 * the same statement ((r·A, r⁻¹·B + s·δ, C + s·r·A) for random r, s), so no proving is timed.
 */
import { randomBytes } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { bn254 } from '@noble/curves/bn254.js';
import {
  decodeProof,
  encodeProof,
  prepareVerifyingKey,
  wasmVerifier,
  zkSignatureToBytes,
} from '../src/crypto/groth16/index.ts';
import { zkPublicKey } from '../src/crypto/zk-keys.ts';
import { type CircuitName, SHIPPED_CIRCUITS_DIR } from '../src/zk/circuit-folder.ts';
import { Groth16ProofSystem, zkSignPublic } from '../src/zk/groth16-system.ts';
import { VerifierPool } from '../src/zk/verifier-pool.ts';
import type { Figure } from './harness.ts';

const PROOFS = Number(process.env.BENCH_ZK_BATCH_PROOFS ?? 1000);

interface Set {
  readonly inputs: bigint[];
  readonly proofs: Uint8Array[];
  readonly keys: Record<CircuitName, unknown>;
}

let made: Promise<Set> | undefined;

function proofSet(): Promise<Set> {
  made ??= (async () => {
    const system = new Groth16ProofSystem({ circuits: SHIPPED_CIRCUITS_DIR });
    try {
      const sks = [11n, 12n];
      const msg = 987654321n;
      const sig = await system.proveZkSign(msg, sks);
      const inputs = zkSignPublic({ msg, publicKeys: sks.map(zkPublicKey) });
      const keys = system.verificationKeys();
      const vk = prepareVerifyingKey(keys.zksig);
      const { a, b, c } = decodeProof(zkSignatureToBytes(sig));
      const Fr = bn254.fields.Fr;
      const scalar = () => Fr.create(BigInt(`0x${randomBytes(32).toString('hex')}`)) || 1n;
      const proofs = Array.from({ length: PROOFS }, () => {
        const r = scalar();
        const s = scalar();
        const ra = a.multiply(r);
        return encodeProof({
          a: ra,
          b: b.multiply(Fr.inv(r)).add(vk.delta.multiply(s)),
          c: c.add(ra.multiply(s)),
        });
      });
      return { inputs, proofs, keys };
    } finally {
      await system.close();
    }
  })();
  return made;
}

async function singleRate(): Promise<number> {
  const { inputs, proofs, keys } = await proofSet();
  const vk = prepareVerifyingKey(keys.zksig);
  const w = await wasmVerifier();
  w.verify(vk, inputs, proofs[0]!); // key prepared, curve warm
  const t = performance.now();
  for (const p of proofs) if (!w.verify(vk, inputs, p)) throw new Error('a benchmark proof does not verify');
  return (proofs.length * 1000) / (performance.now() - t);
}

async function batchRate(): Promise<number> {
  const { inputs, proofs, keys } = await proofSet();
  const pool = await VerifierPool.start({ verificationKeys: keys, size: availableParallelism() });
  try {
    await Promise.all(proofs.slice(0, 64).map((p) => pool.verify('zksig', inputs, p))); // warm
    const t = performance.now();
    const ok = await Promise.all(proofs.map((p) => pool.verify('zksig', inputs, p)));
    const rate = (proofs.length * 1000) / (performance.now() - t);
    if (!ok.every(Boolean)) throw new Error('a benchmark proof does not verify in a batch');
    return rate;
  } finally {
    await pool.close();
  }
}

export const figures: Figure[] = [
  { name: 'zk.verify_single_per_s', unit: 'proofs/s', measure: () => singleRate() },
  { name: 'zk.verify_batch_per_s', unit: 'proofs/s', measure: () => batchRate() },
  {
    name: 'zk.batch_speedup',
    unit: 'x',
    async measure(ctx) {
      return (await ctx.value('zk.verify_batch_per_s')) / (await ctx.value('zk.verify_single_per_s'));
    },
  },
];
