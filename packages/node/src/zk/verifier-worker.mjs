// A proof-verification worker thread: receives the circuits' verification keys once (workerData), then
// groups of Groth16 verifications, and answers each group with one boolean per proof, in order. The
// proofs of one circuit in a group are checked as one batch (a random linear combination, one final
// exponentiation; a failing batch is split until each bad proof stands alone).
// Plain JavaScript that registers the TypeScript loader itself: worker threads do not inherit the
// node's `--import tsx`, so the verifier (TypeScript) is imported only after the registration.
import { parentPort, workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
const { prepareVerifyingKey, wasmVerifier } = await import('../crypto/groth16/index.ts');

const keys = {};
for (const [name, json] of Object.entries(workerData.verificationKeys))
  keys[name] = prepareVerifyingKey(json);

// Builds the WebAssembly curve now (a malformed proof still builds it), so the first request is not slow.
const engine = await wasmVerifier();
engine.verify(keys.zksig, Array(keys.zksig.nPublic).fill(0n), new Uint8Array(128));

parentPort.on('message', (msg) => {
  const results = new Array(msg.jobs.length).fill(false);
  try {
    const byCircuit = new Map();
    msg.jobs.forEach((job, i) => {
      if (keys[job.circuit] === undefined) return;
      const group = byCircuit.get(job.circuit) ?? [];
      group.push(i);
      byCircuit.set(job.circuit, group);
    });
    for (const [circuit, indices] of byCircuit) {
      const items = indices.map((i) => msg.jobs[i]);
      const ok =
        items.length === 1
          ? [engine.verify(keys[circuit], items[0].publicInputs, items[0].proof)]
          : engine.verifyBatch(keys[circuit], items);
      indices.forEach((i, k) => {
        results[i] = ok[k] === true;
      });
    }
    parentPort.postMessage({ id: msg.id, ok: true, results });
  } catch (e) {
    parentPort.postMessage({ id: msg.id, ok: false, error: e instanceof Error ? e.message : String(e) });
  }
});
parentPort.postMessage({ ready: true });
