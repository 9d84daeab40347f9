/**
 * Groth16 verification (BN254) of the toy-circuit fixture (test/spec/vectors/groth16, 3 public inputs):
 * the WebAssembly verifier on ffjavascript's single-threaded curve, and the pure-JS noble one. The
 * three fixture proofs are verified in turn; the curve is built and the key prepared before timing.
 */
import { readFileSync } from 'node:fs';
import {
  compressProof,
  type PreparedVerifyingKey,
  prepareVerifyingKey,
  verifyNoble,
  wasmVerifier,
} from '../src/crypto/groth16/index.ts';
import { durationMs, type Figure } from './harness.ts';

interface Fixture {
  vk: PreparedVerifyingKey;
  proofs: { inputs: bigint[]; bytes: Uint8Array }[];
}

let fixture: Fixture | undefined;

function load(): Fixture {
  if (fixture) return fixture;
  const dir = new URL('../test/spec/vectors/groth16/', import.meta.url);
  const read = (name: string): unknown => JSON.parse(readFileSync(new URL(name, dir), 'utf8'));
  fixture = {
    vk: prepareVerifyingKey(read('verification_key.json')),
    proofs: [1, 2, 3].map((i) => ({
      inputs: (read(`public_${i}.json`) as string[]).map(BigInt),
      bytes: compressProof(read(`proof_${i}.json`)),
    })),
  };
  return fixture;
}

function cycling(verifyOne: (vk: PreparedVerifyingKey, inputs: bigint[], bytes: Uint8Array) => boolean) {
  const { vk, proofs } = load();
  let i = 0;
  return () => {
    const p = proofs[i++ % proofs.length]!;
    if (!verifyOne(vk, p.inputs, p.bytes)) throw new Error('fixture proof did not verify');
  };
}

export const figures: Figure[] = [
  {
    name: 'groth16.verify_wasm_ms',
    unit: 'ms',
    measure: async () => {
      const w = await wasmVerifier();
      return durationMs(cycling((vk, inputs, bytes) => w.verify(vk, inputs, bytes)));
    },
  },
  {
    name: 'groth16.verify_noble_ms',
    unit: 'ms',
    measure: () => durationMs(cycling(verifyNoble), { rounds: 5, minMs: 500, warmupMs: 300 }),
  },
];
