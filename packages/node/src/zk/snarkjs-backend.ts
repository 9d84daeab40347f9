/**
 * The snarkjs prover backend: `groth16.fullProve` with the circuit's files read once and kept in memory,
 * the curve (and its thread pool) built once and kept between proofs.
 */
import { readFileSync } from 'node:fs';
import * as snarkjs from 'snarkjs';
import type { ProverBackend } from './prover-backend.ts';

export function snarkjsBackend(): ProverBackend {
  const files = new Map<string, Uint8Array>();
  const mem = (path: string): snarkjs.MemFile => {
    let data = files.get(path);
    if (!data) {
      data = new Uint8Array(readFileSync(path));
      files.set(path, data);
    }
    return { type: 'mem', data };
  };
  return {
    async warm(wasmPath, zkeyPath) {
      mem(wasmPath);
      mem(zkeyPath);
      await snarkjs.curves.getCurveFromName('bn128');
    },
    prove: (wasmPath, zkeyPath, input) => snarkjs.groth16.fullProve(input, mem(wasmPath), mem(zkeyPath)),
    async close() {
      await (globalThis as { curve_bn128?: { terminate(): Promise<void> } }).curve_bn128?.terminate();
    },
  };
}
