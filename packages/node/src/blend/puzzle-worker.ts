// The Blend puzzle worker thread (see puzzle-solver.ts): it searches, for one task at a time, a nonce
// whose Blend PoW ticket is below the epoch's difficulty, in chunks of a few milliseconds
// (util/chunked-worker.ts, the loop the PoW ticket workers use too), and posts the solution. It
// lowers its own scheduling priority first, so block validation and the API go first.
// Started by puzzle-solver.ts through `startWorker` (shared/runtime.ts).
import { parentPort } from 'node:worker_threads';
import { powTicket, powTicketSatisfies, randomPowNonce } from '../crypto/blend/pow.ts';
import { lowerPriority, serveChunkedTasks } from '../util/chunked-worker.ts';

const port = parentPort!;

lowerPriority(); // where it is not permitted, the search runs at the node's priority

const CHUNK_MS = 4;

serveChunkedTasks({
  start: (msg) => ({ id: msg.id, epochNonce: msg.epochNonce, difficulty: msg.difficulty, attempts: 0 }),
  chunk(t) {
    const end = performance.now() + CHUNK_MS;
    let attempts = 0;
    while (performance.now() < end) {
      for (let i = 0; i < 16; i++) {
        attempts++;
        const nonce = randomPowNonce();
        if (powTicketSatisfies(powTicket(t.epochNonce, nonce), t.difficulty)) {
          port.postMessage({ type: 'solution', id: t.id, nonce, attempts: t.attempts + attempts });
          return false;
        }
      }
    }
    t.attempts += attempts;
    return true;
  },
});
port.postMessage({ type: 'ready' });
