// A proof-verification worker thread: receives the circuits' verification keys once (workerData), then
// batches of Groth16 verifications, and answers each batch with one boolean per proof, in order.
// Plain JavaScript that registers the TypeScript loader itself: worker threads do not inherit the
// node's `--import tsx`, so the verifier (TypeScript) is imported only after the registration.
import { parentPort, workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
const { groth16Verify, prepareVerifyingKey } = await import('../crypto/groth16/index.ts');

const keys = {};
for (const [name, json] of Object.entries(workerData.verificationKeys))
  keys[name] = prepareVerifyingKey(json);

// Builds the WebAssembly curve now (a malformed proof still builds it), so the first request is not slow.
await groth16Verify(keys.zksig, Array(keys.zksig.nPublic).fill(0n), new Uint8Array(128));

parentPort.on('message', async (msg) => {
  const results = [];
  try {
    for (const job of msg.jobs) {
      const vk = keys[job.circuit];
      results.push(vk === undefined ? false : await groth16Verify(vk, job.publicInputs, job.proof));
    }
    parentPort.postMessage({ id: msg.id, ok: true, results });
  } catch (e) {
    parentPort.postMessage({ id: msg.id, ok: false, error: e instanceof Error ? e.message : String(e) });
  }
});
parentPort.postMessage({ ready: true });
