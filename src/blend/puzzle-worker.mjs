// The Blend puzzle worker thread (see puzzle-solver.ts): it searches, for one task at a time, a nonce
// whose Blend PoW ticket is below the epoch's difficulty, in chunks of a few milliseconds, and posts
// the solution; between chunks it yields, so a new task or `idle` takes effect within one chunk. It
// lowers its own scheduling priority first, so block validation and the API go first.
// Plain JavaScript that registers the TypeScript loader itself: worker threads do not inherit the
// node's `--import tsx`.
import { setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
const { powTicket, powTicketSatisfies, randomPowNonce } = await import('../crypto/blend/pow.ts');

try {
  setPriority(0, 19);
} catch {
  // Not permitted here: the search still runs, at the node's priority.
}

const CHUNK_MS = 4;
let task = null;
let scheduled = false;

function loop() {
  scheduled = false;
  if (task === null) return;
  const t = task;
  const end = performance.now() + CHUNK_MS;
  let attempts = 0;
  while (performance.now() < end) {
    for (let i = 0; i < 16; i++) {
      attempts++;
      const nonce = randomPowNonce();
      if (powTicketSatisfies(powTicket(t.epochNonce, nonce), t.difficulty)) {
        task = null;
        parentPort.postMessage({ type: 'solution', id: t.id, nonce, attempts: t.attempts + attempts });
        return;
      }
    }
  }
  t.attempts += attempts;
  schedule();
}

function schedule() {
  if (!scheduled && task !== null) {
    scheduled = true;
    setImmediate(loop);
  }
}

parentPort.on('message', (msg) => {
  if (msg.type === 'task') {
    task = { id: msg.id, epochNonce: msg.epochNonce, difficulty: msg.difficulty, attempts: 0 };
    schedule();
  } else if (msg.type === 'idle') {
    task = null;
  }
});
parentPort.postMessage({ type: 'ready' });
