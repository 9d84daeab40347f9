// A prover process: makes Groth16 proofs with snarkjs, whose witness generation and multi-threaded
// MSMs then never touch the node's event loop. (snarkjs' thread pool cannot start inside a worker
// thread, so proving runs in a child process.) Proving keys and witness generators are read once and
// kept in memory; the curve stays built between proofs. Plain JavaScript: it needs no loader.
//
// It runs at a low scheduling priority (nice 10), set before snarkjs starts its threads, which inherit
// it: proofs use the cores the node leaves idle and never delay block validation or the API.
import { readFileSync } from 'node:fs';
import { setPriority } from 'node:os';
import * as snarkjs from 'snarkjs';

interface ProveRequest {
  readonly id: number;
  readonly close?: boolean;
  readonly warm?: boolean;
  readonly input: Record<string, unknown>;
  readonly wasmPath: string;
  readonly zkeyPath: string;
}

const send = (m: unknown): void => {
  process.send?.(m);
};

try {
  setPriority(10);
} catch {
  // A system that refuses it leaves the prover at the node's priority.
}

const files = new Map<string, Uint8Array>();
function mem(path: string): snarkjs.MemFile {
  let data = files.get(path);
  if (!data) {
    data = new Uint8Array(readFileSync(path));
    files.set(path, data);
  }
  return { type: 'mem', data };
}

async function shutdown(): Promise<void> {
  await (globalThis as { curve_bn128?: { terminate(): Promise<void> } }).curve_bn128?.terminate();
  process.exit(0);
}

process.on('disconnect', () => void shutdown());
// A terminal's Ctrl-C or a SIGTERM to the process group reaches the prover too; the node closes it in
// its stop order (a close message, or the IPC channel ending if the node dies), so it ignores them.
process.on('SIGINT', () => {});
process.on('SIGTERM', () => {});
process.on('message', async (msg: ProveRequest) => {
  if (msg.close) {
    await shutdown();
    return;
  }
  try {
    if (msg.warm) {
      // Reads the circuit's files and builds the curve (its threads), so the first proof costs no more
      // than the others.
      mem(msg.wasmPath);
      mem(msg.zkeyPath);
      await snarkjs.curves.getCurveFromName('bn128');
      send({ id: msg.id, ok: true, proof: null, publicSignals: [] });
      return;
    }
    const { proof, publicSignals } = await snarkjs.groth16.fullProve(
      msg.input,
      mem(msg.wasmPath),
      mem(msg.zkeyPath),
    );
    send({ id: msg.id, ok: true, proof, publicSignals });
  } catch (e) {
    send({ id: msg.id, ok: false, error: e instanceof Error ? e.message : String(e) });
  }
});
