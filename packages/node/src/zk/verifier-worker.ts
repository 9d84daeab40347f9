// A proof-verification worker thread: receives the circuits' verification keys once (workerData), then
// groups of Groth16 verifications, and answers each group with one boolean per proof, in order. The
// proofs of one circuit in a group are checked as one batch (a random linear combination, one final
// exponentiation; a failing batch is split until each bad proof stands alone).
// Started by verifier-pool.ts through `startWorker` (shared/runtime.ts).
import { parentPort, workerData } from 'node:worker_threads';
import { type PreparedVerifyingKey, prepareVerifyingKey, wasmVerifier } from '../crypto/groth16/index.ts';

interface Job {
  readonly circuit: string;
  readonly publicInputs: readonly bigint[];
  readonly proof: Uint8Array;
}
interface Request {
  readonly id: number;
  readonly jobs: readonly Job[];
}

const port = parentPort!;

const keys: Record<string, PreparedVerifyingKey> = {};
for (const [name, json] of Object.entries(workerData.verificationKeys as Record<string, unknown>))
  keys[name] = prepareVerifyingKey(json);

// Builds the WebAssembly curve now (a malformed proof still builds it), so the first request is not slow.
const engine = await wasmVerifier();
const warm = keys.zksig;
if (warm !== undefined) engine.verify(warm, Array(warm.nPublic).fill(0n), new Uint8Array(128));

port.on('message', (msg: Request) => {
  const results: boolean[] = new Array(msg.jobs.length).fill(false);
  try {
    const byCircuit = new Map<string, number[]>();
    msg.jobs.forEach((job, i) => {
      if (keys[job.circuit] === undefined) return;
      const group = byCircuit.get(job.circuit) ?? [];
      group.push(i);
      byCircuit.set(job.circuit, group);
    });
    for (const [circuit, indices] of byCircuit) {
      const items = indices.map((i) => msg.jobs[i]!);
      const key = keys[circuit]!;
      const ok =
        items.length === 1
          ? [engine.verify(key, items[0]!.publicInputs, items[0]!.proof)]
          : engine.verifyBatch(key, items);
      indices.forEach((i, k) => {
        results[i] = ok[k] === true;
      });
    }
    port.postMessage({ id: msg.id, ok: true, results });
  } catch (e) {
    port.postMessage({ id: msg.id, ok: false, error: e instanceof Error ? e.message : String(e) });
  }
});
port.postMessage({ ready: true });
