/**
 * This project's prover backend: witnesses from the circuit's circom WebAssembly generator
 * (circom_runtime, built once per circuit and reused), proofs from @logos-ts/groth16 over worker
 * threads, each proving key read and placed in the prover's memory once, on its circuit's first use.
 */
import { readFileSync } from 'node:fs';
import { NodeRunner } from '@logos-ts/groth16/node/node-runner';
import { Groth16Prover } from '@logos-ts/groth16/prover';
import { type WitnessCalculator, WitnessCalculatorBuilder } from 'circom_runtime';
import type { SnarkjsProof } from 'snarkjs';
import type { ProverBackend } from './prover-backend.ts';

export async function wasmBackend(threads: number): Promise<ProverBackend> {
  const prover = await Groth16Prover.start({
    threads,
    runner: (heap, module) => NodeRunner.start(heap, module, threads),
  });
  const calculators = new Map<string, WitnessCalculator>();
  const ready = async (wasmPath: string, zkeyPath: string): Promise<WitnessCalculator> => {
    if (!prover.hasKey(zkeyPath)) prover.addKey(zkeyPath, new Uint8Array(readFileSync(zkeyPath)));
    let wc = calculators.get(wasmPath);
    if (!wc) {
      wc = await WitnessCalculatorBuilder(new Uint8Array(readFileSync(wasmPath)));
      calculators.set(wasmPath, wc);
    }
    return wc;
  };
  return {
    async warm(wasmPath, zkeyPath) {
      await ready(wasmPath, zkeyPath);
    },
    async prove(wasmPath, zkeyPath, input, signal) {
      const wc = await ready(wasmPath, zkeyPath);
      const wtns = await wc.calculateWTNSBin(input, true);
      const { proof, publicSignals } = await prover.prove(zkeyPath, wtns, { signal });
      return { proof: proof as unknown as SnarkjsProof, publicSignals };
    },
    close: () => prover.close(),
  };
}
