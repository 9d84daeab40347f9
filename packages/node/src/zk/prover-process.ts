// A prover process: makes Groth16 proofs with the backend named by its first argument (`wasm`, this
// project's prover on as many worker threads as its second argument says, or `snarkjs`), so that
// witness generation and multi-threaded MSMs never touch the node's event loop. Proving keys and
// witness generators are read once and kept in memory.
//
// It runs at a low scheduling priority (nice 10), set before any thread starts, which inherit it:
// proofs use the cores the node leaves idle and never delay block validation or the API.
//
// One request at a time: {id, wasmPath, zkeyPath, input} or {id, warm: true, …}; {cancel: id} stops
// the request under way when the backend can (this project's prover stops between and inside its
// tasks; snarkjs runs to its end); {close: true} ends the process.
import { setPriority } from 'node:os';
import type { ProverBackend, ProverBackendName } from './prover-backend.ts';

interface ProveRequest {
  readonly id: number;
  readonly close?: boolean;
  readonly cancel?: number;
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

const name = (process.argv[2] ?? 'wasm') as ProverBackendName;
const threads = Math.max(1, Number(process.argv[3] ?? 1) | 0);
let backend: Promise<ProverBackend>;
if (name === 'snarkjs') backend = import('./snarkjs-backend.ts').then((m) => m.snarkjsBackend());
else backend = import('./wasm-backend.ts').then((m) => m.wasmBackend(threads));
// A backend that cannot start fails every request with its reason (the pool then reports it).
backend.catch(() => {});

let current: { id: number; abort: AbortController } | undefined;

async function shutdown(): Promise<void> {
  try {
    await (await backend).close();
  } finally {
    process.exit(0);
  }
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
  if (msg.cancel !== undefined) {
    if (current?.id === msg.cancel) current.abort.abort();
    return;
  }
  const abort = new AbortController();
  current = { id: msg.id, abort };
  try {
    const b = await backend;
    if (msg.warm) {
      await b.warm(msg.wasmPath, msg.zkeyPath);
      send({ id: msg.id, ok: true, proof: null, publicSignals: [] });
      return;
    }
    const { proof, publicSignals } = await b.prove(msg.wasmPath, msg.zkeyPath, msg.input, abort.signal);
    send({ id: msg.id, ok: true, proof, publicSignals });
  } catch (e) {
    send({ id: msg.id, ok: false, error: e instanceof Error ? e.message : String(e) });
  } finally {
    if (current?.id === msg.id) current = undefined;
  }
});
